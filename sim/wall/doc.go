// Package wall is timeline.Scheduler on the wall clock: the Scheduler on
// which a pack runs a world's services (the wait_agents bridge model) for
// real clients (`waitsim serve`). It is the one timeline of waitsim that is
// not virtual; no simulated world uses it.
//
// Rules:
//   - Dependencies: wall → sim/timeline (the Scheduler it implements), and
//     nothing else of waitsim's; nothing in sim imports it.
//   - It orders what it runs as the kernel does: one function at a time, in
//     (time, order of scheduling), never inside At or Soon.
package wall
