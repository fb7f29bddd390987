package campaign

import (
	"fmt"
	"path/filepath"

	"github.com/waitsim/waitsim/workspace"
)

// LockFile is where a campaign's lock lives, relative to the module root:
// under out/, beside what campaigns write.
const LockFile = workspace.OutDir + "/mutate.lock"

// TreeLock is the lock a campaign holds on its module tree for as long as
// it runs, so that two campaigns in one tree never run at once (they would
// race for out/mutation.json and the cache, and the last writer would win).
// It is an advisory lock (flock(2) where there is one) on LockFile, which
// holds the holder's process id: the kernel releases it when the holder
// ends, even by SIGKILL, so a killed campaign never leaves the tree locked.
type TreeLock struct {
	path string
	held lockHandle // the platform's handle (lock_unix.go)
	// madeDir is the directory LockTree made for the file (out/ of a fresh
	// clone), removed on Release when it is empty.
	madeDir string
}

// LockedError is LockTree's error when another campaign holds the tree.
type LockedError struct {
	Path string // the lock file
	PID  int    // the holder's process id, 0 when it could not be read
}

func (e *LockedError) Error() string {
	who := "another campaign"
	if e.PID > 0 {
		who = fmt.Sprintf("another campaign (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is running in this tree: it holds %s; one campaign per tree at a time — wait for it to end, or stop it", who, e.Path)
}

// Unwrap makes a LockedError an ErrEnvironment: the tree is busy, which
// says nothing of the code or the configuration.
func (e *LockedError) Unwrap() error { return ErrEnvironment }

// LockTree takes the campaign lock of the module tree at root, making out/
// when it does not exist. When another campaign holds it, the error is a
// *LockedError naming it; any other error says why the lock file could not
// be made. Release gives the lock back.
func LockTree(root string) (*TreeLock, error) {
	l := &TreeLock{path: filepath.Join(root, filepath.FromSlash(LockFile))}
	if err := l.lock(); err != nil {
		return nil, err
	}
	return l, nil
}

// Path is the lock file.
func (l *TreeLock) Path() string { return l.path }
