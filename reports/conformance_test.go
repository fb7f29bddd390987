package reports

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"

	"github.com/waitsim/waitsim/conformance"
)

func confReport(agree bool) *conformance.Report {
	call := conformance.CallComparison{Caller: "A", Index: 1, SimEndMs: 1000, RealEndMs: 1003.5, DiffMs: 3.5}
	if !agree {
		call.Mismatches = []string{"outputsUnavailable: absent in the simulation, real true"}
		call.LostOutputs = true
	}
	r := &conformance.Report{Version: conformance.ReportVersion, Commit: "c0ffee", ToleranceMs: 100, StallFactor: 3, MaxStallMs: 4,
		Agree: agree, Runs: 1, Calls: 1, MaxAbsDiffMs: 3.5,
		Profiles: []conformance.Profile{{Client: "ts", Transport: "sse", Runs: 1, Calls: 1, MaxAbsDiffMs: 3.5}},
		Results: []conformance.RunEntry{{Case: "short", Client: "ts", Transport: "sse", Run: 1, Agree: agree, ToleranceMs: 100,
			MaxAbsDiffMs: 3.5, Calls: []conformance.CallComparison{call}}}}
	if !agree {
		r.Disagreements, r.LostOutputs = 1, 1
		r.Profiles[0].Disagreements, r.Profiles[0].LostOutputs = 1, 1
	}
	return r
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "conformance.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A conformance table whose totals its rows contradict is refused, never shown.
func TestLoadConformanceRefusesInconsistent(t *testing.T) {
	if _, err := LoadConformance(writeJSON(t, confReport(false))); err != nil {
		t.Fatalf("a consistent report: %v", err)
	}
	for name, edit := range map[string]func(*conformance.Report){
		"agree with a mismatch": func(r *conformance.Report) { r.Agree = true },
		"run agrees wrongly":    func(r *conformance.Report) { r.Results[0].Agree = true },
		"call count":            func(r *conformance.Report) { r.Calls = 5 },
		"runs count":            func(r *conformance.Report) { r.Runs = 2 },
		"disagreements":         func(r *conformance.Report) { r.Disagreements = 0 },
		"version":               func(r *conformance.Report) { r.Version = 99 },
		"negative diff":         func(r *conformance.Report) { r.MaxAbsDiffMs = -5 },
		"diff below a row's":    func(r *conformance.Report) { r.MaxAbsDiffMs = 0 },
		"absurd tolerance":      func(r *conformance.Report) { r.ToleranceMs = -1e300 },
	} {
		r := confReport(false)
		edit(r)
		var ie *InputError
		if _, err := LoadConformance(writeJSON(t, r)); !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want an InputError", name, err)
		}
	}
	empty := &conformance.Report{Version: conformance.ReportVersion, Agree: true}
	if _, err := LoadConformance(writeJSON(t, empty)); err == nil {
		t.Error("a report without runs that says agree was accepted")
	}
	// A run with no call compared agrees with nothing: never ✅.
	none := &conformance.Report{Version: conformance.ReportVersion, Commit: "c0ffee", Agree: true, Runs: 1,
		Results: []conformance.RunEntry{{Case: "x", Client: "ts", Agree: true}}}
	if _, err := LoadConformance(writeJSON(t, none)); err != nil {
		t.Fatalf("a run without calls: %v", err)
	}
	if icon, msg := conformanceVerdict(&Run{Commit: "c0ffee", Conformance: none}); icon != "❌" || !strings.Contains(msg, "no call compared") {
		t.Errorf("no call compared: %s %s, want ❌", icon, msg)
	}
}

// The Markdown and HTML show the table and its verdict; a table from another
// commit is marked stale, never a plain pass; run.json leaves it out.
func TestConformanceSection(t *testing.T) {
	r := &Run{Version: RunVersion, Commit: "c0ffee", Scenarios: &results.RunResult{Version: results.ResultVersion}}
	r.Normalize()
	r.Conformance = confReport(false)
	md := RunMarkdown(r, 0)
	for _, want := range []string{"### Simulation vs real", "❌ 1 of 1 calls disagree", "| ts | sse | — | 1 | 1 | 1 | 1 | 3.5 |", "outputsUnavailable: absent in the simulation"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	html := string(HTML(r, nil))
	if !strings.Contains(html, `id="conformance"`) || !strings.Contains(html, "1 of 1 calls disagree") {
		t.Errorf("HTML lacks the conformance section")
	}
	r.Conformance = confReport(true)
	if md := RunMarkdown(r, 0); !strings.Contains(md, "✅ all 1 calls of 1 client runs agree") {
		t.Errorf("agreeing table not shown as agreeing:\n%s", md)
	}
	r.Conformance.Commit = "deadbeef"
	if md := RunMarkdown(r, 0); !strings.Contains(md, "⚠️ all 1 calls") || !strings.Contains(md, "STALE") {
		t.Errorf("a table of another commit is not marked stale:\n%s", md)
	}
	// The same (dirty) commit, another tree: stale too; the same tree: not.
	r.Conformance = confReport(true)
	r.Conformance.Commit, r.Tree, r.Conformance.Tree = r.Commit, "tree-a", "tree-b"
	if md := RunMarkdown(r, 0); !strings.Contains(md, "⚠️ all 1 calls") || !strings.Contains(md, "STALE: measured on tree tree-b") {
		t.Errorf("a table of another tree of the same commit is not marked stale:\n%s", md)
	}
	r.Conformance.Tree = "tree-a"
	if md := RunMarkdown(r, 0); strings.Contains(md, "STALE") {
		t.Errorf("a table of this very tree is marked stale:\n%s", md)
	}
	r.Tree = ""
	r.Conformance = confReport(false)
	r.Conformance.Commit = "deadbeef"
	if md := RunMarkdown(r, 0); !strings.Contains(md, "❌ 1 of 1 calls disagree") || !strings.Contains(md, "STALE") {
		t.Errorf("a stale disagreeing table is not shown as failing and stale:\n%s", md)
	}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "conformance") || strings.Contains(string(b), "toleranceMs") {
		t.Error("run.json carries the conformance table (wall-clock data)")
	}
}

// A proxied run shows its leg: the proxy in the profiles, which proxies
// with their versions, buffering and idle timeouts, how the ties went, and
// per call the leg, what ended the call and the progress counts; the same
// report renders the same bytes.
func TestConformanceProxyLeg(t *testing.T) {
	nginx := conformance.ProxyLeg{Name: "nginx", Proxy: "nginx", Version: "nginx/1.22.1", IdleTimeoutMs: 20000}
	nginx40 := nginx
	nginx40.IdleTimeoutMs = 40000
	ha := conformance.ProxyLeg{Name: "haproxy", Proxy: "haproxy", Version: "HAProxy 2.6.12", IdleTimeoutMs: 20000}
	call := func(simCause, realCause string, tie string, mism ...string) conformance.CallComparison {
		return conformance.CallComparison{Caller: "A", Index: 1, SimEndMs: 20000, RealEndMs: 20010, DiffMs: 10, SimLost: true, RealLost: true,
			SimCause: simCause, RealCause: realCause, SimProgress: 13, Progress: 13, Tie: tie, Mismatches: mism}
	}
	r := &conformance.Report{Version: conformance.ReportVersion, Commit: "c0ffee", ToleranceMs: 150, StallFactor: 4,
		Runs: 3, Calls: 3, Disagreements: 1, MaxAbsDiffMs: 10, TiesClientFirst: 1,
		Profiles: []conformance.Profile{{Client: "go", Transport: "sse", Proxy: "haproxy", Runs: 1, Calls: 1, Disagreements: 1},
			{Client: "go", Transport: "sse", Proxy: "nginx", Runs: 2, Calls: 2}},
		Results: []conformance.RunEntry{
			{Case: "cap", Client: "go", Transport: "sse", Proxy: &ha, Run: 1, ToleranceMs: 150, Calls: []conformance.CallComparison{call("504", "cut", "", "ended by: simulation 504, real cut")}},
			{Case: "cap", Client: "go", Transport: "sse", Proxy: &nginx, Run: 1, Agree: true, ToleranceMs: 150, Calls: []conformance.CallComparison{call("timeout", "timeout", conformance.TieClientFirst)}},
			{Case: "below", Client: "go", Transport: "sse", Proxy: &nginx40, Run: 1, Agree: true, ToleranceMs: 150, Calls: []conformance.CallComparison{call("504", "504", "")}},
		}}
	run := &Run{Version: RunVersion, Commit: "c0ffee", Scenarios: &results.RunResult{Version: results.ResultVersion}}
	run.Normalize()
	run.Conformance = r
	md := RunMarkdown(run, 0)
	for _, want := range []string{"| client | transport | proxy |", "| go | sse | haproxy | 1 | 1 | 1 |", "| go | sse | nginx | 2 | 2 | 0 |",
		"Proxies: haproxy (HAProxy 2.6.12; buffering off; idle timeouts 20000 ms); nginx (nginx/1.22.1; buffering off; idle timeouts 20000, 40000 ms).",
		"Ties of a client's timeout with the proxy's: 1, the client's first in 1",
		"· haproxy 20000 ms, buffering off run 1 · A#1: ended by: simulation 504, real cut"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	html := string(HTML(run, nil))
	for _, want := range []string{"<th>proxy</th>", "<td>nginx 40000 ms, buffering off</td>", "504 / cut", "timeout / timeout (tie: client first)", "<td>13 / 13</td>",
		"Proxies: haproxy (HAProxy 2.6.12;"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if md2, html2 := RunMarkdown(run, 0), string(HTML(run, nil)); md2 != md || html2 != html {
		t.Error("the same report renders differently twice")
	}
	if _, err := LoadConformance(writeJSON(t, r)); err != nil {
		t.Errorf("a consistent proxied report is refused: %v", err)
	}
}
