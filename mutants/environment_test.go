package mutants

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suitebin"
)

// Faults of the machine a campaign runs on (issue 20 item 3): a verdict is
// a property of the mutant, never of the environment. The faults are made
// by a stand-in for the go command (fakeGo) that fails one kind of call the
// way the real one fails on a full disk, a killed build or a missing
// toolchain, and runs the real go for every other call.

// fakeGo writes a go command to a fresh directory and returns the
// directory, to put first on PATH: when its arguments match the sh case
// pattern, it runs action; otherwise it runs the real go command.
func fakeGo(t *testing.T, pattern, action string) string {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	real, err = filepath.Abs(real)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\ncase \" $* \" in\n%s)\n%s\n;;\nesac\nexec '%s' \"$@\"\n", pattern, action, real)
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pathWith is PATH with dir first.
func pathWith(dir string) string { return dir + string(os.PathListSeparator) + os.Getenv("PATH") }

// fixtureArgs are the flags of a campaign on the fixture at root.
func fixtureArgs(root string, more ...string) []string {
	return append([]string{"--root", root, "--pkg", "./calc/", "--target", "./calc/", "--catalog", "catalog",
		"--config", "gremlins.yaml", "--equivalents", "none.yaml", "--no-operators", "--progress", "off"}, more...)
}

// The go command's failing build of a mutant, as it reads on a full disk.
const noSpaceBuild = `echo '# example.com/calc.test' >&2
echo 'link: flushing $WORK/b001/calc.test: write /tmp/go-build123/b001/calc.test: no space left on device' >&2
exit 1`

// TestEnvironmentFailureNotCached: a build or vet that fails because of
// the machine (no space left, a build killed by a signal, a toolchain that
// cannot be had) is no verdict: the campaign stops with the environment's
// exit code, naming the fault, and nothing is cached; the next campaign on
// a sound machine builds and runs the mutants and gets their true
// verdicts. (It used to record every such mutant "not viable" — the sanity
// mutant included — and serve that from the cache ever after.)
func TestEnvironmentFailureNotCached(t *testing.T) {
	if testing.Short() {
		t.Skip("runs campaigns")
	}
	// Each campaign runs in a child process (runChild), whose PATH and
	// suite binaries' directory are its own: the cases run beside each
	// other and beside the package's other tests.
	t.Parallel()
	for _, c := range []struct {
		name, mode, only, pattern, action, want string
	}{
		{"no-space-build", campaign.ModeSchemata, "add-subtracts", `*" test -c "*"-overlay="*`, noSpaceBuild, "no space left on device"},
		{"killed-build", campaign.ModeOverlay, "add-subtracts", `*" test -c "*"-overlay="*`, "kill -KILL $$", "signal"},
		{"no-toolchain", campaign.ModeOverlay, "add-subtracts", `*" test -c "*"-overlay="*`,
			"echo 'go: downloading go1.99.0 (linux/amd64)' >&2\necho 'go: download go1.99.0 for linux/amd64: toolchain not available' >&2\nexit 1",
			"toolchain not available"},
		// label-changes survives the table, so it is vetted.
		{"no-space-vet", campaign.ModeOverlay, "label-changes", `*" vet -overlay="*`,
			"echo 'go: open /tmp/go-build9/vet.cfg: no space left on device' >&2\nexit 1", "no space left on device"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := copyFixture(t)
			dir := t.TempDir()
			cache, out := filepath.Join(dir, "cache.json"), filepath.Join(dir, "m.json")
			args := fixtureArgs(root, "--mode", c.mode, "--only", c.only, "--cache", cache, "--out", out, "--workers", "1")
			// No binary kept by another campaign may spare the build
			// the fault breaks.
			binDir := suitebin.DirEnv + "=" + t.TempDir()
			code, so, se := runChild(t, args, binDir, "PATH="+pathWith(fakeGo(t, c.pattern, c.action)))
			if code != verdict.ExitEnvironment {
				t.Errorf("exit %d, want %d (environment error); stdout:\n%s\nstderr:\n%s", code, verdict.ExitEnvironment, so, se)
			}
			if msg := se; !strings.Contains(msg, c.want) || !strings.Contains(msg, "environment") {
				t.Errorf("stderr does not call it an environment error naming %q:\n%s", c.want, msg)
			} else {
				t.Logf("%s", msg)
			}
			for key, v := range campaign.LoadCache(cache).Entries {
				t.Errorf("cached after the machine failed: %s %q (%.40s)", key[:12], v.Status, v.Detail)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a campaign stopped by the machine wrote its result")
			}
			// The machine is sound again: the same campaign gets the true verdicts.
			if code, _, se := runChild(t, args, binDir); code != verdict.ExitPass && code != verdict.ExitGateFailed {
				t.Fatalf("on a sound machine: exit %d; stderr:\n%s", code, se)
			}
			res := readResult(t, out)
			want := map[string]string{"sanity": verdict.StatusKilled, "add-subtracts": verdict.StatusKilled, "label-changes": verdict.StatusSurvived}
			for _, m := range res.Mutants {
				if m.Cached {
					t.Errorf("%s: %s served from the cache the faulty run left", m.ID, m.Status)
				}
				if m.Status != want[m.ID] {
					t.Errorf("%s: %s, want %s (detail %.200q)", m.ID, m.Status, want[m.ID], m.Detail)
				}
			}
		})
	}
}

// readResult reads the result file a campaign wrote at path.
func readResult(t *testing.T, path string) verdict.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res verdict.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// childCommand is this test binary run as a campaign (Main with args,
// through childEnv) with env added, in a process group of its own.
func childCommand(args, env []string) *exec.Cmd {
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+string(a)), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// startChild starts a campaign (Main with args) in a child process in a
// process group of its own, with env added; it returns the process and a
// channel that receives each line of its stderr.
func startChild(t *testing.T, args []string, env ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := childCommand(args, env)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1000)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd, lines
}

// runChild runs a campaign (Main with args) in a child process of this
// test binary, in a process group of its own, with env added, and returns
// its exit code, stdout and stderr. A test that gives its campaigns another
// environment (PATH, the suite binaries' directory) does so through it
// rather than t.Setenv, which would change it for the whole test process:
// such a test can then run beside the others (t.Parallel).
func runChild(t *testing.T, args []string, env ...string) (int, string, string) {
	t.Helper()
	cmd := childCommand(args, env)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("the campaign's child process: %v", err)
	}
	return cmd.ProcessState.ExitCode(), so.String(), se.String()
}

// waitLine waits for a line with prefix; false when the stream ended first
// (the child exited). No wall-clock bound of its own: a campaign on a loaded
// machine may take minutes to reach its mutants (a 90 s bound failed at
// load 20), and a child that hangs is ended by go test's -timeout.
func waitLine(lines <-chan string, prefix string) (seen []string, ok bool) {
	for l := range lines {
		seen = append(seen, l)
		if strings.HasPrefix(l, prefix) {
			return seen, true
		}
	}
	return seen, false
}

// TestTest2jsonLookupEndsWithRun: the look-up of test2json, which runs
// beside the campaign's first steps, does not outlive a campaign that ends
// early: Run ends it and waits for it before it returns and removes its
// temporary directory. Here the look-up takes its time, and the campaign
// fails on its listing of the target's export data once the look-up is
// known to be running (its baseline kept by a first campaign, it runs
// nothing that waits for the look-up; the look-ups that campaign kept,
// testbin's, are removed, so that the second asks the go command).
func TestTest2jsonLookupEndsWithRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Parallel()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	if real, err = filepath.Abs(real); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := fmt.Sprintf(`#!/bin/sh
case " $* " in
*" tool -n test2json "*)
	echo $$ > '%[1]s.tmp' && mv '%[1]s.tmp' '%[1]s'
	exec sleep 60
	;;
*" list -export "*)
	while [ ! -f '%[1]s' ]; do sleep 0.01; done
	echo 'go: the listing fails once the look-up runs' >&2
	exit 1
	;;
esac
exec '%[2]s' "$@"
`, pidFile, real)
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// Both campaigns run in child processes (runChild), the second with
	// the stand-in go first on its PATH: the test runs beside the others.
	args := fixtureArgs(copyFixture(t), "--mode", campaign.ModeSchemata, "--only", "^add-subtracts$", "--no-cache",
		"--out", filepath.Join(dir, "m.json"))
	bins := t.TempDir()
	binDir := suitebin.DirEnv + "=" + bins
	if code, _, se := runChild(t, args, binDir); code != verdict.ExitPass && code != verdict.ExitGateFailed {
		t.Fatalf("the first campaign: exit %d\n%s", code, se)
	}
	kept, _ := filepath.Glob(filepath.Join(testbin.KeptDir(bins), "lookup-*"))
	// test2json's at least: the listings are not kept when the copy's
	// files were written within seconds of the question (testbin's
	// writeSlack), as here.
	if len(kept) == 0 {
		t.Fatalf("the first campaign kept no look-up, want test2json's at least")
	}
	for _, p := range kept {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, se := runChild(t, args, binDir, "PATH="+pathWith(dir)); code == verdict.ExitPass || !strings.Contains(se, "the listing fails") {
		t.Fatalf("exit %d, stderr %q; want the listing's failure", code, se)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the look-up of test2json (pid %d) outlived the campaign", pid)
	}
}
