package reports

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/results"
	simtimeline "github.com/waitsim/waitsim/sim/timeline"

	"github.com/waitsim/waitsim/sim"
)

// The fixtures in testdata/ (base.json, head.json: two Run files) are made by
// running real sim worlds; regenerate them with
//
//	go test ./reports/ -run TestGenerateFixtures -update
//
// The renderer tests read the committed files, so that a change in sim does
// not silently change what the renderers are tested on.
var update = flag.Bool("update", false, "regenerate testdata/base.json and testdata/head.json from sim worlds")

func running(ids ...string) []waitagents.AgentSpec {
	out := make([]waitagents.AgentSpec, len(ids))
	for i, id := range ids {
		out[i] = waitagents.AgentSpec{ID: id, State: "running", Messages: []string{"working on " + id}}
	}
	return out
}

func lat(ms ...int64) []bridge.Step {
	out := make([]bridge.Step, len(ms))
	for i, m := range ms {
		out[i] = bridge.Step{LatencyMs: m}
	}
	return out
}

func args(timeoutMs, pollMs int) map[string]any {
	return map[string]any{"timeoutMs": timeoutMs, "pollIntervalMs": pollMs}
}

type fixtureCase struct {
	id, file, protects string
	line               int
	world              waitagents.World
}

// fixtureWorlds are the worlds of the fixture; poll is the poll interval of
// the first case (the one base and head differ in).
func fixtureWorlds(poll int) []fixtureCase {
	return []fixtureCase{
		{"slow-list[list=5000]", "scenarios/table/latency.yaml", "a slow list still leaves room for the final read", 3, waitagents.World{
			Bridge: bridge.Script{List: lat(5000)}, Agents: running("c"),
			Callers: []sim.CallerSpec{{Name: "A", Args: args(600000, poll)}}}},
		{"fast-then-stall", "scenarios/table/latency.yaml", "an expired poll keeps the last good list", 17, waitagents.World{
			Bridge: bridge.Script{List: lat(0, 0, 0, 45000)}, Agents: running("c"),
			Callers: []sim.CallerSpec{{Name: "A", Args: args(600000, 250)}}}},
		{"first-list-stalls[40000]", "scenarios/table/latency.yaml", "agentsUnavailable when no list is read in time", 31, waitagents.World{
			Bridge: bridge.Script{List: lat(40000)}, Agents: running("c"),
			Callers: []sim.CallerSpec{{Name: "A", Args: args(600000, 1000)}}}},
		{"all-completed[read=5000]", "scenarios/table/done.yaml", "done replies carry outputs and no remainingMs", 5, waitagents.World{
			Bridge:  bridge.Script{Read: lat(5000)},
			Agents:  []waitagents.AgentSpec{{ID: "a", State: "completed", Messages: []string{"ok"}}, {ID: "b", State: "failed", Messages: []string{"boom"}}},
			Callers: []sim.CallerSpec{{Name: "A", Args: args(600000, 1000)}}}},
		{"recovery[60500]", "scenarios/table/recovery.yaml", "the chain ends because 500 is not a legal timeoutMs", 9, waitagents.World{
			Agents:  running("c"),
			Callers: []sim.CallerSpec{{Name: "A", Follow: true, Args: args(60500, 1000)}}}},
		{"two-callers-congested", "scenarios/table/shared.yaml", "callers sharing one bridge slot, children joining and leaving", 12, waitagents.World{
			Bridge: bridge.Script{List: lat(800), Read: lat(1500), Congestion: []bridge.Hold{{AtMs: 2000, HoldMs: 6000}}},
			Agents: running("w1", "w2"),
			Changes: []waitagents.Change{
				{AtMs: 4000, Op: waitagents.OpJoin, ID: "w3", State: "running"},
				{AtMs: 9000, Op: waitagents.OpState, ID: "w1", State: "completed"},
				{AtMs: 12000, Op: waitagents.OpLeave, ID: "w2"},
				{AtMs: 15000, Op: waitagents.OpState, ID: "w3", State: "completed"},
			},
			Callers: []sim.CallerSpec{
				{Name: "A", Args: args(600000, 1000)},
				{Name: "B", StartMs: 1500, Args: args(20000, 2000)},
			}}},
		{"short-caller-timeout", "scenarios/table/lost.yaml", "a caller whose timeout is shorter than the wait loses the reply", 20, waitagents.World{
			Bridge: bridge.Script{List: lat(300), Read: lat(2000)}, Agents: running("c"),
			Callers: []sim.CallerSpec{{Name: "A", RequestTimeoutMs: 20000, Args: args(600000, 1000)}}}},
	}
}

var reproEsc = regexp.MustCompile(`[\[\]().*+?^$|{}\\]`)

// caseOf runs fc's world and summarizes it as a results.CaseResult.
func caseOf(t *testing.T, fc fixtureCase) results.CaseResult {
	fc.world.Name = fc.id
	res := waitagents.RunWorld(t, fc.world)
	cr := results.CaseResult{ID: fc.id, File: fc.file, Line: fc.line, Protects: fc.protects, Verdict: results.VerdictPass,
		Requests: len(res.Requests), EndMs: res.EndMs, TraceHash: res.Hash, Timeline: res.Timeline,
		Trace: res.Trace, BridgeReqs: waitagents.Records(res.Requests),
		Repro: fmt.Sprintf("go test ./scenarios/ -count=1 -run '^TestTable$/^%s$'", reproEsc.ReplaceAllString(fc.id, `\$0`))}
	if res.Err != "" {
		cr.Verdict, cr.Error = results.VerdictError, res.Err
	}
	for _, e := range res.Events {
		cr.ToolEvents = append(cr.ToolEvents, results.ToolEvent{CallID: e.Call.ID, Kind: string(e.Kind),
			AtMs: e.At.Sub(simtimeline.Epoch).Milliseconds(), Detail: e.Detail, CostMs: e.CostMs,
			StartedMs: e.Call.StartedAt.Sub(simtimeline.Epoch).Milliseconds(), DeadlineMs: e.Call.Deadline.Sub(simtimeline.Epoch).Milliseconds()})
	}
	for _, c := range res.Calls {
		cs := results.CallSummary{Caller: c.Caller, Index: c.Index, CallID: c.CallID, StartMs: c.StartMs, EndMs: c.EndMs,
			Lost: c.Lost, IsError: c.IsError, Reply: c.Raw}
		if v, ok := argInt(c.Args["timeoutMs"]); ok {
			cs.TimeoutMs = v
		}
		for _, r := range res.Requests {
			if r.CallID == c.CallID && c.CallID != 0 {
				switch r.Op {
				case "list":
					cs.Lists++
				case "read":
					cs.Reads++
				}
			}
		}
		cr.Calls = append(cr.Calls, cs)
	}
	return cr
}

func tally(s *results.RunResult) {
	s.Passed, s.Failed, s.Errors = 0, 0, 0
	for _, c := range s.Cases {
		switch c.Verdict {
		case results.VerdictPass:
			s.Passed++
		case results.VerdictFail:
			s.Failed++
		default:
			s.Errors++
		}
	}
}

// fixtureDiff builds a one-line unified diff of file at the first line
// matching old, replacing old by repl.
func fixtureDiff(t *testing.T, file, old, repl string) (string, int) {
	src, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	for i, ln := range lines {
		if strings.Contains(ln, old) {
			from := max(0, i-2)
			to := min(len(lines), i+3)
			var b strings.Builder
			fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n", file, file, from+1, to-from, from+1, to-from)
			for j := from; j < to; j++ {
				if j == i {
					fmt.Fprintf(&b, "-%s\n+%s\n", ln, strings.Replace(ln, old, repl, 1))
				} else {
					fmt.Fprintf(&b, " %s\n", lines[j])
				}
			}
			return b.String(), i + 1
		}
	}
	t.Fatalf("%s: no line holds %q", file, old)
	return "", 0
}

func fixtureMutation(t *testing.T, head bool) *verdict.Result {
	const tool = "waittool/tool.go"
	d1, l1 := fixtureDiff(t, tool, "capped := min(in.TimeoutMs, CallCapMs)", "capped := in.TimeoutMs")
	d2, l2 := fixtureDiff(t, tool, "c.now().Add(2*c.cost).Before(deadline)", "c.now().Before(deadline)")
	d3, l3 := fixtureDiff(t, tool, "remaining >= MinTimeoutMs", "remaining > 0")
	d4, l4 := fixtureDiff(t, tool, "if d > c.cost {", "if d >= c.cost {")
	d5, l5 := fixtureDiff(t, tool, "min(poll, deadline.Sub(c.now())-2*c.cost)", "min(poll, deadline.Sub(c.now()))")
	ms := []verdict.MutantResult{
		{ID: "no-cap", Source: verdict.SourceCatalog, Intent: "no cap: one call waits as long as timeoutMs asks", File: tool, Line: l1,
			Status: verdict.StatusKilled, KilledBy: []string{"slow-list[list=5000]", "recovery[60500]"}, Diff: d1},
		{ID: "no-read-reserve", Source: verdict.SourceCatalog, Intent: "no read reserve: poll to the deadline", File: tool, Line: l2,
			Status: verdict.StatusKilled, KilledBy: []string{"fast-then-stall"}, Diff: d2},
		{ID: "remaining-below-minimum", Source: verdict.SourceCatalog, Intent: "remainingMs below the schema minimum", File: tool, Line: l3,
			Status: verdict.StatusKilled, KilledBy: []string{"recovery[60500]"}, Diff: d3},
		{ID: "unclamped-last-sleep", Source: verdict.SourceCatalog, Intent: "last sleep runs to the deadline instead of deadline − 2·cost", File: tool, Line: l5,
			Status: verdict.StatusKilled, KilledBy: []string{"fast-then-stall"}, Diff: d5},
		{ID: fmt.Sprintf("gremlins:%s:%d:7:CONDITIONALS_BOUNDARY", tool, l4), Source: verdict.SourceGremlins, Intent: "conditionals boundary", File: tool, Line: l4,
			Status: verdict.StatusEquivalent, Diff: d4, Detail: "a read as long as the longest so far leaves the cost unchanged"},
		{ID: "sanity", Source: verdict.SourceSanity, Intent: "the mutant that breaks everything", File: tool, Line: l1,
			Status: verdict.StatusKilled, KilledBy: []string{"slow-list[list=5000]"}, Diff: d1},
		{ID: "gremlins:waittool/budget.go:20:9:ARITHMETIC_BASE", Source: verdict.SourceGremlins, Intent: "arithmetic base", File: "waittool/budget.go", Line: 20,
			Status: verdict.StatusNotViable, Detail: "waittool/budget.go:20:9: invalid operation: mismatched types"},
	}
	for _, g := range []struct {
		old, repl, typ string
		col            int
	}{{"remaining >= MinTimeoutMs", "remaining > MinTimeoutMs", "CONDITIONALS_BOUNDARY", 41},
		{"capped < in.TimeoutMs", "capped <= in.TimeoutMs", "CONDITIONALS_BOUNDARY", 26}} {
		d, l := fixtureDiff(t, tool, g.old, g.repl)
		ms = append(ms, verdict.MutantResult{ID: fmt.Sprintf("gremlins:%s:%d:%d:%s", tool, l, g.col, g.typ), Source: verdict.SourceGremlins,
			Intent: strings.ToLower(strings.ReplaceAll(g.typ, "_", " ")), File: tool, Line: l, Status: verdict.StatusKilled,
			KilledBy: []string{"recovery[60500]"}, Diff: d})
	}
	if head {
		// Head: the reserve mutant now survives, a boundary mutant times out.
		ms[1].Status, ms[1].KilledBy = verdict.StatusSurvived, nil
		ms = append(ms, verdict.MutantResult{ID: fmt.Sprintf("gremlins:%s:%d:10:CONDITIONALS_NEGATION", tool, l2), Source: verdict.SourceGremlins,
			Intent: "conditionals negation", File: tool, Line: l2, Status: verdict.StatusTimedOut, Diff: d2, Detail: "test binary ran past 30s"})
	}
	// Counts, scores, gate and exit code are what the mutants give: a
	// report refuses a result that disagrees with its own mutant list.
	r := &verdict.Result{Version: verdict.ResultVersion, Commit: "", Mutants: ms, Threshold: 80}
	verdict.Evaluate(r)
	return r
}

func TestGenerateFixtures(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/base.json and testdata/head.json")
	}
	for _, side := range []string{"base", "head"} {
		poll := 250
		if side == "base" {
			poll = 500
		}
		s := &results.RunResult{Version: results.ResultVersion}
		for _, fc := range fixtureWorlds(poll) {
			if side == "base" && fc.id == "short-caller-timeout" {
				continue // added in head
			}
			s.Cases = append(s.Cases, caseOf(t, fc))
		}
		if side == "base" {
			s.Cases = append(s.Cases, caseOf(t, fixtureCase{"instant-bridge", "scenarios/table/latency.yaml", "31 lists at poll 1000", 40, waitagents.World{
				Agents: running("c"), Callers: []sim.CallerSpec{{Name: "A", Args: args(600000, 1000)}}}}))
		}
		if side == "head" {
			// Head breaks two cases: an expectation and an invariant.
			for i := range s.Cases {
				switch s.Cases[i].ID {
				case "fast-then-stall":
					s.Cases[i].Verdict = results.VerdictFail
					s.Cases[i].Failures = []string{"call A#1: outputsUnavailable: want true, got absent"}
				case "short-caller-timeout":
					s.Cases[i].Verdict = results.VerdictFail
					s.Cases[i].Violation = []results.Violation{{Invariant: "reply-survives-caller", Message: "call A#1 resolved at 20000 ms, after the caller's 20000 ms timeout: reply LOST"}}
				}
			}
		}
		tally(s)
		commit := "1111111111111111111111111111111111111111"
		if side == "head" {
			commit = "2222222222222222222222222222222222222222"
		}
		r := &Run{Version: RunVersion, Commit: commit, Seeds: map[string]int64{"matrix": 7}, Scenarios: s, Mutation: fixtureMutation(t, side == "head")}
		r.Normalize()
		b, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", side+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// argInt reads a call argument as an integer: an int as the fixtures write
// it, or a JSON number.
func argInt(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		return int64(n), true
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}
