package workspace

import (
	"context"
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
