package mutants

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"
)

// processesWithEnv lists the live processes (not zombies) whose
// environment holds the variable kv ("NAME=value").
func processesWithEnv(kv string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+kv+"\x00")) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return out
}

// TestKillLeavesNoGrandchild: a campaign killed with SIGKILL (its process
// group, as a CI runner or a terminal does) leaves no process behind — not
// its children, which the parent-death signal reached, and not their
// children either: the go command's compilers and linker, stood in for
// here by a build that waits on a long sleep of its own. A campaign
// stopped with SIGTERM leaves none either.
func TestKillLeavesNoGrandchild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc (Linux)")
	}
	t.Parallel() // its own copies, temp dirs and process groups
	for _, c := range []struct {
		name  string
		group bool // the signal goes to the campaign's process group, else to the campaign alone
		sig   syscall.Signal
		code  int // the campaign's exit code; -1: killed
	}{
		{"SIGKILL", true, syscall.SIGKILL, -1},
		{"SIGTERM", false, syscall.SIGTERM, verdict.ExitTerminated},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := copyFixture(t)
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "grandchild.pid")
			// The mutant's build starts a grandchild (as go starts link) and waits for it.
			fake := fakeGo(t, `*" test -c "*"-overlay="*`, fmt.Sprintf("sleep 600 &\necho $! > '%s'\nwait", pidFile))
			marker := "WAITSIM_TEST_RUN=" + filepath.Base(dir)
			child, _ := startChild(t, fixtureArgs(root, "--only", "add-subtracts", "--mode", "overlay", "--workers", "1", "--no-cache",
				"--out", filepath.Join(dir, "m.json")), "PATH="+pathWith(fake), marker)
			deadline := time.Now().Add(90 * time.Second)
			var grandchild int
			for grandchild == 0 {
				if time.Now().After(deadline) {
					t.Fatal("no build started within 90 s")
				}
				if b, err := os.ReadFile(pidFile); err == nil {
					grandchild, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				}
				time.Sleep(20 * time.Millisecond)
			}
			if len(processesWithEnv(marker)) < 3 {
				t.Fatalf("want the campaign, its build and the build's child running: %q", processesWithEnv(marker))
			}
			start := time.Now()
			pid := child.Process.Pid
			if c.group {
				pid = -pid
			}
			if err := syscall.Kill(pid, c.sig); err != nil {
				t.Fatal(err)
			}
			err := child.Wait()
			if code := workspace.ExitCode(err); code != c.code {
				t.Errorf("the campaign exited %d after %v, want %d", code, c.sig, c.code)
			}
			for len(processesWithEnv(marker)) > 0 && time.Since(start) < 10*time.Second {
				time.Sleep(20 * time.Millisecond)
			}
			if left := processesWithEnv(marker); len(left) > 0 {
				t.Errorf("%d process(es) of the campaign alive %v after %v (the build's child is %d): %s",
					len(left), time.Since(start).Round(time.Millisecond), c.sig, grandchild, strings.Join(left, "; "))
				for _, p := range left {
					if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			} else {
				t.Logf("every process of the campaign gone %v after %v", time.Since(start).Round(time.Millisecond), c.sig)
			}
		})
	}
}
