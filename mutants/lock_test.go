package mutants

import (
	"bytes"
	"context"
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
	t.Parallel() // its own copy of the fixture
	root := copyFixture(t)
	dir := t.TempDir()
	// The first campaign runs the mutant that never ends (its timeout 60 s) once
	// the sanity mutant is done.
	first, lines := startChild(t, fixtureArgs(root, "--only", "sum-loops", "--timeout-floor", "60s", "--mode", "overlay",
		"--workers", "1", "--progress", "plain", "--no-cache", "--out", filepath.Join(dir, "first.json")))
	if seen, ok := waitLine(lines, "[1/"); !ok {
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
