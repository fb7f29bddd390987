// Package testbin makes and keeps what a mutation campaign runs: the suite's
// test binary built through an overlay (Go.Build, Go.Vet), the schemata
// binary that holds many mutants behind one switch (Schemata, HotReset)
// and marks where each one's change lies, with the record of the sites each
// case ran that its check keeps (Sites),
// the in-process type check that judges a mutant not viable without a
// build (TypeChecker), the hashes of the suite's inputs (HashDirs,
// InputsKey, MutantKey), and what is kept across campaigns: binaries
// (Go.KeptBuild), gremlins' enumeration (Go.Enumerate, through its dry
// run, Go.Gremlins, which also runs gremlins' own campaign), the go command's
// answers on where test2json, the export data and the suite's directories
// are (Go.Test2json, Go.ListDirs; lookup.go), and which mutants run cold
// from the start (Go.ColdHints).
//
// Rules:
//   - The tree is never written: a mutated file goes through -overlay, its
//     copy in the campaign's private temporary directory (Go.OverlayFile).
//   - What is kept across campaigns is keyed by the content of everything
//     it was made from, and never a verdict; a build whose inputs changed
//     while it ran is used once and not kept. A kept answer that names
//     files is read back only while they are there. The one exception to
//     the keys is the cold hints, which decide no verdict (a mutant's
//     cold and hot runs give the same): keyed by the mutant's own text,
//     a stale one costs a cold run.
//   - A site is marked where control must pass before any of its mutant's
//     change runs: a case that never ran it cannot tell the mutant from
//     the original. When in doubt, the function's start.
//   - A build or vet that failed because of the machine is a
//     *campaign.EnvError, never a not-viable verdict.
//   - It runs no test binary and judges no mutant; it knows nothing of the
//     runner (its state comes in a Go); it imports campaign, mutation and
//     verdict of mutants/, never the root package.
package testbin
