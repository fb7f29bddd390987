package workspace

import (
	"context"
	"errors"
	"os/exec"
	"time"
)

// GroupCommand is exec.CommandContext in a process group of its own (where
// the OS has them): ctx's cancellation kills the whole group — a shell, the go
// command, the compilers and test binaries it started — and Wait gives up 5 s
// after that. The first call starts the process's reaper (startReaper), so
// that nothing the command starts outlives the process, even when the
// process is killed with SIGKILL.
func GroupCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	_ = StartReaper()
	cmd := exec.CommandContext(ctx, name, args...)
	setGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// AttachedCommand is exec.Command for a child that stays in this process's
// process group, as a part of it: it gets the terminal's signals and may
// read the terminal as the process itself would (`waitsim serve` hands its
// stdio to the test binary that serves). It never outlives the process:
// the reaper knows it (StartReaper) and, on Linux, it gets a parent-death
// signal.
func AttachedCommand(name string, args ...string) *exec.Cmd {
	_ = StartReaper()
	cmd := exec.Command(name, args...)
	setAttached(cmd)
	return cmd
}

// ExitCode is the exit code of a finished command's error: 0 for nil, -1 if
// the command did not exit normally (not started, killed by a signal).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
