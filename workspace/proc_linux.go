//go:build linux

package workspace

import "syscall"

// setDeathSignal asks the kernel to kill the child if the runner dies, even
// by SIGKILL, so that no build or test binary outlives an interrupted run.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
