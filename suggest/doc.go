// Package suggest writes the case that would have killed a surviving mutant
// (`waitsim mutate --suggest`, issue 12 item 4). Search draws generated worlds
// (gen.Generate, packs/waitagents/gen), runs each on two builds of the scenario suite — head
// and the mutant, the same world on both — and keeps the first world whose
// observed outcome differs: a reply field, when a call resolves, how many
// reads it made, or an invariant the mutant breaks. It then shrinks that
// world, one simplification at a time, while the difference holds, and
// writes it as a table case: a "# protects: <mutant id>" line, the world, and
// head's observed outcome as its expectations. Before returning it, Search
// runs the case on both builds: head must pass it and the mutant fail it.
//
// Dependencies: suggest → packs/waitagents, packs/waitagents/gen, scenario, results. The builds are run by the caller's
// Runner (the mutation runner), so this package starts no process itself.
//
// Rules:
//   - A suggested case is returned only after head passes it and the
//     mutant fails it.
//   - Worlds come from the generator's fixed seeds: the same mutant gets the
//     same suggestion on every run.
package suggest
