//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// setGroup puts cmd in a process group of its own, so that an interrupt of
// `waitsim report --base-ref` stops the shell, the go command and everything
// they started.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills cmd's whole process group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
