//go:build race

package waitagents

// raceBuild: this test binary has the race detector (see determinismRuns).
const raceBuild = true
