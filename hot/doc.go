// Package hot is the test binary's side of the mutation runner's hot mode:
// one long-lived process of a mutant schemata binary runs mutant after
// mutant. The runner hands it a params file whose Hot field names two
// pipes; every door that runs a suite (waitsim.Run for the scenario table,
// a pack's generator) registers with Serve, and one loop reads requests
// (results.HotRequest) from the first pipe, turns on the mutant's switch
// (which also puts the mutated package's variables back to their values
// at init), runs the door's handler and writes its reply
// (results.HotReply) to the second pipe. For the schemata binary's check
// (a run of its own), RecordSites and Sites let the door record the
// mutation sites each case runs (results.Params.Sites), through the sites
// flags of the mutated packages.
//
// Rules:
//   - Only results' data types cross the pipes, as JSON values: never a
//     line of text to parse.
//   - A request runs exactly what the same binary run on its own would
//     run, and reports the tests that failed under the names that run
//     would give them; whatever a run leaves behind that a fresh process
//     would not have (a door's own memory of earlier runs, the mutated
//     package's variables) is reset before the next.
//   - A request that panics, hangs or exits ends the process: the runner
//     judges that mutant in a process of its own, never from a half-served
//     request.
package hot
