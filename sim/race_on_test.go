//go:build race

package sim

// raceBuild: this test binary has the race detector (see determinismRuns).
const raceBuild = true
