// Command waitsim runs the scenario table, the mutation gate and the reports.
//
//	waitsim run [--json] [--check-determinism N] [paths…]   the scenario table
//	waitsim mutate [flags]                                   the mutation gate
//	waitsim report [flags]                                   reports (Markdown, JUnit, Stryker, HTML, traces)
//	waitsim serve FILE.yaml [--case ID] [--http ADDR]        a case's server on the real clock for real clients
//	waitsim conformance [flags] [paths…]                     real clients vs the simulation, on the real clock
//	waitsim init [--dir DIR] [--target DIR]                  set a module up to run waitsim
//
// Scenario worlds run inside testing/synctest bubbles, which exist only under
// `go test`; so `waitsim run` builds the test binary of the package whose
// test calls waitsim.Run, hands it a params file and reads the results file
// it writes. `waitsim serve` runs the same binary to serve one case to
// real clients (its pack builds the server), handing it its stdio and
// forwarding SIGINT and SIGTERM to it. Run it from anywhere inside any module (`go tool waitsim` with a
// tool line in go.mod).
//
// Rules:
//   - It builds and runs; it never holds the logic of a check: a table runs
//     through the door (waitsim.Run) in the test binary of the module's own
//     suite, and the command reads the results file it writes.
//   - Exit codes are each command's own and documented in its -h (README:
//     "Reading the result").
//   - It works in any module; what is waitsim's own layout is in workspace.
package main
