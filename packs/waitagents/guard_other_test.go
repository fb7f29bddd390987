//go:build !linux

package waitagents

import "os/exec"

func setParentDeathSignal(*exec.Cmd) {}
