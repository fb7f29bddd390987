// Package conformance checks the simulation against real clients on the real
// clock (`make conformance`): for each conformance scenario, real MCP clients
// — the official TypeScript SDK client and the Go SDK client — call
// `waitsim serve` over stdio, streamable HTTP with SSE responses and
// streamable HTTP with JSON responses, and every call is compared with what
// the simulation predicts for the same scenario file: lost or received, every
// reply field exactly (remainingMs, a time, within the tolerance), and the
// resolve time within the tolerance (DefaultToleranceMs says how it was
// measured).
//
// The entry point is Run; its Report is written to out/conformance.json and
// read by the reports. Wall time is the point here, so none of this runs
// under `go test ./...`.
//
// Rules:
//   - Wall time is the point here: nothing of it runs in the deterministic
//     suite; `make conformance` runs it.
//   - Real outcomes are compared with the simulation's prediction for the
//     same case within a stated tolerance, scaled by the process's measured
//     scheduling stalls.
//   - The servers serve the world the simulation predicts for: the case's
//     bridge, roster changes and cap (its pack builds the server), and an
//     event store exactly when the case's transport says eventStore: true
//     (serveArgs).
package conformance
