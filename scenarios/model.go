package scenarios

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/waittool"
)

// The reference model of one call (contract §2), written apart from
// waittool: it never calls the tool's code. From the world's own records —
// the call's arguments and start, every bridge request the call made with
// what it returned and when, and the progress the caller received — it walks
// the algorithm of contract §2 step by step and says what the call must have
// done and what every field of its reply must be. A difference is reported
// under one of three invariants, field by field:
//
//   - model-requests: the call issued a request the contract does not call
//     for, at another time, of another kind or for other ids, or left one out;
//     or its reply resolved at another time;
//   - model-reply: a reply field (ok, error, done, agents, outputs, truncated,
//     bridgeError, remainingMs, agentsUnavailable, outputsUnavailable) or an
//     unknown field;
//   - model-progress: the progress notifications the caller received.
//
// The decisions the contract leaves open are those of the README's
// "Decisions" section: outputs follow the reply's agents; characters are
// Unicode code points; bridgeError is the message of the last read that
// failed in time; a budget keeps the most recent messages and then gives
// room to the oldest of them first.

// Model invariant ids.
const (
	ModelRequests = "model-requests"
	ModelReply    = "model-reply"
	ModelProgress = "model-progress"
)

// modelActive is the contract's list of active lifecycle states (contract §2
// "Input"); every other state is terminal.
var modelActive = map[string]bool{"": true, "created": true, "prompt_sent": true, "running": true, "waiting": true}

// modelInput is a call's input with the schema's defaults filled in
// (contract §2 "Input"). ms and counts.
type modelInput struct {
	timeout, poll                              int64
	perAgentMsgs, perMsg, perAgentChars, total int64
	scope                                      []string // nil: every child
}

func modelInputOf(args map[string]any, timeout int64) modelInput {
	return modelInput{
		timeout:       timeout,
		poll:          intArg(args, "pollIntervalMs", 1000),
		perAgentMsgs:  intArg(args, "maxMessagesPerAgent", 20),
		perMsg:        intArg(args, "maxCharsPerMessage", 4000),
		perAgentChars: intArg(args, "maxCharsPerAgent", 20000),
		total:         intArg(args, "maxTotalChars", 100000),
		scope:         scopeOf(args),
	}
}

// readEnd is how the model sees one raced read end (contract §2 steps 3–4).
type readEnd int

const (
	endOK        readEnd = iota // resolved by the deadline with a result
	endFailed                   // resolved by the deadline with an error
	endLost                     // not resolved by the deadline: the deadline won
	endNotIssued                // now + cost > deadline: must not be issued
	endWrong                    // the records differ from the model: stop here
)

// model is one call being walked.
type model struct {
	who      string
	in       modelInput
	start    int64
	deadline int64
	capped   int64
	reqs     []sim.Request
	next     int   // the next request of reqs to account for
	now      int64 // the tool's clock as the model has it
	cost     int64 // contract §2 step 2
	lastErr  string
	why      []string // the story so far, for messages
	vs       []Violation
}

func (m *model) fail(id, format string, args ...any) {
	m.vs = append(m.vs, Violation{Invariant: id, Message: m.who + ": " + fmt.Sprintf(format, args...)})
}

// read accounts for the next read of kind op ("list" or "read", for ids):
// the contract says whether it is issued now, and its record says how it ended.
func (m *model) read(op string, ids []string) (*sim.Request, readEnd) {
	if m.now+m.cost > m.deadline {
		m.why = append(m.why, fmt.Sprintf("%s not issued at %d ms (cost %d ms)", op, m.now, m.cost))
		return nil, endNotIssued
	}
	if m.next >= len(m.reqs) {
		m.fail(ModelRequests, "no %s was issued at %d ms; the contract calls for one (now %d + cost %d ≤ deadline %d; %s)",
			op, m.now, m.now, m.cost, m.deadline, m.story())
		return nil, endWrong
	}
	r := &m.reqs[m.next]
	m.next++
	if r.Op != op || r.IssuedMs != m.now {
		m.fail(ModelRequests, "request #%d is a %s issued at %d ms; the contract calls for a %s at %d ms (%s)",
			r.ID, r.Op, r.IssuedMs, op, m.now, m.story())
		return r, endWrong
	}
	if op == "read" && !slices.Equal(r.IDs, ids) {
		m.fail(ModelRequests, "read #%d asks for %v; the contract asks for the listed agents %v", r.ID, r.IDs, ids)
	}
	if r.CompletedMs >= 0 && r.CompletedMs <= m.deadline {
		m.cost = max(m.cost, r.CompletedMs-r.IssuedMs)
		m.now = r.CompletedMs
		if r.Err != "" {
			m.lastErr = r.Err
			m.why = append(m.why, fmt.Sprintf("%s #%d failed at %d ms", op, r.ID, m.now))
			return r, endFailed
		}
		m.why = append(m.why, fmt.Sprintf("%s #%d in time at %d ms", op, r.ID, m.now))
		return r, endOK
	}
	// The deadline won: the tool stops waiting when its deadline timer fires,
	// and the read's cost runs until then.
	m.now = m.deadline
	m.cost = max(m.cost, m.now-r.IssuedMs)
	m.why = append(m.why, fmt.Sprintf("%s #%d lost to the deadline %d ms", op, r.ID, m.deadline))
	return r, endLost
}

// story tells what the model saw last, for messages: at most the last three
// reads.
func (m *model) story() string {
	switch n := len(m.why); {
	case n == 0:
		return "at the start of the call"
	case n > 3:
		return fmt.Sprintf("after %d reads, the last: %s", n, strings.Join(m.why[n-3:], ", "))
	}
	return "after " + strings.Join(m.why, ", ")
}

// inScope keeps the listed agents the call's scope names, in list order
// (contract §2 step 7).
func (m *model) inScope(listed []waittool.Agent) []waittool.Agent {
	kept := []waittool.Agent{}
	for _, a := range listed {
		if m.in.scope == nil || slices.Contains(m.in.scope, a.SessionID) {
			kept = append(kept, a)
		}
	}
	return kept
}

func someActive(agents []waittool.Agent) bool {
	return slices.ContainsFunc(agents, func(a waittool.Agent) bool { return modelActive[a.State] })
}

// modelWant is the model's account of one call: its reply as a JSON object,
// when it resolves, and the progress values the caller must receive.
type modelWant struct {
	reply    map[string]any
	endMs    int64
	progress []int64 // elapsed ms of each notification; total is capped
}

// checkModel walks call v through contract §2 and returns every difference
// between what the model says and what the records show.
func checkModel(v callView) []Violation {
	m := &model{who: fmt.Sprintf("%s#%d", v.sum.Caller, v.sum.Index), start: v.sum.StartMs,
		deadline: v.deadline, capped: v.capped, reqs: v.reqs, now: v.sum.StartMs,
		in: modelInputOf(v.cr.Args, v.sum.TimeoutMs)}
	var want modelWant
	if v.noBridge {
		// No bridge: the tool answers at once, without a read (contract §2 step 9, ok).
		want = modelWant{endMs: m.start, reply: map[string]any{"ok": false, "error": "orchestration_unavailable",
			"done": false, "agents": []any{}, "outputs": []any{}}}
	} else {
		var ok bool
		if want, ok = m.walk(v.spec.Progress || v.spec.ResetOnProgress); !ok {
			return m.vs
		}
	}
	if m.next < len(m.reqs) {
		r := m.reqs[m.next]
		m.fail(ModelRequests, "%s #%d issued at %d ms was not called for: the reply was due at %d ms (%s)", r.Op, r.ID, r.IssuedMs, want.endMs, m.story())
	}
	if v.sum.EndMs != want.endMs {
		m.fail(ModelRequests, "resolved at %d ms, want %d ms (%s)", v.sum.EndMs, want.endMs, m.story())
	}
	m.compareReply(v.sum.Reply, want.reply)
	m.compareProgress(v.cr.ProgressNotes, want.progress)
	return m.vs
}

// walk runs contract §2 steps 1–9 over the call's records. ok is false when
// the records left the model's path (already reported).
func (m *model) walk(token bool) (want modelWant, ok bool) {
	var agents []waittool.Agent // nil until a list is read in time
	// Step 5: the first list.
	r, end := m.read("list", nil)
	if end == endWrong {
		return want, false
	}
	if end == endOK {
		agents = m.inScope(r.Agents)
	}
	firstFailed := end == endFailed
	stopped := end == endLost
	// Step 6: poll while an agent is active (or the first list failed and no
	// list was read since), leaving room for a round trip and the final read.
	for !stopped && m.now+2*m.cost < m.deadline && (agents == nil && firstFailed || agents != nil && someActive(agents)) {
		m.now += min(m.in.poll, m.deadline-m.now-2*m.cost)
		if token {
			want.progress = append(want.progress, m.now-m.start) // step 11
		}
		r, end := m.read("list", nil)
		switch end {
		case endWrong:
			return want, false
		case endOK:
			agents = m.inScope(r.Agents) // step 7: every list is scoped
		case endLost, endNotIssued:
			stopped = true
		}
	}
	// Step 8: the final read, only with a list.
	reply := map[string]any{"ok": true, "agents": agentsJSON(agents), "outputs": []any{}}
	if agents == nil {
		reply["agentsUnavailable"] = true
	} else {
		ids := make([]string, len(agents))
		for i, a := range agents {
			ids[i] = a.SessionID
		}
		r, end := m.read("read", ids)
		switch end {
		case endWrong:
			return want, false
		case endOK:
			outs, cut := modelOutputs(r.Outputs, agents, m.in)
			reply["outputs"] = outs
			if cut {
				reply["truncated"] = true
			}
		case endLost, endNotIssued:
			reply["outputsUnavailable"] = true
		}
	}
	// Step 9: the reply, measured when it is built.
	done := agents != nil && !someActive(agents)
	reply["done"] = done
	if m.lastErr != "" {
		reply["bridgeError"] = m.lastErr
	}
	if left := m.in.timeout - (m.now - m.start); !done && m.capped < m.in.timeout && left >= waittool.MinTimeoutMs {
		reply["remainingMs"] = float64(left)
	}
	want.reply, want.endMs = reply, m.now
	return want, true
}

func agentsJSON(agents []waittool.Agent) []any {
	out := []any{}
	for _, a := range agents {
		out = append(out, map[string]any{"sessionId": a.SessionID, "state": a.State})
	}
	return out
}

// modelOutputs says what the reply's outputs must be (contract §2 step 8 and
// the README's decisions): one entry per listed agent the read returned an
// output for, in the order of the list (an output for an id that is not
// listed is dropped; of an id returned twice, the first is used). Of each
// agent's messages, the most recent maxMessagesPerAgent are kept, oldest
// first. Each kept message, oldest first and agent by agent, gets as many of
// its characters (Unicode code points, from its start) as the smallest of
// maxCharsPerMessage, what is left of maxCharsPerAgent and what is left of
// maxTotalChars allows; once nothing is left for an agent, its later messages
// are dropped. cut reports whether anything was dropped or shortened.
func modelOutputs(read []waittool.AgentOutput, agents []waittool.Agent, in modelInput) (outs []any, cut bool) {
	outs = []any{}
	leftTotal := in.total
	for _, a := range agents {
		i := slices.IndexFunc(read, func(o waittool.AgentOutput) bool { return o.SessionID == a.SessionID })
		if i < 0 {
			continue
		}
		msgs := read[i].Messages
		if drop := int64(len(msgs)) - in.perAgentMsgs; drop > 0 {
			msgs, cut = msgs[drop:], true
		}
		leftAgent := in.perAgentChars
		kept := []any{}
		for _, msg := range msgs {
			room := min(in.perMsg, leftAgent, leftTotal)
			if room <= 0 {
				cut = true
				break
			}
			text := prefixChars(msg, room)
			if text != msg {
				cut = true
			}
			n := int64(utf8.RuneCountInString(text))
			leftAgent -= n
			leftTotal -= n
			kept = append(kept, text)
		}
		outs = append(outs, map[string]any{"sessionId": a.SessionID, "messages": kept})
	}
	return outs, cut
}

// prefixChars returns the first n code points of s.
func prefixChars(s string, n int64) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// replyFields are the fields a reply may carry (contract §2 step 9).
var replyFields = []string{"ok", "error", "done", "agents", "outputs", "remainingMs", "agentsUnavailable",
	"outputsUnavailable", "bridgeError", "truncated"}

// compareReply reports every field of got (the reply's JSON object as
// received) that differs from want; a field absent from want must be absent.
func (m *model) compareReply(got, want map[string]any) {
	for _, f := range replyFields {
		g, gok := got[f]
		w, wok := want[f]
		switch {
		case !gok && !wok:
		case gok && !wok:
			m.fail(ModelReply, "%s = %s, want absent (%s)", f, asJSON(g), m.story())
		case !gok:
			m.fail(ModelReply, "%s absent, want %s (%s)", f, asJSON(w), m.story())
		case !reflect.DeepEqual(normalize(g), normalize(w)):
			m.fail(ModelReply, "%s = %s, want %s%s (%s)", f, clip(asJSON(g)), clip(asJSON(w)), firstDifference(f, g, w), m.story())
		}
	}
	for f, g := range got {
		if !slices.Contains(replyFields, f) {
			m.fail(ModelReply, "unknown field %s = %s", f, asJSON(g))
		}
	}
}

func (m *model) compareProgress(notes []sim.ProgressNote, want []int64) {
	for i := range max(len(notes), len(want)) {
		switch {
		case i >= len(notes):
			m.fail(ModelProgress, "progress notification %d of %d (%d/%d ms) was not received", i+1, len(want), want[i], m.capped)
		case i >= len(want):
			m.fail(ModelProgress, "progress notification %d (%.0f/%.0f ms at %d ms) was not called for: want %d notifications", i+1, notes[i].Progress, notes[i].Total, notes[i].AtMs, len(want))
		case notes[i].Progress != float64(want[i]) || notes[i].Total != float64(m.capped) || notes[i].AtMs != m.start+want[i]:
			m.fail(ModelProgress, "progress notification %d is %.0f/%.0f ms at %d ms, want %d/%d ms at %d ms", i+1, notes[i].Progress, notes[i].Total, notes[i].AtMs, want[i], m.capped, m.start+want[i])
		}
	}
}

// normalize passes v through JSON, so that values built by the model and
// values decoded from the reply compare alike.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func clip(s string) string {
	const n = 300
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("…(%d bytes)", len(s))
}

// firstDifference explains where two agents or outputs lists first differ.
func firstDifference(field string, got, want any) string {
	g, _ := normalize(got).([]any)
	w, _ := normalize(want).([]any)
	if field != "agents" && field != "outputs" {
		return ""
	}
	if len(g) != len(w) {
		return fmt.Sprintf(": %d entries, want %d", len(g), len(w))
	}
	for i := range g {
		if reflect.DeepEqual(g[i], w[i]) {
			continue
		}
		gm, _ := g[i].(map[string]any)
		wm, _ := w[i].(map[string]any)
		if gm["sessionId"] != wm["sessionId"] {
			return fmt.Sprintf(": entry %d is %v, want %v", i+1, gm["sessionId"], wm["sessionId"])
		}
		gs, _ := gm["messages"].([]any)
		ws, _ := wm["messages"].([]any)
		if field == "outputs" && len(gs) != len(ws) {
			return fmt.Sprintf(": %v has %d messages, want %d", gm["sessionId"], len(gs), len(ws))
		}
		for j := range gs {
			if gs[j] != ws[j] {
				return fmt.Sprintf(": message %d of %v has %d characters, want %d", j+1, gm["sessionId"],
					utf8.RuneCountInString(fmt.Sprint(gs[j])), utf8.RuneCountInString(fmt.Sprint(ws[j])))
			}
		}
		return fmt.Sprintf(": entry %d (%v) differs", i+1, gm["sessionId"])
	}
	return ""
}
