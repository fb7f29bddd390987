//go:build !unix

package workspace

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

// processAlive is true where liveness cannot be asked cheaply: a run
// directory is then never taken for stale.
func processAlive(int) bool { return true }

// setAttached is a no-op where there is no parent-death signal.
func setAttached(*exec.Cmd) {}
