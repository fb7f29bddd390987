package reports

import (
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"
	simtimeline "github.com/waitsim/waitsim/sim/timeline"
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
	rows := Survival(rs)
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

func TestTimelineShowsTheWire(t *testing.T) {
	d := &results.WireDims{CapMs: 30000, Mode: "sse", ProxyMs: 5000, Transport: "sse idle=5000"}
	c := &results.CaseResult{ID: "w", EndMs: 12000,
		Calls: []results.CallSummary{
			{Caller: "A", Index: 1, StartMs: 0, EndMs: 5000, Lost: true, LostBy: "proxy idle timeout (5000 ms)", TimeoutMs: 100000, Wire: d},
			{Caller: "A", Index: 2, StartMs: 5000, EndMs: 12000, TimeoutMs: 95000, Wire: d},
		},
		Trace: []simtimeline.Entry{
			{AtMs: 0, Actor: "wire:A/listen", Text: "GET listen: headers (200) + 6 B (6 B so far)"},
			{AtMs: 5000, Actor: "wire:A", Text: "POST tools/call: proxy cuts it: no byte for 5000 ms"},
			{AtMs: 6000, Actor: "wire:A/listen", Text: "GET listen: request sent"},
			{AtMs: 7000, Actor: "wire:A", Text: "connection dropped"},
			{AtMs: 9000, Actor: "wire:A", Text: "POST tools/call: 191 B (245 B so far)"},
		}}
	tl := buildTimeline(c)
	lane := -1
	for i, l := range tl.Lanes {
		if l.Kind == laneWire && l.Name == "A" {
			lane = i
		}
	}
	if lane < 0 {
		t.Fatalf("no wire lane: %+v", tl.Lanes)
	}
	got := map[string]int{}
	for _, m := range tl.Marks {
		if m.Lane == lane {
			got[m.Class]++
		}
	}
	if got["bytes"] != 2 || got["cut"] != 1 || got["drop"] != 1 || got["reopen"] != 1 || got["retry"] != 1 {
		t.Errorf("wire marks %v, want 2 bytes, a cut, a drop, a reopened stream and a retry", got)
	}
	lost := 0
	for _, s := range tl.Spans {
		if s.Lane == lane && s.Class == "lost" {
			lost++
		}
	}
	if lost != 1 {
		t.Errorf("%d lost POST spans on the wire lane, want 1", lost)
	}
	if svg := timelineSVG(tl); !strings.Contains(svg, `class="lane lane-wire"`) || !strings.Contains(svg, `class="mark drop"`) {
		t.Error("the SVG timeline draws no wire lane with the drop")
	}
}
