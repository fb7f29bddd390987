// Package mutation is what a mutant is made from: the semantic catalog
// (mutants/catalog/, one YAML file a named mutant with its patch), the
// equivalents file and the operator-score thresholds, unified-diff patches
// and their application, gremlins' operator sites and the operator swap
// that makes one, the sanity mutant's bytes (PanicEverywhere), the
// //waitsim:equivalent marks in the source, and the lines changed since a
// git ref (ChangedLines, for --diff).
//
// Rules:
//   - It reads and checks definitions; it builds, runs and judges nothing
//     (the runner in mutants/ does, verdict/ judges). The only commands it
//     starts are git's, read-only, for ChangedLines: the ref is resolved
//     to a commit (workspace.ResolveCommit) before `git diff` sees it.
//   - Every YAML or JSON file it reads (catalog entries, the equivalents
//     file, the gremlins config, gremlins' output) goes through limits.Read
//     before a parser sees it.
//   - A problem in a definition is a usage error (verdict.ErrUsage) naming
//     file:line:column and the field, every problem of a file at once (at
//     most verdict.MaxProblems).
//   - A patch never touches the tree: ApplyPatch returns the mutated bytes.
//   - It imports verdict/ alone of mutants/.
package mutation
