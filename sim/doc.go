// Package sim is waitsim's deterministic virtual-time world for any
// long-running Go MCP tool: a kernel that orders every event on one virtual
// timeline, the transports (in-memory, stdio pipes, streamable HTTP with SSE
// or JSON responses), proxies and simulated MCP callers with client profiles
// (contract §4). A contract pack (packs/waitagents) adds its own services —
// the wait_agents bridge — through World.Tool's Env; sim knows no tool.
//
// A world runs inside a testing/synctest bubble, on the virtual timeline of
// package sim/timeline (its Kernel, gated Clock and Trace; the same-instant
// rules are there). Under ClockGated the tool reads the kernel's gated
// clock; under ClockBubble it reads package time and the kernel follows the
// bubble's clock. Callers' request timeouts are timers of the caller class,
// after the tool's; a proxy's idle check is a late event
// (timeline.Kernel.AtLate), after both. Nothing in a world sleeps on the
// wall clock (sim/wall, for `waitsim serve`, is not sim's).
//
// Rules:
//   - It imports no contract pack and no scenario format: worlds are built
//     from a World value. Of waitsim's packages it imports sim/timeline
//     alone; sim/timeline and sim/wall never import it.
//   - The same World gives the byte-identical trace on every run, at any
//     GOMAXPROCS, with and without -race.
package sim
