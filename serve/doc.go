// Package serve is `waitsim serve`: the real tool (waittool.Register) on the
// real clock (benbjohnson/clock's clock.New()), with the bridge, roster and
// roster changes of one scenario case, served over MCP to real clients —
// stdio, or streamable HTTP (go-sdk's mcp.NewStreamableHTTPHandler).
//
// The bridge is sim's model of the reference bridge (contract §3), the same
// code the simulation runs, driven here by a wall-clock sim.Scheduler. Scenario
// times (bridge latencies, roster changes, congestion) count from the first
// tools/call the server receives, so a client sees the timeline the
// simulation predicts for a caller starting at 0. A scenario's callers and
// expectations are not used (the clients are real), nor its modelled timer
// lateness (real timers are late by themselves).
//
// The entry point is Run.
//
// Rules:
//   - No request makes it panic: a panic while handling one answers that
//     request with a JSON-RPC error (guard.go).
//   - Over HTTP it validates Origin, expires idle sessions, caps open
//     sessions and bounds reads, with no write timeout (a call's stream is as
//     long as the call) (http.go).
//   - Its log never blocks it (log.go).
package serve
