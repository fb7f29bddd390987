// Package waittool is the system under test: the MCP tool orchestration_wait_agents
// (contract §2). It waits, under a per-call cap, until the child agents of a run stop
// being active, then reads their outputs and replies inside a window the caller's
// transport survives.
//
// The package depends only on a clock.Clock (github.com/benbjohnson/clock) and a
// Bridge; it knows nothing of the simulator that tests it.
//
// Rules:
//   - Time comes only from the clock it is given, and the machine's delay
//     only from its Machine (ExactMachine unless told otherwise).
//   - Every number in it rests on a measurement its comment names, or on
//     the contract's text.
//   - It imports nothing of waitsim: every dependency points toward it.
package waittool
