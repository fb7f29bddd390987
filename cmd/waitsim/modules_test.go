//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/waitsim/waitsim/results"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/serve"
)

// waitsim in modules of one's own: the example modules and a module that
// `waitsim init` sets up, each copied or created outside this repository,
// their go.mod pointing at this checkout.

// repoRoot is this checkout's root (the tests run in cmd/waitsim).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

var built struct {
	sync.Once
	dir string // removed by TestMain
	bin string
	err error
	out []byte
}

// waitsimBin builds the waitsim command of this checkout once per test
// process.
func waitsimBin(t *testing.T) string {
	t.Helper()
	built.Do(func() {
		dir, err := os.MkdirTemp("", "waitsim-modules-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		built.bin = filepath.Join(dir, "waitsim")
		cmd := exec.Command("go", "build", "-o", built.bin, "./cmd/waitsim")
		cmd.Dir = repoRoot(t)
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build ./cmd/waitsim: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// inModule runs name args in dir and returns its output and exit code.
func inModule(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod"), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return out.String(), code
}

// copyExample copies examples/name to a directory outside the repository
// and points its replace directive at this checkout.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(repoRoot(t), "examples", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == "out" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if out, code := inModule(t, dst, nil, "go", "mod", "edit", "-replace", "github.com/waitsim/waitsim="+repoRoot(t)); code != 0 {
		t.Fatalf("go mod edit: %s", out)
	}
	return dst
}

// casesRun counts the scenario cases a go test -v run passed, failed or
// skipped (subtests two levels under a test).
var caseLine = regexp.MustCompile(`(?m)^\s+--- (PASS|FAIL|SKIP): Test\w+/[^/\s]+/\S+`)

// The slow tool example, copied out: its go test passes and runs its
// scenarios; `waitsim run` there writes its results, and the report shows
// the survival matrix: the TypeScript SDK's profile loses the reply behind
// every proxy and with none, the one that resets on progress keeps it.
func TestExampleSlowtool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs another module")
	}
	t.Parallel() // a module of its own, in a temporary directory
	dir := copyExample(t, "slowtool")
	out, code := inModule(t, dir, nil, "go", "test", "-count=1", "-v", "./...")
	if n := len(caseLine.FindAllString(out, -1)); code != 0 || n < 20 {
		t.Fatalf("go test ./... in the copy: exit %d, %d cases\n%s", code, n, out)
	}
	bin := waitsimBin(t)
	if out, code := inModule(t, dir, nil, bin, "run", "--json"); code != 0 || !strings.Contains(out, "22 passed, 0 failed") {
		t.Fatalf("waitsim run --json: exit %d\n%s", code, out)
	}
	// A run that does not run its table (a file with a problem), and a
	// --check-determinism past its bound, leave the results there were.
	before, err := os.ReadFile(filepath.Join(dir, "out", "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte("# protects: nothing\nname: p\ncallers: [{name: a, startMs: -1}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := inModule(t, dir, nil, bin, "run", "--json", "problem.yaml"); code != 2 {
		t.Errorf("waitsim run --json of a file with a problem: exit %d, want 2\n%s", code, out)
	}
	os.Remove(filepath.Join(dir, "problem.yaml"))
	if out, code := inModule(t, dir, nil, bin, "run", "--json", "--check-determinism", "101"); code != 2 || !strings.Contains(out, "from 1 to 100") {
		t.Errorf("--check-determinism 101: exit %d, want 2 and the bound\n%s", code, out)
	}
	if after, err := os.ReadFile(filepath.Join(dir, "out", "scenarios.json")); err != nil || !bytes.Equal(after, before) {
		t.Errorf("out/scenarios.json changed or went (%v) after runs that did not run the table", err)
	}
	// A failing case's report shows its timeline, also without --json
	// (whose results keep no trace of a passing case).
	bad := filepath.Join(dir, "testdata", "waitsim", "broken.yaml")
	if err := os.WriteFile(bad, []byte("# protects: nothing\nname: broken\ncallers:\n  - {name: go, profile: go-sdk, args: {workMs: 2000}}\nexpect:\n  - {caller: go, resolvesAtMs: 1999}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = inModule(t, dir, nil, bin, "run", "testdata/waitsim/broken.yaml")
	if _, tl, _ := strings.Cut(out, "timeline (virtual ms):\n"); code != 1 || !strings.Contains(tl, " ms  ") || strings.HasPrefix(tl, "re-run:") {
		t.Errorf("waitsim run of a failing case: exit %d, want 1 and its timeline\n%s", code, out)
	}
	os.Remove(bad)
	// A --case that names no case is a usage error that names it (it ran
	// nothing and said "0 passed, 0 failed", exit 1, before).
	if out, code := inModule(t, dir, nil, bin, "run", "--case", "no-such-case"); code != 2 || !strings.Contains(out, "--case no-such-case: no case of the table has this id") {
		t.Errorf("waitsim run --case no-such-case: exit %d, want 2 and the id named\n%s", code, out)
	}
	if out, code := inModule(t, dir, nil, bin, "report", "--out", "out/report"); code != 0 {
		t.Fatalf("waitsim report: exit %d\n%s", code, out)
	}
	// A result with one case cut out of it, cases, index and tally
	// alike, is refused: the file, which still holds the case, is loaded
	// again.
	sj := filepath.Join(dir, "out", "scenarios.json")
	whole, err := os.ReadFile(sj)
	if err != nil {
		t.Fatal(err)
	}
	var cut results.RunResult
	if err := json.Unmarshal(whole, &cut); err != nil {
		t.Fatal(err)
	}
	gone := cut.Cases[len(cut.Cases)-1].ID // of survival.yaml's matrix: its file keeps others
	cut.Cases = cut.Cases[:len(cut.Cases)-1]
	cut.Index = slices.DeleteFunc(cut.Index, func(e results.IndexEntry) bool { return e.ID == gone })
	cut.Count()
	if err := results.WriteRun(sj, cut); err != nil {
		t.Fatal(err)
	}
	if out, code := inModule(t, dir, nil, bin, "report", "--out", "out/report-cut"); code != 2 || !strings.Contains(out, fmt.Sprintf("holds case %q, which the result does not list", gone)) {
		t.Errorf("waitsim report of a result with %s cut out: exit %d, want 2 naming it\n%s", gone, code, out)
	}
	if err := os.WriteFile(sj, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", "report", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "Survival matrix") || !strings.Contains(string(md), "ts-sdk-reset") || !strings.Contains(string(md), "proxy idle timeout") {
		t.Errorf("the report shows no survival matrix of slow_job:\n%s", md)
	}
}

// serveCommand is `waitsim serve args…` in dir, in a process group of its
// own that the test's end kills, whatever became of it, so that no process
// outlives the test; the scenario table's test binary is cached in suitebin
// (one build for the whole test).
func serveCommand(t *testing.T, ctx context.Context, dir, suitebin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, waitsimBin(t), append([]string{"serve"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", suiteBinDirEnv+"="+suitebin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return cmd
}

// slowJob calls the module's own tool, slow_job, for a second of work and
// checks its reply.
func slowJob(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow_job", Arguments: map[string]any{"workMs": 1000}})
	if err != nil || res.IsError {
		t.Fatalf("slow_job: %v %+v", err, res)
	}
	rep, _ := res.StructuredContent.(map[string]any)
	if rep["done"] != true || rep["workedMs"].(float64) < 1000 || time.Since(start) < time.Second {
		t.Errorf("slow_job replied %v after %v; want done, workedMs ≥ 1000, after a second", rep, time.Since(start))
	}
}

// `waitsim serve` in a module of one's own (examples/slowtool, copied out):
// through the door, the test binary of the module's suite serves the
// module's own tool (check.Generic), over stdio and over streamable HTTP,
// and a real client's call (the Go SDK's) gets the tool's reply; the stdio
// client's end and SIGTERM stop it with exit 0. A case id the file does
// not have exits 2 and names the file's cases. Every wait is bounded.
func TestServeUserModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs another module")
	}
	t.Parallel() // a module of its own, in a temporary directory
	dir := copyExample(t, "slowtool")
	cache := t.TempDir()
	file := "testdata/waitsim/lost-behind-ts-sdk.yaml"
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// A bad case id (this first run builds the suite's test binary).
	cmd := serveCommand(t, ctx, dir, cache, file, "--case", "nope")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), `waitsim serve: testdata/waitsim/lost-behind-ts-sdk.yaml has no case "nope"; its cases: lost-behind-ts-sdk`) {
		t.Fatalf("--case nope: exit %d (%v), want 2 naming the file's cases:\n%s", code, err, out)
	}

	t.Run("stdio", func(t *testing.T) {
		cmd := serveCommand(t, ctx, dir, cache, file)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr.String())
		}
		slowJob(t, ctx, cs)
		if err := cs.Close(); err != nil || cmd.ProcessState.ExitCode() != 0 {
			t.Errorf("after the client closed its end: %v, exit %d, want 0\n%s", err, cmd.ProcessState.ExitCode(), stderr.String())
		}
		if !strings.Contains(stderr.String(), "waitsim serve: case lost-behind-ts-sdk over stdio\n") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
	})

	t.Run("http", func(t *testing.T) {
		cmd := serveCommand(t, ctx, dir, cache, file, "--http", "127.0.0.1:0")
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		urls := make(chan string, 1)
		var log bytes.Buffer
		copied := make(chan struct{})
		go func() {
			defer close(copied)
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
				if u, ok := strings.CutPrefix(sc.Text(), serve.ListeningPrefix); ok {
					urls <- strings.Fields(u)[0]
				}
			}
		}()
		var url string
		select {
		case url = <-urls:
		case <-copied:
			t.Fatalf("waitsim serve --http ended before listening: %v\n%s", cmd.Wait(), log.String())
		case <-ctx.Done():
			t.Fatal("waitsim serve --http: no listening line in time")
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		slowJob(t, ctx, cs)
		cs.Close()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waited := make(chan error, 1)
		go func() {
			<-copied
			waited <- cmd.Wait()
		}()
		select {
		case err := <-waited:
			if err != nil {
				t.Errorf("after SIGTERM: %v, want exit 0\n%s", err, log.String())
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("still serving 30 s after SIGTERM:\n%s", log.String())
		}
		if !strings.Contains(log.String(), "(streamable HTTP, SSE responses, event store)") || !strings.Contains(log.String(), "waitsim serve: stopped\n") {
			t.Errorf("the log:\n%s", log.String())
		}
	})
}

// The independent implementation of the contract, copied out: its go test
// runs the whole contract table through the pack (every case passing, or
// skipped with its reason), and `waitsim mutate` runs a campaign on it from
// its own module and reports its score.
func TestExampleWaitagents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs another module")
	}
	t.Parallel() // a module of its own, in a temporary directory
	dir := copyExample(t, "waitagents")
	out, code := inModule(t, dir, nil, "go", "test", "-count=1", "-v", "./...")
	cases := caseLine.FindAllStringSubmatch(out, -1)
	pass := 0
	for _, c := range cases {
		if c[1] == "PASS" {
			pass++
		}
	}
	if code != 0 || pass < 100 {
		t.Fatalf("go test ./... in the copy: exit %d, %d of %d cases passed\n%s", code, pass, len(cases), out)
	}
	bin := waitsimBin(t)
	out, code = inModule(t, dir, nil, bin, "mutate", "--no-cache", "--progress", "off", "--workers", "2")
	score := regexp.MustCompile(`operator (\d+(\.\d)?)% of (\d+)`).FindStringSubmatch(out)
	if (code != 0 && code != 1) || score == nil {
		t.Fatalf("waitsim mutate in the copy: exit %d, no score\n%s", code, out)
	}
	t.Logf("waitsim mutate on the independent implementation: operator score %s%% of %s mutants (exit %d)", score[1], score[3], code)
	if _, err := os.Stat(filepath.Join(dir, "out", "mutation.json")); err != nil {
		t.Errorf("no out/mutation.json: %v", err)
	}
	// Its table skips the cases the implementation does not apply to: the
	// results run --json writes, skips and all, make a report (report
	// refused a "skip" verdict before).
	if out, code := inModule(t, dir, nil, bin, "run", "--json"); code != 0 || !strings.Contains(out, "skipped") {
		t.Fatalf("waitsim run --json: exit %d, no skips\n%s", code, out)
	}
	if out, code := inModule(t, dir, nil, bin, "report", "--out", "out/report"); code != 0 {
		t.Fatalf("waitsim report on results with skips: exit %d\n%s", code, out)
	}
	if md, err := os.ReadFile(filepath.Join(dir, "out", "report", "summary.md")); err != nil || !strings.Contains(string(md), "skipped") {
		t.Errorf("the report does not count the skips (%v):\n%.1500s", err, md)
	}
}

// `waitsim init`, as `go tool waitsim init` in a new module: it writes the
// test, a first scenario and a workflow, and the module's go test passes;
// `go tool waitsim run` then runs the same table; a second init refuses to
// overwrite.
func TestInitNewModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs another module")
	}
	t.Parallel() // a module of its own, in a temporary directory
	dir := filepath.Join(t.TempDir(), "scratch")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mod", "init", "example.com/scratch"},
		{"mod", "edit", "-require", "github.com/waitsim/waitsim@v0.0.0", "-replace", "github.com/waitsim/waitsim=" + repoRoot(t), "-tool", "github.com/waitsim/waitsim/cmd/waitsim"},
		{"mod", "tidy"},
	} {
		if out, code := inModule(t, dir, nil, "go", args...); code != 0 {
			t.Fatalf("go %v: %s", args, out)
		}
	}
	out, code := inModule(t, dir, nil, "go", "tool", "waitsim", "init")
	if code != 0 || !strings.Contains(out, "wrote waitsimtest/waitsim_test.go") {
		t.Fatalf("go tool waitsim init: exit %d\n%s", code, out)
	}
	for _, f := range []string{"waitsimtest/waitsim_test.go", "waitsimtest/doc.go", "waitsimtest/testdata/waitsim/first.yaml", ".github/workflows/waitsim.yml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("init wrote no %s: %v", f, err)
		}
	}
	// out/ is git-ignored, and the local replace of waitsim is pointed out
	// (the workflow's checkout will not have that directory).
	if b, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err != nil || string(b) != "/out/\n" {
		t.Errorf(".gitignore %q (%v), want /out/", b, err)
	}
	if !strings.Contains(out, "added /out/ to .gitignore") || !strings.Contains(out, "note: go.mod replaces github.com/waitsim/waitsim with the directory "+repoRoot(t)) {
		t.Errorf("init does not say it ignored out/, or does not point out the local replace:\n%s", out)
	}
	out, code = inModule(t, dir, nil, "go", "test", "-count=1", "-v", "./...")
	if n := len(caseLine.FindAllString(out, -1)); code != 0 || n != 1 {
		t.Fatalf("go test ./... after init: exit %d, %d cases\n%s", code, n, out)
	}
	if out, code := inModule(t, dir, nil, "go", "tool", "waitsim", "run"); code != 0 || !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("go tool waitsim run: exit %d\n%s", code, out)
	}
	// Its results make a report: the suite's package is below the module's
	// root, so its index names files relative to the package, its hashes
	// relative to the root (a report refused every such result once).
	if out, code := inModule(t, dir, nil, "go", "tool", "waitsim", "run", "--json"); code != 0 {
		t.Fatalf("go tool waitsim run --json: exit %d\n%s", code, out)
	}
	if out, code := inModule(t, dir, nil, "go", "tool", "waitsim", "report"); code != 0 {
		t.Fatalf("go tool waitsim report after run --json: exit %d\n%s", code, out)
	}
	if out, code := inModule(t, dir, nil, "go", "tool", "waitsim", "init"); code != 2 || !strings.Contains(out, "already there") {
		t.Errorf("a second init: exit %d\n%s", code, out)
	}
}
