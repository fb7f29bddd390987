package reports

import (
	"strings"
	"testing"

	"github.com/waitsim/waitsim/reports/model"
	"github.com/waitsim/waitsim/results"
)

func TestSurvivalCountsCalls(t *testing.T) {
	sse60 := &results.WireDims{CapMs: 90000, Mode: "sse", ProxyMs: 60000, Profile: "ts-sdk", Transport: "sse idle=60000"}
	fixed := &results.WireDims{CapMs: 30000, Mode: "sse", ProxyMs: 60000, Profile: "ts-sdk", Transport: "sse idle=60000"}
	mem := &results.WireDims{CapMs: 30000, Mode: "memory", Transport: "memory"}
	rs := &results.RunResult{Cases: []results.CaseResult{
		{ID: "a", Calls: []results.CallSummary{{Lost: true, LostBy: "proxy idle timeout (60000 ms)", Wire: sse60}}},
		{ID: "b", Calls: []results.CallSummary{{Wire: fixed}, {Wire: fixed}}},
		{ID: "c", Calls: []results.CallSummary{{Wire: mem}, {Lost: true, LostBy: "request timeout", Wire: mem}}},
		{ID: "d", Calls: []results.CallSummary{{Lost: true}}}, // no wire dimensions: not counted
	}}
	rows := model.Survival(rs)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rows), rows)
	}
	want := []struct {
		cap       int64
		mode      string
		surv, los int
		cause     string
	}{{30000, "memory", 1, 1, "request timeout"}, {30000, "sse", 2, 0, ""}, {90000, "sse", 0, 1, "proxy idle timeout"}}
	for i, w := range want {
		r := rows[i]
		if r.CapMs != w.cap || r.Mode != w.mode || r.Survived != w.surv || r.Lost != w.los || (w.cause != "" && r.LostBy[w.cause] != 1) {
			t.Errorf("row %d = %+v, want %+v", i, r, w)
		}
	}
	html := HTML(&Run{Scenarios: rs}, nil)
	if !strings.Contains(string(html), `id="survival"`) || !strings.Contains(string(html), "proxy idle timeout ×1") {
		t.Error("report.html has no survival matrix with the proxy's loss")
	}
	md := RunMarkdown(&Run{Scenarios: rs}, 0)
	if !strings.Contains(md, "| 90000 ms | no | sse | 60000 ms | ts-sdk | lost | 0 | 1 | proxy idle timeout ×1 |") {
		t.Errorf("comment has no survival row for the original report:\n%s", md)
	}
	// Memory alone with the contract's cap and no profiles: no matrix.
	if md := RunMarkdown(&Run{Scenarios: &results.RunResult{Cases: rs.Cases[2:3]}}, 0); strings.Contains(md, "Survival matrix") {
		t.Error("a memory-only run without profiles shows a survival matrix")
	}
}

// A tool of one's own has no cap the results know (CapMs 0): its survival
// matrix shows "—" for the cap, and calls only in memory without profiles
// make no matrix (as the pack's at its 30000 ms cap).
func TestSurvivalToolOfOnesOwn(t *testing.T) {
	mem := &results.WireDims{Mode: "memory", Transport: "memory"}
	if rows := model.Survival(&results.RunResult{Cases: []results.CaseResult{{ID: "a", Calls: []results.CallSummary{{Wire: mem}}}}}); interesting(rows) {
		t.Errorf("memory only, no profile, no cap: a matrix of %+v", rows)
	}
	sse := &results.WireDims{Mode: "sse", ProxyMs: 30000, Profile: "go-sdk", Transport: "sse idle=30000"}
	rows := model.Survival(&results.RunResult{Cases: []results.CaseResult{{ID: "a", Calls: []results.CallSummary{{Wire: sse}}}}})
	if !interesting(rows) || survivalCells(rows[0])[0] != "—" {
		t.Errorf("over SSE with no cap: interesting %t, cells %q; want a matrix whose cap is —", interesting(rows), survivalCells(rows[0]))
	}
}

// The reports of a tool of one's own (every case run by the generic layer)
// carry no text of the wait_agents contract: no bridge, agents, cap or
// reserve in the timelines' note, no bridge requests per case, no
// contract §6 beside the survival matrix; the pack's reports keep them.
func TestReportsOfOnesOwnTool(t *testing.T) {
	sse := &results.WireDims{Mode: "sse", ProxyMs: 30000, Profile: "go-sdk", Transport: "sse idle=30000"}
	for _, pack := range []string{"generic", "wait_agents"} {
		rs := &results.RunResult{Cases: []results.CaseResult{{ID: "a", Pack: pack, Verdict: results.VerdictPass, Calls: []results.CallSummary{{Wire: sse}}}}}
		h := string(HTML(&Run{Scenarios: rs}, nil))
		var md mdBuilder
		survivalMarkdown(&md, rs)
		contract := []string{"bridge's single dispatch slot", "bridge requests", "the 30000 ms cap", "contract §6"}
		for _, s := range contract {
			if in := strings.Contains(h+md.String(), s); in != (pack == "wait_agents") {
				t.Errorf("%s: %q in the reports: %t", pack, s, in)
			}
		}
	}
}
