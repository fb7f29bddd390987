package timeline

import (
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"
	simtimeline "github.com/waitsim/waitsim/sim/timeline"
)

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
	lane, listen := -1, -1
	for i, l := range tl.Lanes {
		if l.Kind == laneWire && l.Name == "A" {
			lane = i
		}
		if l.Kind == laneWire && l.Name == "A/listen" {
			listen = i
		}
	}
	if lane < 0 || listen < 0 {
		t.Fatalf("no wire lane for A's POST or for its GET stream: %+v", tl.Lanes)
	}
	got, gotListen := map[string]int{}, map[string]int{}
	for _, m := range tl.Marks {
		switch m.Lane {
		case lane:
			got[m.Class]++
		case listen:
			gotListen[m.Class]++
		}
	}
	// The GET stream's bytes and reopening are on its own lane, not on the
	// call's POST (where a reader took a GET stream's cut for the call's).
	if got["bytes"] != 1 || got["cut"] != 1 || got["drop"] != 1 || got["reopen"] != 0 || got["retry"] != 1 {
		t.Errorf("POST lane's marks %v, want a byte mark, a cut, a drop and a retry", got)
	}
	if gotListen["bytes"] != 1 || gotListen["reopen"] != 1 || len(gotListen) != 2 {
		t.Errorf("GET stream lane's marks %v, want a byte mark and a reopened stream", gotListen)
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
