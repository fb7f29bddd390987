package scenarios

import "embed"

// Table holds the contract's scenario table, the files under table/, so
// that a test of another implementation of the wait_agents contract can run
// it from its own module: waitsim.Params{FS: scenarios.Table, Dir: "table",
// Pack: waitagents.New(…)}.
//
//go:embed table
var Table embed.FS
