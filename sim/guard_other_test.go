//go:build !linux

package sim

import "os/exec"

func setParentDeathSignal(*exec.Cmd) {}
