package mutants

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"
)

// Fault injection at the process level (issue 11): a catalog entry whose
// paths leave the target package, and a campaign whose process group is
// killed with SIGKILL. Each checks the fixture tree is untouched and no
// waitsim-* directory outlives what it must.

// copyFixture copies testdata/fixture to a fresh directory and returns it.
func copyFixture(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "fixture")
	copyTree(t, "testdata/fixture", dst, nil)
	return dst
}

// copyTree copies the regular files and directories under src to dst,
// leaving out each entry (with all under it) for which skip, when not nil, is
// true of its path relative to src.
func copyTree(t *testing.T, src, dst string, skip func(rel string, d fs.DirEntry) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if skip != nil && rel != "." && skip(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
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
}

// TestPathEscapeRefused: a catalog entry whose file: or patch header
// leaves the target package, or names no existing file of it (a patch that
// creates one, however written), is refused with exit 2 as
// "file:line:column: field: message", naming the catalog file, the line and
// the field, before anything is written: the fixture's files are
// byte-identical, no file appears, no temporary directory is made, no
// result is written.
func TestPathEscapeRefused(t *testing.T) {
	add, err := os.ReadFile("testdata/fixture/catalog/add-subtracts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, field, from, to string }{
		// The reproduction: an absolute path reached through "..".
		{"file-dotdot", ":3:7: file: ", "calc/calc.go", "../../../..ROOT/calc/calc.go"},
		{"file-absolute", ":3:7: file: ", "calc/calc.go", "ROOT/calc/calc.go"},
		{"header-only", ":6:3: patch: ", "b/calc/calc.go", "b/../x/calc/calc.go"},
		{"other-package", ":3:7: file: ", "calc/calc.go", "go.mod"},
		{"no-such-file", ":3:7: file: ", "calc/calc.go", "calc/new.go"},
		// A patch that creates calc/new.go: refused at once (it used to
		// run the campaign and end as patch-no-longer-applies), by its
		// file: and by its header, each on its own.
		{"creates-file", ":5:3: patch: ", "--- a/calc/calc.go", "--- /dev/null"},
		{"creates-file-git", ":5:3: patch: ", "--- a/calc/calc.go", "new file mode 100644\n  --- a/calc/calc.go"},
		{"deletes-file", ":6:3: patch: ", "+++ b/calc/calc.go", "+++ /dev/null"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := copyFixture(t)
			to := strings.ReplaceAll(c.to, "ROOT", root)
			entry := strings.ReplaceAll(string(add), c.from, to)
			if err := os.WriteFile(filepath.Join(root, "catalog", "zz-escape.yaml"), []byte(entry), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, root)
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			out := filepath.Join(t.TempDir(), "m.json")
			var stdout, stderr bytes.Buffer
			code := Command(context.Background(), []string{"--root", root, "--pkg", "./calc/", "--target", "./calc/",
				"--catalog", "catalog", "--config", "gremlins.yaml", "--equivalents", "none.yaml", "--no-operators",
				"--only", "zz-escape", "--no-cache", "--progress", "off", "--out", out}, &stdout, &stderr)
			if code != verdict.ExitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, verdict.ExitUsage, stderr.String())
			}
			if msg := stderr.String(); !strings.Contains(msg, "\n  catalog/zz-escape.yaml"+c.field) {
				t.Errorf("the error does not name the catalog file, line and field as zz-escape.yaml%s…: %s", c.field, msg)
			}
			sameSnapshot(t, before, snapshot(t, root))
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("written to the temp dir: %s", left[0].Name())
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused run wrote its result")
			}
		})
	}
}

// procsUnder lists the processes whose executable lies under dir.
func procsUnder(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(exe, dir+string(filepath.Separator)) {
			if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(b), ") Z ") {
				out = append(out, e.Name()+" "+exe)
			}
		}
	}
	return out
}

// TestKillGroupLeavesNothing kills the process group of a campaign with
// SIGKILL while the test binary of a mutant that never ends runs (its timeout
// is 60 s): every test binary must die with it (the parent-death signal
// reaches every child, not only test2json), and the next run removes the
// directory the dead run left in the temp dir, and only that one.
func TestKillGroupLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign")
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("needs /proc (Linux)")
	}
	root := copyFixture(t)
	before := snapshot(t, root)
	tmp := t.TempDir()
	childTmp := filepath.Join(tmp, "tmp")
	if err := os.Mkdir(childTmp, 0o755); err != nil {
		t.Fatal(err)
	}
	// A directory another, live process owns: never removed.
	live := filepath.Join(childTmp, "waitsim-mutate-live")
	if err := os.Mkdir(live, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := workspace.Own(live); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal([]string{"--root", root, "--pkg", "./calc/", "--target", "./calc/", "--catalog", "catalog",
		"--config", "gremlins.yaml", "--equivalents", "none.yaml", "--no-operators", "--only", "sum-loops",
		"--timeout-floor", "60s", "--workers", "2", "--progress", "plain", "--no-cache", "--out", filepath.Join(tmp, "m.json")})
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(args), "TMPDIR="+childTmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
		}
	}()
	// Wait until the mutant that never ends runs: a test binary of the run's temp
	// dir seen for a whole second (the baseline's and the sanity mutant's end in
	// milliseconds).
	deadline := time.Now().Add(90 * time.Second)
	seen := map[string]time.Time{}
	for busy := false; !busy; {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatal("no busy test binary within 90 s")
		}
		for _, p := range procsUnder(childTmp) {
			if _, ok := seen[p]; !ok {
				seen[p] = time.Now()
			}
			busy = busy || time.Since(seen[p]) > time.Second
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for len(procsUnder(childTmp)) > 0 && time.Since(start) < 10*time.Second {
		time.Sleep(20 * time.Millisecond)
	}
	if left := procsUnder(childTmp); len(left) > 0 {
		t.Errorf("processes outlive their killed parent by %v: %s", time.Since(start).Round(time.Millisecond), strings.Join(left, "; "))
	} else {
		t.Logf("every test binary gone %v after SIGKILL of the group", time.Since(start).Round(time.Millisecond))
	}
	dead, _ := filepath.Glob(filepath.Join(childTmp, "waitsim-mutate-*"))
	if len(dead) != 2 {
		t.Fatalf("want the killed run's directory beside the live one, got %q", dead)
	}
	var size int64
	for _, d := range dead {
		filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				if info, err := e.Info(); err == nil {
					size += info.Size()
				}
			}
			return nil
		})
	}
	t.Logf("the killed run left %d KB in the temp dir", size>>10)
	// The next run cleans up what the dead one left.
	t.Setenv("TMPDIR", childTmp)
	d, err := workspace.MakeRunDir("waitsim-mutate-")
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(d)
	left, _ := filepath.Glob(filepath.Join(childTmp, "waitsim-*"))
	if len(left) != 1 || left[0] != live {
		t.Errorf("after the next run, the temp dir holds %q; want only the live run's %s", left, live)
	}
	after := snapshot(t, root)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
}
