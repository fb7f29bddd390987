// Package conformance checks the simulation against real clients on the real
// clock (`make conformance`): for each plain conformance scenario, real MCP
// clients — the official TypeScript SDK client and the Go SDK client — call
// `waitsim serve` over stdio, streamable HTTP with SSE responses and
// streamable HTTP with JSON responses; a scenario with a transport: runs over
// its own mode with the client its profile names, through real proxies
// (ProxyLegs: nginx with buffering off and on, HAProxy) when it has an idle
// timeout. Every call is compared with what the simulation predicts for the
// same scenario file: lost or received and what ended it (a proxy's 504, a
// cut stream, the client's own timeout, a hang), every reply field exactly
// (remainingMs, a time, within the tolerance), the resolve time within the
// tolerance (DefaultToleranceMs says how it was measured), and the progress
// notifications received.
//
// The entry point is Run; its Report is written to out/conformance.json and
// read by the reports. Wall time is the point here, so none of this runs
// under `go test ./...`.
//
// Rules:
//   - Wall time is the point here: nothing of it runs in the deterministic
//     suite; `make conformance` runs it.
//   - Real outcomes are compared with the simulation's prediction for the
//     same case within a stated tolerance, scaled by the measured
//     scheduling stalls of the runner, the server and the TypeScript client;
//     what the server times may come late by the run's measured start lag
//     (its first call's arrival after the client's start), never early.
//   - No process outlives a run: every server, proxy and client the runner
//     starts is stopped with a bounded wait, and every run has a deadline
//     (HangGraceMs after the last simulated resolve) by which a call still
//     pending is a hang.
//   - The servers serve the world the simulation predicts for: the case's
//     bridge, roster changes and cap (its pack builds the server), and an
//     event store exactly when the case's transport says eventStore: true
//     (serveArgs).
package conformance
