//go:build !unix

package campaign

// lockHandle is nothing where there is no flock(2).
type lockHandle = struct{}

// lock is a no-op where there is no flock(2): campaigns are not kept apart.
func (l *TreeLock) lock() error { return nil }

// Release is a no-op where there is no flock(2).
func (l *TreeLock) Release() {}
