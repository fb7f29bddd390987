//go:build !unix

package waitagents

import "time"

// processCPU cannot be read here: the cpu-ms/op metric reads 0.
func processCPU() time.Duration { return 0 }
