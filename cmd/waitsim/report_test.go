//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/waitsim/waitsim/workspace"
)

// TestMain lets a test run this test binary as `waitsim report …`: with
// WAITSIM_TEST_REPORT=1 it is reportMain on the arguments.
func TestMain(m *testing.M) {
	if os.Getenv("WAITSIM_TEST_REPORT") == "1" {
		os.Exit(runReport(os.Args[1:]))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir) // waitsimBin's binary
	}
	os.Exit(code)
}

// gitRepo makes a throwaway git repository with one commit and returns it.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
			"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/tiny\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "go.mod")
	git("commit", "-q", "-m", "tiny")
	return dir
}

// TestBaseRefInterruptRemovesWorktree: SIGINT or SIGTERM while the base's
// command runs stops that command, removes the worktree and its temporary
// directory, and exits 130 or 143.
func TestBaseRefInterruptRemovesWorktree(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on windows")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, reportInterrupt}, {syscall.SIGTERM, reportTerm}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			repo := gitRepo(t)
			tmp := t.TempDir()   // TMPDIR of the child: where its worktree goes
			marks := t.TempDir() // the base command's pid
			pidFile := filepath.Join(marks, "pid")
			cmd := exec.Command(exe, "--base-ref", "HEAD", "--mutate-cmd", "",
				"--run-cmd", "echo $$ > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+" && exec sleep 60",
				"--out", filepath.Join(marks, "report"))
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "WAITSIM_TEST_REPORT=1", "TMPDIR="+tmp)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			cmd.WaitDelay = 5 * time.Second // a leaked child may hold stderr open
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid []byte
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if pid, err = os.ReadFile(pidFile); err == nil {
					break
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					t.Fatalf("the base command never started; stderr:\n%s", stderr.String())
				}
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("still running 30 s after %v; stderr:\n%s", tc.sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.want {
				t.Fatalf("exit %v, want %d; stderr:\n%s", err, tc.want, stderr.String())
			}
			out, err := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain").Output()
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(out), "worktree "); n != 1 {
				t.Errorf("git worktree list shows %d worktrees, want 1:\n%s", n, out)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
			var p int
			if _, err := fmt.Sscan(strings.TrimSpace(string(pid)), &p); err == nil && p > 0 {
				if err := syscall.Kill(p, 0); err == nil {
					t.Errorf("the base command (pid %d) still runs", p)
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			}
			if _, err := os.Stat(filepath.Join(marks, "report")); err == nil {
				t.Error("an interrupted run wrote reports")
			}
			if !strings.Contains(stderr.String(), "interrupted by") {
				t.Errorf("stderr does not say it was interrupted:\n%s", stderr.String())
			}
		})
	}
}

// TestReportEmptyScenarios: a scenario result without cases is written as
// "no results" everywhere and exits 2, never 0; the terminal says which
// result is missing.
func TestReportEmptyScenarios(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "scenarios.json")
	commit, tree, err := workspace.TreeState(context.Background(), ".")
	if err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(in, []byte(fmt.Sprintf(`{"version":1,"commit":%q,"tree":%q}`, commit, tree)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	var stdout, stderr strings.Builder
	if code := reportMain([]string{"--scenarios", in, "--commit", "c0ffee", "--out", out}, &stdout, &stderr); code != reportUsage {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, reportUsage, stderr.String())
	}
	if !strings.Contains(stderr.String(), "no cases") {
		t.Errorf("stderr does not say why:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "no mutation results") {
		t.Errorf("stderr does not say the mutation result is missing:\n%s", stderr.String())
	}
	for name, want := range map[string]string{
		"comment.md":  "no scenario results",
		"junit.xml":   `type="no results"`,
		"report.html": "Scenarios: no results",
	} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not say %q:\n%s", name, want, b)
		}
	}
}

// runIn (report --base-ref's run of the commands in the work tree) loses
// no result that was there: when its commands fail to write new results,
// or are interrupted, the files are as they were (before, both were
// removed first and gone).
func TestRunInKeepsResults(t *testing.T) {
	for _, c := range []struct {
		name, runCmd string
		timeout      time.Duration
	}{
		{"writes nothing", "true", time.Minute},
		{"interrupted", "exec sleep 30", 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			sp := filepath.Join(dir, filepath.FromSlash(workspace.ScenarioResults))
			mp := filepath.Join(dir, filepath.FromSlash(workspace.MutationResults))
			if err := os.MkdirAll(filepath.Dir(sp), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{sp, mp} {
				if err := os.WriteFile(p, []byte("before "+filepath.Base(p)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			defer cancel()
			if _, err := runIn(ctx, dir, c.runCmd, "true", "", nil, io.Discard); err == nil {
				t.Fatal("runIn: no error, want one")
			}
			for _, p := range []string{sp, mp} {
				if b, err := os.ReadFile(p); err != nil || string(b) != "before "+filepath.Base(p) {
					t.Errorf("%s: %q, %v; want it as it was", p, b, err)
				}
				if _, err := os.Stat(p + resultsAside); !os.IsNotExist(err) {
					t.Errorf("%s is left behind (%v)", p+resultsAside, err)
				}
			}
		})
	}
}

// TestBaseRefOptionLike: --base-ref follows the one rule for a ref from the
// command line (workspace.ResolveCommit): one that starts with '-' is
// refused, naming the flag, before git sees it, and nothing is written.
func TestBaseRefOptionLike(t *testing.T) {
	out := t.TempDir()
	written := filepath.Join(out, "x")
	var stdout, stderr strings.Builder
	code := reportMain([]string{"--base-ref", "--output=" + written, "--out", out}, &stdout, &stderr)
	if code != reportUsage || !strings.Contains(stderr.String(), "--base-ref") || !strings.Contains(stderr.String(), "never starts with '-'") {
		t.Errorf("exit %d, stderr %q; want %d naming --base-ref", code, stderr.String(), reportUsage)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
}

// TestReportPartialTable: `waitsim run FILE` covers a part of the test's own
// table: the report says how many of its files did not run and is no pass;
// a results file whose list of the table's files was cut to hide that is
// refused (the table's directory is listed again in the work tree).
func TestReportPartialTable(t *testing.T) {
	dir := gitRepo(t)
	for _, f := range []string{"t/a.yaml", "t/b.yaml"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("name: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	commit, tree, err := workspace.TreeState(context.Background(), ".")
	if err != nil {
		t.Skip(err)
	}
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(files string) string {
		in := filepath.Join("out", "scenarios.json")
		data := fmt.Sprintf(`{"version":1,"commit":%q,"tree":%q,"passed":1,"cases":[{"id":"a","file":"t/a.yaml","verdict":"pass"}],"table":{"dir":"t","files":[%s]}}`, commit, tree, files)
		if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return in
	}
	out := filepath.Join(t.TempDir(), "report")
	var stdout, stderr strings.Builder
	if code := reportMain([]string{"--scenarios", write(`"t/a.yaml","t/b.yaml"`), "--out", out}, &stdout, &stderr); code != reportOK {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, reportOK, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	if head := strings.SplitN(string(b), "\n", 3)[1]; !strings.Contains(head, "❌") || !strings.Contains(head, "1 of the table's 2 scenario files did not run") {
		t.Errorf("headline %q: want ❌ and the files that did not run", head)
	}
	stderr.Reset()
	if code := reportMain([]string{"--scenarios", write(`"t/a.yaml"`), "--out", out}, &stdout, &stderr); code != reportUsage {
		t.Fatalf("a cut list of the table's files: exit %d, want %d; stderr:\n%s", code, reportUsage, stderr.String())
	}
	if !strings.Contains(stderr.String(), "field table.files: leaves out t/b.yaml") {
		t.Errorf("stderr does not name the field and the file left out:\n%s", stderr.String())
	}
}

// report --base-ref --target DIR adds mutate's --target to the default
// mutate command (the layout init writes has no code in its kill suite, so
// a plain `waitsim mutate` there is a usage error), quoted for the shell;
// beside a --mutate-cmd of one's own it is refused.
func TestBaseRefTarget(t *testing.T) {
	for _, c := range []struct {
		cmd, target string
		set         bool
		want        string
		err         bool
	}{
		{"go tool waitsim mutate", "", false, "go tool waitsim mutate", false},
		{"go tool waitsim mutate", "./my tool/", false, "go tool waitsim mutate --target './my tool/'", false},
		{"make gate", "./x/", true, "", true},
	} {
		got, err := withTarget(c.cmd, c.set, c.target)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("withTarget(%q, %t, %q) = %q, %v; want %q, error %t", c.cmd, c.set, c.target, got, err, c.want, c.err)
		}
	}
}
