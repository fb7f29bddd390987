// Package testrun runs a suite's test binary for a mutation campaign and
// says what the run showed (Report): a cold run, one process through
// test2json (Runner.Run, ParseEvents), or a request to a hot process of the
// schemata binary kept up across mutants (Runner.StartHot, HotProc.Send,
// HotReport), how a run leaves tests out (LeaveOut), and what a generator
// failure's output names (BrokenInvariant). The test binary's side of the
// hot protocol is the top-level
// package hot; the messages are results.HotRequest and results.HotReply.
//
// Rules:
//   - A report is what the binary showed, never a verdict: judging it
//     (killed, survived, timed out) is the campaign's.
//   - A run that failed because of the machine (ended by a signal that was
//     not ours, an error of the machine in its output) is a
//     *campaign.EnvError, never a report to judge.
//   - No process it starts outlives the campaign: every child is in its own
//     process group, killed with ctx (workspace.GroupCommand), and the test
//     binary is its own child, not test2json's.
//   - A hot process that is no longer usable (died, answered out of turn,
//     did not answer in time) is reported dead, never asked again.
//   - It imports testbin, campaign and verdict of mutants/, never the root
//     package; it knows nothing of mutants or workers.
package testrun
