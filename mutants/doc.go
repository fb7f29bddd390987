// Package mutants is the mutation gate behind `make mutate`: a semantic
// catalog of named mutants (contract §5) plus gremlins' operator mutants, each run
// against the scenario table through `go test -overlay`, never by editing the tree.
// It is the campaign's runner: baseline, collecting and filtering mutants,
// the workers, what runs hot and what cold, kill first, the generator
// campaign. What it builds and keeps is testbin's (gremlins' runs too),
// what it stands on (Config, the lock, the cache, environment errors)
// campaign's, running a test binary testrun's, what a mutant is made from
// (and which lines a diff touches) mutation's, the verdicts verdict's, the
// suggestions of --suggest suggestions', the command cli's; Main and Run are
// the doors.
//
// Rules:
//   - The tree is never written: mutated files go through -overlay or a
//     schemata build in a private temporary directory.
//   - A verdict is cached only when it is a property of the mutant (killed,
//     survived, not viable); a failure of the environment is an error, never
//     a verdict.
//   - Its defaults live in one place (campaign.Config.Defaults), module-aware.
//   - Every YAML or JSON file it reads (catalog entries, the equivalents
//     file, the gremlins config, shards, the cache, gremlins' output, kept
//     baselines) goes
//     through limits.Read before a parser sees it.
//   - A survivor fails the gate unless the committed accepted file lists it
//     with a reason (the ratchet, verdict/accepted.go); an operator mutant
//     marked //waitsim:equivalent in the source is not run
//     (mutation/equivmark.go).
//   - One campaign per tree at a time (campaign.LockTree); no process it starts
//     outlives it (workspace.GroupCommand).
//   - Its sub-packages never import it: cli gets Run as a function.
//   - The hot runner (hot.go, testrun/hot.go) gives the cold runner's verdicts: a hot
//     process serves a mutant only when nothing it held before the request
//     can differ from a fresh process's; whatever it cannot serve whole (a
//     death, a machine error in its output) is judged by a run of its own.
//     A hot run leaves out only the cases that the schemata binary's check
//     saw never run its mutant's site (testbin/sites.go), and only when
//     that record holds exactly the baseline's cases.
//   - What is kept across campaigns (binaries, gremlins' enumeration,
//     baselines that passed) is keyed by the content of everything it was
//     made from, and never a mutant's verdict.
//   - A mutant's table run and its generator run are parts the workers take
//     in any order (jobs.go); no part reads what the other writes until both
//     are over, and which worker runs a part decides no verdict.
package mutants
