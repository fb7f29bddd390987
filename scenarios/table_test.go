// Package scenarios_test is waitsim's own scenario table, run through the
// door a maintainer uses (waitsim.Run): the reference tool under the
// wait_agents contract pack, the files under table/, their golden traces
// under golden/.
package scenarios_test

import (
	"testing"

	"github.com/waitsim/waitsim"
	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/packs/waitagents/gen"
)

// TestTable runs the scenario table: every case's expectations, the generic
// and the contract's invariants, the reference model, and (under plain go
// test) its golden trace.
func TestTable(t *testing.T) {
	waitsim.Run(t, waitsim.Params{Dir: "table", Pack: waitagents.Reference(), Golden: "golden"})
}

// TestGenerated checks seeded random worlds against every invariant; a
// failure is shrunk to a minimal world written under out/generated. By
// default 40 worlds from a fixed seed, so the suite stays deterministic;
// `make fuzz` passes a budget and a random seed (-rapid.checks,
// -rapid.seed).
func TestGenerated(t *testing.T) {
	gen.Check(t, waitagents.Reference(), gen.Options{Out: "../out/generated"})
}
