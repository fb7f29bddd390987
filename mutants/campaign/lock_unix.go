//go:build unix

package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockHandle is the open lock file, flock(2)ed.
type lockHandle = *os.File

// lock takes l's lock: open (or create) the file, flock it without
// waiting, and check that the file locked is still the one at the path (a
// holder that was releasing may have removed it meanwhile: then try
// again); then write our pid into it. The file is opened close-on-exec, so
// no child of the campaign inherits the lock.
func (l *TreeLock) lock() error {
	dir := filepath.Dir(l.path)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("the campaign lock %s: %v", l.path, err)
		}
		l.madeDir = dir
	}
	start := time.Now()
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("the campaign lock %s: %v", l.path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				b, _ := os.ReadFile(l.path)
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if gone(pid) && time.Since(start) < deadHolderWait {
					lockRetry()
					continue
				}
				return &LockedError{Path: l.path, PID: pid}
			}
			return fmt.Errorf("the campaign lock %s: flock: %v", l.path, err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(l.path)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			f.Close()
			if attempt < 100 {
				continue
			}
			return fmt.Errorf("the campaign lock %s keeps being replaced", l.path)
		}
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		l.held = f
		return nil
	}
}

// deadHolderWait bounds how long lock waits for a lock whose holder (the
// pid in the file) is gone: a child the holder was starting when it was
// killed keeps a copy of the file open between fork and exec, or until
// its parent-death signal ends it, and a busy machine can leave it there
// a while (a race-enabled CI run found the lock still held just after the
// killed holder was reaped). A bound, not a measurement: a live holder is
// reported at once, whatever it is.
const deadHolderWait = 2 * time.Second

// lockRetry is what lock does before it tries a dead holder's lock again
// (a variable for the tests).
var lockRetry = func() { time.Sleep(10 * time.Millisecond) }

// gone reports whether no process has the id pid (0: unknown, not gone).
func gone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// Release gives the lock back: the file is removed (while still locked,
// so that a campaign waiting on it finds it gone and makes its own), then
// closed, which releases the flock. A nil TreeLock is a no-op.
func (l *TreeLock) Release() {
	if l == nil || l.held == nil {
		return
	}
	if held, err := l.held.Stat(); err == nil {
		if now, err := os.Stat(l.path); err == nil && os.SameFile(held, now) {
			_ = os.Remove(l.path)
		}
	}
	_ = l.held.Close()
	l.held = nil
	if l.madeDir != "" {
		_ = os.Remove(l.madeDir) // only when empty: a result written there stays
	}
}
