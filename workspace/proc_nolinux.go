//go:build unix && !linux

package workspace

import "syscall"

// setDeathSignal is a no-op where the kernel has no parent-death signal.
func setDeathSignal(*syscall.SysProcAttr) {}
