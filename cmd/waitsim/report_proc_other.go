//go:build !unix

package main

import "os/exec"

// setGroup is a no-op where there are no process groups.
func setGroup(*exec.Cmd) {}

// killGroup kills cmd's process.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
