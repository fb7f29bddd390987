//go:build !linux

package workspace

// spawnReaper is a no-op where there is no /proc to find a run's processes
// in: there the process groups and the interrupt handling are all.
func spawnReaper() error { return nil }

// reap is never called where no reaper is spawned.
func reap(string) {}
