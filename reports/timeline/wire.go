package timeline

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/waitsim/waitsim/results"
)

// laneWire is a caller's wire over streamable HTTP (contract §6): its tool
// call's stream, the bytes sent on each stream, the proxy's cut, the drop,
// a stream reopened or resumed, and a retry.
const laneWire = "wire"

var reBytes = regexp.MustCompile(`^(\S+ \S+): (?:headers \((\d+)\) \+ )?(\d+) B \((\d+) B so far\)$`)

// WireCSS styles the wire lane's marks.
const WireCSS = `.mark.bytes circle{fill:#1a7f37}.mark.cut circle,.mark.drop circle{fill:#cf222e}.mark.cut circle{r:4}.mark.drop circle{r:5}.mark.reopen circle{fill:#8250df}.mark.retry circle{fill:#bc4c00;r:4}
`

// addWireLanes adds one lane per caller whose calls went over streamable
// HTTP, drawn from the calls and the trace's wire entries (sim/transport.go).
func addWireLanes(tl *timeline, c *results.CaseResult, extend func(int64)) {
	lanes := map[string]int{}
	for _, cs := range c.Calls {
		if cs.Wire == nil || cs.Wire.Mode == "memory" {
			continue
		}
		if _, ok := lanes[cs.Caller]; !ok {
			lanes[cs.Caller] = len(tl.Lanes)
			tl.Lanes = append(tl.Lanes, tlLane{Kind: laneWire, Name: cs.Caller, Label: "wire " + cs.Caller + " · " + cs.Wire.Mode})
		}
	}
	if len(lanes) == 0 {
		return
	}
	prevLost := map[string]bool{}
	for _, cs := range c.Calls {
		l, ok := lanes[cs.Caller]
		if !ok {
			continue
		}
		sp := tlSpan{Lane: l, StartMs: cs.StartMs, EndMs: cs.EndMs, Class: "call", Label: fmt.Sprintf("POST call %d", cs.Index),
			Title: fmt.Sprintf("%s call %d's POST: %d → %d ms", cs.Caller, cs.Index, cs.StartMs, cs.EndMs)}
		if cs.Lost && cs.LostBy != "request timeout" {
			sp.Class, sp.Title = "lost", sp.Title+": lost by "+cs.LostBy
		}
		tl.Spans = append(tl.Spans, sp)
		if prevLost[cs.Caller] {
			tl.Marks = append(tl.Marks, tlMark{Lane: l, AtMs: cs.StartMs, Class: "retry", Label: fmt.Sprintf("retry: call %d, timeoutMs %d", cs.Index, cs.TimeoutMs)})
		}
		prevLost[cs.Caller] = cs.Lost && cs.LostBy != "" && cs.LostBy != "request timeout"
		extend(cs.EndMs)
	}
	for _, e := range c.Trace {
		rest, ok := strings.CutPrefix(e.Actor, "wire:")
		if !ok {
			continue
		}
		name, stream, _ := strings.Cut(rest, "/")
		l, ok := lanes[name]
		if !ok {
			continue
		}
		if stream != "" {
			// Another stream of the caller's session (the standalone GET
			// stream, "listen"): a lane of its own under the caller's, so
			// that its cuts and bytes are not drawn on the call's POST.
			key := name + "/" + stream
			if sl, ok := lanes[key]; ok {
				l = sl
			} else {
				l = len(tl.Lanes)
				lanes[key] = l
				tl.Lanes = append(tl.Lanes, tlLane{Kind: laneWire, Name: key, Label: "wire " + name + " · GET " + stream})
			}
		}
		mark := func(class, label string) {
			tl.Marks = append(tl.Marks, tlMark{Lane: l, AtMs: e.AtMs, Class: class, Label: label})
		}
		switch t := e.Text; {
		case t == "connection dropped":
			mark("drop", "connection dropped")
		case strings.Contains(t, "proxy cuts it"):
			mark("cut", t)
		case strings.Contains(t, "after the write deadline"):
			mark("cut", t)
		case strings.HasSuffix(t, ": request sent") && strings.HasPrefix(t, "GET"):
			mark("reopen", t)
		default:
			if m := reBytes.FindStringSubmatch(t); m != nil {
				mark("bytes", fmt.Sprintf("%s: %s B (%s B so far)", m[1], m[3], m[4]))
			}
		}
	}
}
