package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLockTree: the lock file holds its holder's pid; a second taker is
// told who holds it; Release removes the file and the out/ it made, and
// the tree can be locked again.
func TestLockTree(t *testing.T) {
	root := t.TempDir()
	l, err := LockTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(l.Path()); strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("the lock file holds %q, want our pid %d", b, os.Getpid())
	}
	_, err = LockTree(root)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || !errors.Is(err, ErrEnvironment) {
		t.Errorf("a second lock: %v; want a LockedError naming pid %d", err, os.Getpid())
	}
	l.Release()
	if _, err := os.Stat(filepath.Join(root, "out")); err == nil {
		t.Error("Release left the out/ it made")
	}
	l2, err := LockTree(root)
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
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(LockFile))); err == nil {
		t.Error("Release left the lock file")
	}
}
