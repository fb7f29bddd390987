// Package cli is `waitsim mutate` as a command: its flags and their checks
// (every place a campaign writes is checked before it starts), the tree's
// lock held for the campaign, the interrupt (SIGINT, SIGTERM), the
// sub-command merge that joins shard results, the progress lines while a
// campaign runs (Progress), the result file written (WriteResult) and the
// summary printed (Summary), and the exit code.
//
// Rules:
//   - It runs a campaign through the RunFunc it is given (mutants.Run); it
//     never imports the root package mutants, which imports it.
//   - Flags default to empty where a default depends on the module: the
//     defaults live in campaign.Config.Defaults alone.
//   - A failure is reported by its exit code (verdict's Exit constants): a
//     usage error, an environment error (campaign.ErrEnvironment) and a
//     runner error are told apart; an interrupt writes nothing.
//   - The result file is written whole or not at all (campaign.WriteAtomic);
//     a shard result read for merge is recomputed (verdict), never trusted.
package cli
