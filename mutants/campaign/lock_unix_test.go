//go:build unix

package campaign

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestLockDeadHolder: a lock whose holder (the pid in the file) is gone,
// but which a process it left behind still holds for a moment, is taken
// once that process lets go; a live holder's is refused at once.
func TestLockDeadHolder(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, filepath.FromSlash(LockFile))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	hold := func(pid int) *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte(strconv.Itoa(pid)+"\n"), 0); err != nil {
			t.Fatal(err)
		}
		return f
	}
	old := lockRetry
	defer func() { lockRetry = old }()

	// The holder is gone; what it left lets go at the first retry.
	left := hold(dead.Process.Pid)
	retries := 0
	lockRetry = func() {
		retries++
		left.Close()
	}
	l, err := LockTree(root)
	if err != nil || retries != 1 {
		t.Fatalf("a gone holder's lock: %v after %d retries; want it taken after 1", err, retries)
	}
	l.Release()

	// A live holder: refused, no retry.
	live := hold(os.Getpid())
	defer live.Close()
	retries = 0
	_, err = LockTree(root)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || retries != 0 {
		t.Fatalf("a live holder's lock: %v after %d retries; want a LockedError at once", err, retries)
	}
}
