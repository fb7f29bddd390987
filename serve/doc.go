// Package serve serves an MCP server to real clients on the real clock —
// over stdio, or streamable HTTP (go-sdk's mcp.NewStreamableHTTPHandler) —
// with the protections a server exposed to any peer needs. It is the
// transport half of `waitsim serve`: which server a case gets is its pack's
// (check.Server: the user's tools for the generic pack; the contract pack's
// implementation with the case's bridge, roster changes and cap), built in
// the test binary of the module's suite and handed to Run by the door
// (waitsim.Run in serve mode).
//
// The entry point is Run.
//
// Rules:
//   - It serves any *mcp.Server and knows no tool, pack or scenario format:
//     it imports nothing of waitsim (no packs/, scenario/, sim/).
//   - No request makes it panic: a panic while handling one answers that
//     request with a JSON-RPC error, and a tools/call with null arguments
//     is one without (guard.go).
//   - Over HTTP it validates Origin, expires idle sessions, caps open
//     sessions and bounds reads, with no write timeout (a call's stream is as
//     long as the call) (http.go). Stateful HTTP keeps an event store (at
//     most 10 MiB) unless told not to, so that a client resumes a cut SSE
//     stream with Last-Event-ID.
//   - Its log never blocks it (log.go).
//   - Every default and limit is a constant here (DefaultSessionIdle,
//     DefaultMaxSessions, the HTTP timeouts, LogQueue, LogBytes, LogWriteMax) or the zero value of
//     an Options field.
package serve
