package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/serve"
	simpkg "github.com/waitsim/waitsim/sim"
)

func simCalls() []results.CallSummary {
	return []results.CallSummary{
		{Caller: "A", Index: 1, EndMs: 30000, Progress: 1, Reply: map[string]any{"ok": true, "done": false, "remainingMs": 10000.0,
			"agents": []any{map[string]any{"sessionId": "c", "state": "running"}}, "outputs": []any{map[string]any{"sessionId": "c", "messages": []any{"x"}}}}},
		{Caller: "B", Index: 1, EndMs: 3000, Lost: true, LostBy: simpkg.LostByTimeout},
	}
}

func realCalls() []Observed {
	return []Observed{
		{Caller: "A", Index: 1, EndMs: 30004.5, Reply: map[string]any{"ok": true, "done": false, "remainingMs": 9996.0,
			"agents": []any{map[string]any{"sessionId": "c", "state": "running"}}, "outputs": []any{map[string]any{"sessionId": "c", "messages": []any{"x"}}}},
			ProgressNotes: []Note{{AtMs: 1000, Progress: 1000, Total: 30000}}},
		{Caller: "B", Index: 1, EndMs: 3001, Lost: true, Cause: CauseTimeout},
	}
}

var goRules = judgeRules{client: ClientGo}

func TestCompareAgrees(t *testing.T) {
	for _, c := range compare(simCalls(), realCalls(), 100, goRules) {
		if len(c.Mismatches) > 0 || c.LostOutputs {
			t.Errorf("%s#%d: %v", c.Caller, c.Index, c.Mismatches)
		}
	}
	if got := compare(simCalls(), realCalls(), 100, goRules)[0].DiffMs; got != 4.5 {
		t.Errorf("DiffMs = %v, want 4.5", got)
	}
}

// Each kind of disagreement is caught and named.
func TestCompareDisagrees(t *testing.T) {
	cases := map[string]struct {
		edit func([]Observed) []Observed
		want string
	}{
		"late": {func(o []Observed) []Observed { o[0].EndMs = 30200; return o }, "off by 200.0 ms"},
		"lost outputs": {func(o []Observed) []Observed {
			o[0].Reply["outputs"] = []any{}
			o[0].Reply["outputsUnavailable"] = true
			return o
		}, "outputsUnavailable: absent in the simulation, real true"},
		"remaining off":    {func(o []Observed) []Observed { o[0].Reply["remainingMs"] = 9800.0; return o }, "remainingMs: simulation 10000, real 9800"},
		"remaining gone":   {func(o []Observed) []Observed { delete(o[0].Reply, "remainingMs"); return o }, "remainingMs: simulation 10000, absent"},
		"agent state":      {func(o []Observed) []Observed { o[0].Reply["done"] = true; return o }, "done: simulation false, real true"},
		"received":         {func(o []Observed) []Observed { o[1].Lost = false; o[1].Reply = map[string]any{"ok": true}; return o }, "lost: simulation true, real false"},
		"progress > total": {func(o []Observed) []Observed { o[0].ProgressNotes[0].Progress = 30002; return o }, "progress 30002 above total 30000"},
		"missing call":     {func(o []Observed) []Observed { return o[:1] }, "the real client made no such call"},
		"extra call":       {func(o []Observed) []Observed { return append(o, Observed{Caller: "A", Index: 2}) }, "a call the simulation does not predict"},
		"error":            {func(o []Observed) []Observed { o[1].Lost, o[1].RPCError = false, "boom"; return o }, "error: simulation false, real true"},
	}
	for name, tc := range cases {
		got := compare(simCalls(), tc.edit(realCalls()), 100, goRules)
		var all []string
		for _, c := range got {
			all = append(all, c.Mismatches...)
		}
		if !strings.Contains(strings.Join(all, "\n"), tc.want) {
			t.Errorf("%s: mismatches %q do not contain %q", name, all, tc.want)
		}
		if name == "lost outputs" && !got[0].LostOutputs {
			t.Errorf("lost outputs not counted")
		}
	}
}

// The tolerance of a case is the floor, or StallFactor × the probe's stall.
func TestJudgeTolerance(t *testing.T) {
	obs := realCalls()
	obs[0].EndMs = 30250
	e := RunEntry{observed: obs}
	judge(&e, simCalls(), 10, 100, goRules)
	if e.Agree || e.ToleranceMs != 100 {
		t.Errorf("250 ms late, stall 10 ms: agree %v, tolerance %v; want a disagreement at 100 ms", e.Agree, e.ToleranceMs)
	}
	e = RunEntry{observed: obs}
	judge(&e, simCalls(), 90, 100, goRules)
	if !e.Agree || e.ToleranceMs != 90*StallFactor {
		t.Errorf("250 ms late, stall 90 ms: agree %v, tolerance %v; want agreement at %d ms", e.Agree, e.ToleranceMs, 90*StallFactor)
	}
	e = RunEntry{observed: obs, serverStallMs: 90}
	judge(&e, simCalls(), 10, 100, goRules)
	if !e.Agree || e.StallMs != 90 {
		t.Errorf("250 ms late, the server's stall 90 ms: agree %v, stall %v; want agreement", e.Agree, e.StallMs)
	}
	e = RunEntry{observed: realCalls(), Error: "TypeScript client: boom"}
	judge(&e, simCalls(), 0, 100, goRules)
	if e.Agree {
		t.Error("a run with an error agrees")
	}
}

func TestSummarize(t *testing.T) {
	rep := &Report{Results: []RunEntry{
		{Client: "go", Transport: "sse", Agree: true, MaxAbsDiffMs: 3, StallMs: 40, Calls: []CallComparison{{}, {}}},
		{Client: "ts", Transport: "stdio", Agree: false, MaxAbsDiffMs: 7, Calls: []CallComparison{{Mismatches: []string{"x"}, LostOutputs: true}}},
	}}
	summarize(rep)
	if rep.Agree || rep.Runs != 2 || rep.Calls != 3 || rep.Disagreements != 1 || rep.LostOutputs != 1 || rep.MaxAbsDiffMs != 7 || rep.MaxStallMs != 40 || len(rep.Profiles) != 2 {
		t.Errorf("summary %+v", rep)
	}
	empty := &Report{}
	summarize(empty)
	if empty.Agree {
		t.Error("a report without runs agrees")
	}
}

func TestServerStallFromLog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "serve.log")
	if err := os.WriteFile(p, []byte("        5 ms  tool:1     start\n"+serve.StallPrefix+"123.4 ms\nwaitsim serve: stopped\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := serverStall(nil, p); got != 123.4 {
		t.Errorf("serverStall = %v, want 123.4", got)
	}
	if got := serverStall(&server{stallMs: 7}, p); got != 7 {
		t.Errorf("an HTTP server's stall: %v, want 7", got)
	}
}
