// Package sim is waitsim's deterministic virtual-time world for any
// long-running Go MCP tool: a kernel that orders every event on one virtual
// timeline, the transports (in-memory, stdio pipes, streamable HTTP with SSE
// or JSON responses), proxies and simulated MCP callers with client profiles
// (contract §4). A contract pack (packs/waitagents) adds its own services —
// the wait_agents bridge — through World.Tool's Env; sim knows no tool.
//
// A world runs inside a testing/synctest bubble. The kernel loop is: wait for
// quiescence (every goroutine of the bubble durably blocked), then take the
// single earliest action — a sim event or a timer — and run it, then wait
// again. Nothing in a world sleeps on the wall clock.
//
// Same-instant rules, held by construction, depend on the tool's clock:
//   - ClockKernel (a tool on an injected clock.Clock): at one virtual instant
//     t, sim events (service completions, roster changes, caller starts) run
//     before the tool's timers due at t, and those before callers' request
//     timeouts; a proxy's idle check (Kernel.AtLate) runs after both.
//   - ClockBubble (a tool on package time): the tool's own timers fire first,
//     then sim events; callers' timeouts run 1µs after t and AtLate checks
//     2µs after, so a reply built at t is still received.
//
// Within each class, actions run in the order they were scheduled.
//
// One part of sim is not virtual: WallScheduler, the Scheduler on the wall
// clock, on which a pack runs a world's services (the wait_agents bridge)
// for real clients (`waitsim serve`). No world uses it.
//
// Rules:
//   - It imports no contract pack and no scenario format: worlds are built
//     from a World value.
//   - The same World gives the byte-identical trace on every run, at any
//     GOMAXPROCS, with and without -race.
package sim
