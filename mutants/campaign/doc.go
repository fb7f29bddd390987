// Package campaign is the ground a mutation campaign stands on: its
// settings and their defaults (Config), the kill suite it runs (ResolveSuite), the tree it holds (LockTree), the paths it may touch (CheckInPackage, Within), the
// output files it checks before it starts (CheckOutputFile,
// CheckOutputDir), the verdict cache it keeps between campaigns (Cache)
// and kill first's memory within one (Kills),
// and what counts as the machine failing rather than a mutant (EnvError,
// NotViable, MachineCause).
//
// Rules:
//   - A verdict is cached only when it is a property of the mutant (killed,
//     survived, not viable); a failure of the environment is an *EnvError,
//     never a verdict, and never cached.
//   - One campaign per tree at a time: LockTree holds out/mutate.lock for
//     the campaign's life; a second campaign is refused (*LockedError, an
//     ErrEnvironment).
//   - A path from a file (catalog, gremlins' output, an overlay) is joined
//     to a directory only through Within, which refuses an escape.
//   - The cache file goes through limits.Read before a parser sees it.
//   - A campaign's defaults live in one place (Config.Defaults),
//     module-aware; the command's flags default to empty.
//   - It starts no process and builds nothing; of mutants/ it imports
//     verdict and mutation alone.
package campaign
