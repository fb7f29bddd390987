// Package gen is the wait_agents world generator: Generate draws a random,
// valid scenario of the contract (a bridge script, a roster with changes,
// callers, transports, late timers, a cap) from a rapid.T, and Check runs
// seeded draws through a contract pack (waitagents.Pack), shrinking a
// failure to a minimal scenario file (`TestGenerated`, `make fuzz`), or, in
// a hot runner's process, serving the kill suite's generator requests.
//
// Rules:
//   - Dependencies: gen → scenario, results, sim, hot; it does not import
//     packs/waitagents (Check takes it as a Runner), and nothing in the
//     pack imports gen.
//   - Every draw is a scenario the loader takes as it is: valid, within
//     the loader's MaxFileBytes, and the same after a YAML round trip.
//   - The same seed draws the same worlds; new draws are added last, so the
//     draws before them keep their values.
//   - As a mutant's kill suite it runs rapid.Check's own worlds (checkSeed),
//     the worlds that killed other mutants first: their order decides which
//     counterexample is met first, never whether one is.
package gen
