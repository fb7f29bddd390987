package workspace

import (
	"os"
	"sync"
)

// No process of a run outlives it. Every child is started in a process
// group of its own (GroupCommand), so that a timeout or an interrupt kills
// the child with everything it started (the go command's compilers and
// linker); and on Linux each child gets a parent-death signal, so that it
// dies with the run even when the run is killed with SIGKILL. But that
// signal reaches only the children: the go command's own children (link
// under `go test -c`) are orphaned and live on. So the first child a
// process starts is a reaper (startReaper): a copy of the running binary,
// in a process group of its own, that waits for the end of a pipe only the
// run holds open. When the run ends, however it ends, the pipe closes, and
// the reaper kills every process still alive that carries the run's mark
// in its environment (runEnv) — all its descendants, which inherit it —
// then exits.

// Environment variables of the reaper: runEnv marks every process a run
// starts (its value is the run's random token); reaperEnv gives the reaper
// the token it hunts.
const (
	runEnv    = "WAITSIM_RUN"
	reaperEnv = "WAITSIM_REAPER"
	// reaperArg is the reaper's one argument.
	reaperArg = "waitsim-reaper"
)

// reaperOnce starts the reaper once per process; reaperErr is why it could
// not be started.
var (
	reaperOnce sync.Once
	reaperErr  error
	// reaperPipe is the run's end of the pipe the reaper waits on: kept
	// open (and referenced, so that no finalizer closes it) for the life
	// of the process.
	reaperPipe *os.File
)

// startReaper starts this process's reaper, once, where the platform has
// one (Linux), and marks the process's environment (runEnv) so that every
// process started from now on carries the mark. It returns why the reaper
// could not be started, if it could not.
// StartReaper starts this process's reaper once (GroupCommand calls it):
// when the process ends, however it ends, every process it started through
// GroupCommand, and theirs, is killed.
func StartReaper() error {
	reaperOnce.Do(func() { reaperErr = spawnReaper() })
	return reaperErr
}

// A binary that holds this package is the reaper when started as one.
func init() {
	if len(os.Args) == 2 && os.Args[1] == reaperArg {
		if token := os.Getenv(reaperEnv); token != "" {
			reap(token)
			os.Exit(0)
		}
	}
}
