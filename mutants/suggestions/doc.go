// Package suggestions is `waitsim mutate --suggest` over a finished
// campaign: for every survivor, a search (package suggest) for a generated
// world that tells the mutant's build and head's apart, shrunk and written as
// a table case to <suggestion directory>/<case name>.yaml; for every killed
// mutant, the removal of any suggestion left for it. Run is the door; the
// mutation runner gives it the builds and a way to start processes.
//
// Rules:
//   - Files are written and removed only once every search is done: an
//     interrupted run, or one whose search failed, changes nothing.
//   - A suggestion is never left for a killed mutant; nothing else is
//     written, the source tree never.
//   - Searches that share the machine each get their time (the search's
//     budget, a run's limit) as many times over as run at once.
//   - It imports campaign/, mutation/ and verdict/ of mutants/, never mutants/ itself.
package suggestions
