package mutants

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
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

// childEnv, when set, makes the test binary run mutants.Main with the
// JSON-encoded arguments it holds instead of the tests: the subprocess of
// TestInterrupt.
const childEnv = "WAITSIM_MUTANTS_CHILD_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(childEnv); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(99)
		}
		os.Exit(Main(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// snapshot hashes every file of the tree at root but .git and out/, plus
// `git status --porcelain`.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (rel == ".git" || rel == "out") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			snap[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "status", "--porcelain").Output()
	if err == nil {
		snap["git status --porcelain"] = string(out)
	}
	return snap
}

// TestInterrupt starts a real campaign on this module as a subprocess,
// interrupts it mid-flight (SIGINT, then SIGTERM in a second run) once
// mutants are running, and checks the exit code, that every file of the
// tree (go.mod and go.sum included) and `git status` are byte-identical,
// and that no temporary directory is left behind.
// sameSnapshot reports every file of before that changed and every file
// that appeared since (snapshots of the same root).
func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
}

func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, verdict.ExitInterrupted}, {syscall.SIGTERM, verdict.ExitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			before := snapshot(t, root)
			gomod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
			gosum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
			tmp := t.TempDir()
			childTmp := filepath.Join(tmp, "tmp")
			if err := os.Mkdir(childTmp, 0o755); err != nil {
				t.Fatal(err)
			}
			args, _ := json.Marshal([]string{"--root", root, "--pkg", "./waittool/", "--no-operators", "--mode", "overlay",
				"--workers", "2", "--progress", "plain", "--out", filepath.Join(tmp, "m.json"), "--cache", filepath.Join(tmp, "c.json")})
			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(os.Environ(), childEnv+"="+string(args), "TMPDIR="+childTmp)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Mid-flight: once the first mutant finished, others are building.
			sc := bufio.NewScanner(stderr)
			var seen []string
			for sc.Scan() {
				seen = append(seen, sc.Text())
				if strings.HasPrefix(sc.Text(), "[2/") {
					break
				}
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			go func() {
				for sc.Scan() {
				}
			}()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("the run did not stop after %v; output so far:\n%s", c.sig, strings.Join(seen, "\n"))
			}
			if code := workspace.ExitCode(err); code != c.code {
				t.Fatalf("exit %d after %v, want %d; output:\n%s", code, c.sig, c.code, strings.Join(seen, "\n"))
			}
			sameSnapshot(t, before, snapshot(t, root))
			if b, _ := os.ReadFile(filepath.Join(root, "go.mod")); string(b) != string(gomod) {
				t.Error("go.mod changed")
			}
			if b, _ := os.ReadFile(filepath.Join(root, "go.sum")); string(b) != string(gosum) {
				t.Error("go.sum changed")
			}
			left, _ := os.ReadDir(childTmp)
			for _, e := range left {
				t.Errorf("left behind in TMPDIR: %s", e.Name())
			}
			if _, err := os.Stat(filepath.Join(tmp, "m.json")); err == nil {
				t.Error("an interrupted run wrote its result")
			}
		})
	}
}
