package mutants

import (
	"github.com/waitsim/waitsim/mutants/campaign"

	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestOneCampaignPerTree: while a campaign runs in a tree, a second one
// in the same tree stops at once (exit 6, naming the first one's process
// id) instead of racing it for out/ (last writer wins); once the first is
// gone, even killed with SIGKILL, the tree is free again.
func TestOneCampaignPerTree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs campaigns")
	}
	root := copyFixture(t)
	dir := t.TempDir()
	// The first campaign runs the busy loop (its timeout 60 s) once the
	// sanity mutant is done.
	first, lines := startChild(t, fixtureArgs(root, "--only", "sum-loops", "--timeout-floor", "60s", "--mode", "overlay",
		"--workers", "1", "--progress", "plain", "--no-cache", "--out", filepath.Join(dir, "first.json")))
	if seen, ok := waitLine(lines, "[1/", 90*time.Second); !ok {
		t.Fatalf("the first campaign did not get to its mutants:\n%s", strings.Join(seen, "\n"))
	}
	second := fixtureArgs(root, "--only", "add-subtracts", "--workers", "1", "--no-cache", "--out", filepath.Join(dir, "second.json"))
	var so, se bytes.Buffer
	start := time.Now()
	code := Command(context.Background(), second, &so, &se)
	if code != verdict.ExitEnvironment || !strings.Contains(se.String(), "pid "+strconv.Itoa(first.Process.Pid)) {
		t.Errorf("a second campaign in the tree: exit %d after %v, stderr %q; want %d naming the first one's pid %d",
			code, time.Since(start).Round(time.Millisecond), se.String(), verdict.ExitEnvironment, first.Process.Pid)
	} else {
		t.Logf("%s", se.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "second.json")); err == nil {
		t.Error("the second campaign wrote its result beside the first one's run")
	}
	// SIGKILL leaves no chance to clean up: the lock must still be free.
	if err := syscall.Kill(-first.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	so.Reset()
	se.Reset()
	if code := Command(context.Background(), second, &so, &se); code != verdict.ExitPass {
		t.Errorf("after the first campaign was killed: exit %d, stderr %q; want %d", code, se.String(), verdict.ExitPass)
	}
}

// TestLockTree: the lock file holds its holder's pid; a second taker is
// told who holds it; Release removes the file and the out/ it made, and
// the tree can be locked again.
func TestLockTree(t *testing.T) {
	root := t.TempDir()
	l, err := campaign.LockTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(l.Path()); strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("the lock file holds %q, want our pid %d", b, os.Getpid())
	}
	_, err = campaign.LockTree(root)
	var le *campaign.LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || !errors.Is(err, campaign.ErrEnvironment) {
		t.Errorf("a second lock: %v; want a campaign.LockedError naming pid %d", err, os.Getpid())
	}
	l.Release()
	if _, err := os.Stat(filepath.Join(root, "out")); err == nil {
		t.Error("Release left the out/ it made")
	}
	l2, err := campaign.LockTree(root)
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "out", "mutation.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	l2.Release()
	if _, err := os.Stat(filepath.Join(root, "out", "mutation.json")); err != nil {
		t.Errorf("Release removed more than the lock: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(campaign.LockFile))); err == nil {
		t.Error("Release left the lock file")
	}
}
