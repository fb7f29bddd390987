// Package waittool is the system under test: the MCP tool orchestration_wait_agents
// (contract §2). It waits, under a per-call cap, until the child agents of a run stop
// being active, then reads their outputs and replies inside a window the caller's
// transport survives.
//
// The package depends only on a clock.Clock (github.com/benbjohnson/clock) and a
// Bridge; it knows nothing of the simulator that tests it.
package waittool
