package timeline

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/waitsim/waitsim/results"

	"github.com/waitsim/waitsim/waittool"
)

// Lane kinds of a timeline.
const (
	laneCaller = "caller"
	laneTool   = "tool"
	laneBridge = "bridge"
	laneAgent  = "agent"
)

// timeline is the picture of one scenario case in virtual ms: lanes (each
// caller, the tool per caller, the bridge slot, each agent), spans on them and
// marks (deadline, cap, reserve, reply). Both the HTML report and the
// trace-event JSON are drawn from it.
type timeline struct {
	Lanes []tlLane
	Spans []tlSpan
	Marks []tlMark
	// EndMs is the end of the picture: the world's end, or the latest
	// deadline or span end if later.
	EndMs int64
}

type tlLane struct {
	Kind  string // laneCaller, laneTool, laneBridge, laneAgent
	Name  string // caller / agent name, "" for the bridge
	Label string
}

// tlSpan is an interval on a lane. Open means it never ended (drawn to EndMs).
type tlSpan struct {
	Lane           int
	StartMs, EndMs int64
	Open           bool
	Class          string // call, lost, error, toolcall, sleep, reserve, list, read, hold, failed, queue, active, terminal, unknown
	Label          string
	Title          string // the long description (tooltip)
}

// tlMark is an instant. Lane -1 marks every lane (a vertical rule).
type tlMark struct {
	Lane  int
	AtMs  int64
	Class string // deadline, cap, reply, lostreply, lostread, notissued, progress
	Label string
}

var (
	reJoin     = regexp.MustCompile(`^(\S+) joins \((.*)\)$`)
	reLeave    = regexp.MustCompile(`^(\S+) leaves$`)
	reState    = regexp.MustCompile(`^(\S+) -> (.*)$`)
	reListDone = regexp.MustCompile(`^list #\d+ completed: \[(.*)\]$`)
)

// buildTimeline turns a case's calls, tool events, bridge requests and trace
// into a timeline.
func buildTimeline(c *results.CaseResult) *timeline {
	tl := &timeline{EndMs: c.EndMs}
	extend := func(t int64) {
		if t > tl.EndMs {
			tl.EndMs = t
		}
	}
	// Callers, in order of first call (then of first trace entry).
	callerLane := map[string]int{}
	addCaller := func(name string) {
		if _, ok := callerLane[name]; !ok {
			callerLane[name] = len(tl.Lanes)
			tl.Lanes = append(tl.Lanes, tlLane{Kind: laneCaller, Name: name, Label: "caller " + name})
		}
	}
	for _, cs := range c.Calls {
		addCaller(cs.Caller)
	}
	for _, e := range c.Trace {
		if n, ok := strings.CutPrefix(e.Actor, "caller:"); ok {
			addCaller(n)
		}
	}
	// One tool lane per caller (a caller's calls never overlap).
	callerOf := map[uint64]string{}
	for _, cs := range c.Calls {
		if cs.CallID != 0 {
			callerOf[cs.CallID] = cs.Caller
		}
	}
	toolLane := map[string]int{}
	toolLaneOf := func(id uint64) int {
		name, ok := callerOf[id]
		if !ok {
			name = fmt.Sprintf("call %d", id)
		}
		if l, ok := toolLane[name]; ok {
			return l
		}
		toolLane[name] = len(tl.Lanes)
		label := "tool"
		if len(callerLane) > 1 || !ok {
			label = "tool ← " + name
		}
		tl.Lanes = append(tl.Lanes, tlLane{Kind: laneTool, Name: name, Label: label})
		return toolLane[name]
	}
	for _, cs := range c.Calls {
		if cs.CallID != 0 {
			toolLaneOf(cs.CallID)
		}
	}
	for _, ev := range c.ToolEvents {
		toolLaneOf(ev.CallID)
	}
	addWireLanes(tl, c, extend)
	bridge := -1
	if len(c.BridgeReqs) > 0 {
		bridge = len(tl.Lanes)
		tl.Lanes = append(tl.Lanes, tlLane{Kind: laneBridge, Label: "bridge slot"})
	}

	// Caller spans and reply marks.
	for _, cs := range c.Calls {
		l := callerLane[cs.Caller]
		sp := tlSpan{Lane: l, StartMs: cs.StartMs, EndMs: cs.EndMs, Class: "call",
			Label: fmt.Sprintf("call %d", cs.Index)}
		if cs.TimeoutMs > 0 {
			sp.Label += fmt.Sprintf(" · timeoutMs %d", cs.TimeoutMs)
		}
		sp.Title = fmt.Sprintf("%s call %d: %d → %d ms, %d lists, %d reads", cs.Caller, cs.Index, cs.StartMs, cs.EndMs, cs.Lists, cs.Reads)
		mk := tlMark{Lane: l, AtMs: cs.EndMs, Class: "reply", Label: fmt.Sprintf("reply %d", cs.EndMs)}
		switch {
		case cs.Lost:
			sp.Class = "lost"
			mk.Class, mk.Label = "lostreply", fmt.Sprintf("LOST %d", cs.EndMs)
		case cs.IsError:
			sp.Class = "error"
			mk.Label = fmt.Sprintf("error %d", cs.EndMs)
		default:
			if n, ok := cs.ReplyInt("remainingMs"); ok {
				mk.Label += fmt.Sprintf(" · remainingMs %d", n)
			}
			if d, ok := cs.Reply["done"].(bool); ok && d {
				mk.Label += " · done"
			}
		}
		tl.Spans = append(tl.Spans, sp)
		tl.Marks = append(tl.Marks, mk)
		extend(cs.EndMs)
	}

	// Tool spans, deadline, cap and reserve per call, in call id order.
	type callEv struct {
		start, reply *results.ToolEvent
		maxCost      int64
		sleepCost    int64 // cost known at the last poll sleep: what the reserve was sized by
	}
	calls := map[uint64]*callEv{}
	var ids []uint64
	for i := range c.ToolEvents {
		ev := &c.ToolEvents[i]
		ce, ok := calls[ev.CallID]
		if !ok {
			ce = &callEv{}
			calls[ev.CallID] = ce
			ids = append(ids, ev.CallID)
		}
		ce.maxCost = max(ce.maxCost, ev.CostMs)
		l := toolLaneOf(ev.CallID)
		switch waittool.EventKind(ev.Kind) {
		case waittool.EvStart:
			ce.start = ev
		case waittool.EvReply:
			ce.reply = ev
		case waittool.EvSleep:
			d, _ := strconv.ParseInt(ev.Detail, 10, 64)
			tl.Spans = append(tl.Spans, tlSpan{Lane: l, StartMs: ev.AtMs, EndMs: ev.AtMs + d, Class: "sleep",
				Label: "sleep", Title: fmt.Sprintf("sleep %d ms at %d (cost %d ms)", d, ev.AtMs, ev.CostMs)})
			ce.sleepCost = ev.CostMs
		case waittool.EvLost:
			tl.Marks = append(tl.Marks, tlMark{Lane: l, AtMs: ev.AtMs, Class: "lostread", Label: ev.Detail + " lost the race"})
		case waittool.EvNotIssued:
			tl.Marks = append(tl.Marks, tlMark{Lane: l, AtMs: ev.AtMs, Class: "notissued", Label: ev.Detail + " not issued"})
		case waittool.EvProgress:
			tl.Marks = append(tl.Marks, tlMark{Lane: l, AtMs: ev.AtMs, Class: "progress", Label: "progress"})
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var capMarks []tlMark
	for _, id := range ids {
		ce := calls[id]
		if ce.start == nil {
			continue
		}
		l := toolLaneOf(id)
		st := ce.start
		end, open := st.DeadlineMs, true
		if ce.reply != nil {
			end, open = ce.reply.AtMs, false
		}
		capped, _ := strconv.ParseInt(st.Detail, 10, 64)
		tl.Spans = append(tl.Spans, tlSpan{Lane: l, StartMs: st.AtMs, EndMs: end, Open: open, Class: "toolcall",
			Label: fmt.Sprintf("call #%d", id),
			Title: fmt.Sprintf("tool call #%d: started %d, capped %d ms, deadline %d, read cost up to %d ms", id, st.StartedMs, capped, st.DeadlineMs, ce.maxCost)})
		capAt := st.StartedMs + waittool.CallCapMs
		if capAt == st.DeadlineMs {
			tl.Marks = append(tl.Marks, tlMark{Lane: -1, AtMs: st.DeadlineMs, Class: "deadline", Label: fmt.Sprintf("deadline = cap %d", st.DeadlineMs)})
		} else {
			tl.Marks = append(tl.Marks, tlMark{Lane: -1, AtMs: st.DeadlineMs, Class: "deadline", Label: fmt.Sprintf("deadline %d", st.DeadlineMs)})
			capMarks = append(capMarks, tlMark{Lane: -1, AtMs: capAt, Class: "cap", Label: fmt.Sprintf("cap %d", capAt)})
		}
		extend(st.DeadlineMs)
		// The read reserve (contract §2 step 6): no poll starts within 2·cost of
		// the deadline. Drawn with the cost the last poll sleep was sized by,
		// and only when the call was still waiting when the reserve began.
		from := st.DeadlineMs - 2*ce.sleepCost
		if ce.sleepCost > 0 && (ce.reply == nil || ce.reply.AtMs > from) {
			tl.Spans = append(tl.Spans, tlSpan{Lane: l, StartMs: max(from, st.AtMs), EndMs: st.DeadlineMs, Class: "reserve",
				Label: "reserve", Title: fmt.Sprintf("read reserve: 2 × cost %d ms = %d ms before the deadline %d", ce.sleepCost, 2*ce.sleepCost, st.DeadlineMs)})
		}
	}

	// Bridge slot: queue waits and the slot's occupancy.
	if bridge >= 0 {
		for _, r := range c.BridgeReqs {
			who := ""
			if r.CallID != 0 {
				who = fmt.Sprintf(" · call #%d", r.CallID)
			}
			name := fmt.Sprintf("%s #%d%s", r.Op, r.ID, who)
			if r.SharedWith != 0 {
				tl.Marks = append(tl.Marks, tlMark{Lane: bridge, AtMs: r.IssuedMs, Class: "shared", Label: fmt.Sprintf("%s shares #%d", name, r.SharedWith)})
				continue
			}
			if r.DispatchedMs < 0 || r.DispatchedMs > r.IssuedMs {
				qEnd, open := r.DispatchedMs, r.DispatchedMs < 0
				if open {
					qEnd = tl.EndMs
				}
				tl.Spans = append(tl.Spans, tlSpan{Lane: bridge, StartMs: r.IssuedMs, EndMs: qEnd, Open: open, Class: "queue",
					Title: fmt.Sprintf("%s queued at %d", name, r.IssuedMs)})
			}
			if r.DispatchedMs < 0 {
				continue
			}
			end, open := r.CompletedMs, r.CompletedMs < 0
			if open {
				end = tl.EndMs
			}
			cls := r.Op
			if (r.Err != "" || r.Panic != "") && !open {
				cls = "failed"
			}
			title := fmt.Sprintf("%s: dispatched %d, ", name, r.DispatchedMs)
			if open {
				title += "still in flight at the end"
			} else {
				title += fmt.Sprintf("completed %d", r.CompletedMs)
			}
			if r.Err != "" {
				title += ": " + r.Err
			}
			if r.Panic != "" {
				title += ": panics with " + r.Panic
			}
			tl.Spans = append(tl.Spans, tlSpan{Lane: bridge, StartMs: r.DispatchedMs, EndMs: end, Open: open, Class: cls,
				Label: fmt.Sprintf("%s #%d", r.Op, r.ID), Title: title})
			extend(end)
		}
	}

	addAgentLanes(tl, c)
	// A cap that is not a call's deadline is drawn only inside the picture.
	for _, m := range capMarks {
		if m.AtMs <= tl.EndMs {
			tl.Marks = append(tl.Marks, m)
		}
	}
	// Open spans run to the end of the picture.
	for i := range tl.Spans {
		if tl.Spans[i].Open && tl.Spans[i].EndMs < tl.EndMs {
			tl.Spans[i].EndMs = tl.EndMs
		}
	}
	return tl
}

// addAgentLanes draws each agent's lifecycle state from the trace: roster
// changes ("run" entries) are exact; list completions are observations.
func addAgentLanes(tl *timeline, c *results.CaseResult) {
	type change struct {
		at     int64
		state  string // "" = left
		exact  bool
		joined bool
	}
	hist := map[string][]change{}
	var order []string
	add := func(id string, ch change) {
		if _, ok := hist[id]; !ok {
			order = append(order, id)
		}
		hist[id] = append(hist[id], ch)
	}
	for _, e := range c.Trace {
		switch e.Actor {
		case "run":
			if m := reJoin.FindStringSubmatch(e.Text); m != nil {
				add(m[1], change{e.AtMs, m[2], true, true})
			} else if m := reLeave.FindStringSubmatch(e.Text); m != nil {
				add(m[1], change{at: e.AtMs, exact: true})
			} else if m := reState.FindStringSubmatch(e.Text); m != nil {
				add(m[1], change{e.AtMs, m[2], true, false})
			}
		case "bridge":
			if m := reListDone.FindStringSubmatch(e.Text); m != nil {
				for _, item := range strings.Fields(m[1]) {
					id, st, ok := strings.Cut(item, "=")
					if ok {
						add(id, change{at: e.AtMs, state: st})
					}
				}
			}
		}
	}
	// Agents a reply names but no trace entry does.
	for _, cs := range c.Calls {
		as, _ := cs.Reply["agents"].([]any)
		for _, a := range as {
			m, _ := a.(map[string]any)
			if id, ok := m["sessionId"].(string); ok {
				if _, seen := hist[id]; !seen {
					st, _ := m["state"].(string)
					add(id, change{at: cs.EndMs, state: st})
				}
			}
		}
	}
	for _, id := range order {
		l := len(tl.Lanes)
		tl.Lanes = append(tl.Lanes, tlLane{Kind: laneAgent, Name: id, Label: "agent " + id})
		h := hist[id]
		var cur *tlSpan
		closeAt := func(t int64) {
			if cur != nil {
				cur.EndMs, cur.Open = t, false
				tl.Spans = append(tl.Spans, *cur)
				cur = nil
			}
		}
		open := func(t int64, st string) {
			cls := "terminal"
			if waittool.Active(strings.Trim(st, `"`)) {
				cls = "active"
			}
			cur = &tlSpan{Lane: l, StartMs: t, Class: cls, Label: st, Open: true,
				Title: fmt.Sprintf("agent %s: %s from %d ms", id, st, t)}
		}
		first := h[0]
		switch {
		case first.joined:
		case first.exact && first.state != "":
			// Changed before any observation: its first state is unknown.
			cur = &tlSpan{Lane: l, StartMs: 0, Class: "unknown", Label: "?", Open: true,
				Title: fmt.Sprintf("agent %s: state before %d ms not recorded", id, first.at)}
		case !first.exact:
			open(0, first.state)
		}
		for _, ch := range h {
			switch {
			case ch.exact && ch.state == "":
				closeAt(ch.at)
			case ch.exact:
				closeAt(ch.at)
				open(ch.at, ch.state)
			case cur == nil || cur.Label != ch.state:
				closeAt(ch.at)
				open(ch.at, ch.state)
			}
		}
		if cur != nil {
			cur.EndMs = tl.EndMs
			tl.Spans = append(tl.Spans, *cur)
		}
	}
}
