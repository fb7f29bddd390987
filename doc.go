// Package waitsim is the door to waitsim from a Go test: a maintainer of a
// deadline-bounded MCP tool adds one test file to their own module,
//
//	func TestWaitsim(t *testing.T) {
//		waitsim.Run(t, waitsim.Params{Tool: func(s *mcp.Server) { mytool.Register(s) }})
//	}
//
// and `go test` runs every scenario file under testdata/waitsim: each file a
// subtest, each case of it a subtest of that, with the invariants and
// expectations checked and, with Params.Golden, every trace compared with
// its golden file. Their own -race, coverage and -run work as always. The
// tool runs as it is, in virtual time: its time.Sleep and timers are those
// of a testing/synctest bubble.
//
// A contract pack checks more than the generic layer: Params.Pack (e.g.
// packs/waitagents for the orchestration_wait_agents contract) instead of
// Tool.
//
// Every command of waitsim runs a table through this same door: `waitsim
// run` and the mutation runner build the test binary of the package that
// calls Run and hand it a params file (results.Params, named by
// results.ParamsEnv); Run then writes a results file (results.RunResult).
// `waitsim serve` goes through it too: with the params' Serve section, Run
// serves one case of a file to real clients on the real clock instead of
// running a table — the case's server built by the pack (check.Server: the
// user's own tools for Params.Tool), served by package serve over stdio
// (the file descriptors the command passed) or streamable HTTP, until
// SIGINT, SIGTERM or the stdio client's end.
//
// Rules:
//   - Run fails t for a case whose verdict is not pass, for a problem in a
//     scenario file (every problem at once), and for a trace that differs
//     from its golden one; it skips a case that does not apply to the tool.
//   - It reads the scenario files and the params file; it writes only the
//     results file the params name and, with -waitsim.update, golden files.
//   - Serving, it never writes its own stdout (the testing package's): the
//     log goes to stderr, MCP over stdio to the command's descriptors; how
//     serving ended goes to the results file (results.ServeResult, or the
//     file's problems), and anything but a clean stop fails t.
//   - The same scenario gives the byte-identical trace on every run: with
//     Repeat, or -count/-cpu runs in one process, a difference fails the
//     case.
package waitsim
