package waitagents

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// callKey is what a call shows that no transport should change: when it
// started and resolved, whether it was lost, its reply, and its bridge work.
func callKey(c results.CallSummary) string {
	b, _ := json.Marshal(struct {
		Caller                 string
		Index                  int
		Start, End             int64
		Lost                   bool
		Reply                  map[string]any
		Lists, Reads, Stranded int
	}{c.Caller, c.Index, c.StartMs, c.EndMs, c.Lost, c.Reply, c.Lists, c.Reads, c.Stranded})
	return string(b)
}

// TestOracleRowsOverEveryMode runs every oracle row of the table (contract §2)
// over each streamable HTTP mode, with nothing between caller and tool, and
// wants the very replies memory gives: when, what, and the bridge work
// behind them — and every expectation and invariant as over memory.
func TestOracleRowsOverEveryMode(t *testing.T) {
	t.Parallel() // after the tests that set GOMAXPROCS, which run alone
	files, err := filepath.Glob("../../scenarios/table/oracle-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no oracle files: %v", err)
	}
	cases, err := loadRef(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Scenario.Transport != nil {
			t.Fatalf("%s: an oracle row names a transport", c.ID)
		}
		mem := Reference().Run(t, &c)
		if mem.Verdict != results.VerdictPass {
			t.Fatalf("%s over memory: %s\n%s", c.ID, mem.Verdict, results.FailureReport(mem))
		}
		for _, m := range sim.Modes[1:] {
			hc := c
			hc.ID = c.ID + "/" + string(m)
			hc.Scenario.Transport = &scenario.TransportSpec{Mode: string(m)}
			got := Reference().Run(t, &hc)
			if got.Verdict != results.VerdictPass {
				t.Errorf("%s: %s\n%s", hc.ID, got.Verdict, results.FailureReport(got))
				continue
			}
			if len(got.Calls) != len(mem.Calls) {
				t.Errorf("%s: %d calls, memory made %d", hc.ID, len(got.Calls), len(mem.Calls))
				continue
			}
			for i := range got.Calls {
				if g, w := callKey(got.Calls[i]), callKey(mem.Calls[i]); g != w {
					t.Errorf("%s: call differs from memory\n got %s\nwant %s", hc.ID, g, w)
				}
			}
		}
	}
}

// TestSweep runs the survival sweep (scenarios/sweep/, the source of the
// reports' survival matrix): every case must keep every invariant.
func TestSweep(t *testing.T) {
	t.Parallel() // after the tests that set GOMAXPROCS, which run alone
	cases, err := loadRef([]string{"../../scenarios/sweep"})
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for i := range cases {
		res := Reference().Run(t, &cases[i])
		if res.Verdict != results.VerdictPass {
			t.Errorf("%s: %s\n%s", res.ID, res.Verdict, results.FailureReport(res))
		}
		for _, c := range res.Calls {
			if c.Lost {
				lost++
			}
		}
	}
	// The sweep exists to tell survivors from losses: it must hold both.
	if lost == 0 || lost == len(cases) {
		t.Errorf("%d of %d sweep cases lost their reply: the sweep no longer separates anything", lost, len(cases))
	}
}
