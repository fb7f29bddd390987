package waitagents

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/results"
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

// The texts contract §2 spells out word for word, which a reply or a
// notification must carry exactly (TestContractTexts keeps them equal to
// docs/contract.md): the progress message of step 11, whose E and C are the
// notification's progress and total in ms (E is the progress it carries,
// min(elapsed, capped) by step 12, so that the message never states more
// than total); the message of a read whose bridge panicked (step 9,
// "bridge panic: …", followed by the panic's value as fmt's %v writes it);
// and the error of a tool without a bridge (step 9).
const (
	progressMessage  = "waiting for agents: %d ms of %d ms"
	panicPrefix      = "bridge panic: "
	unavailableError = "orchestration_unavailable"
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
	endOK        readEnd = iota // resolved in time with a result
	endFailed                   // resolved in time with an error
	endLost                     // not resolved in time: the race timer won
	endNotIssued                // now + cost > deadline + slip: must not be issued
	endWrong                    // the records differ from the model: stop here
)

// model is one call being walked. Timer lateness (contract §2 step 12) is
// the one thing the world decides that the records show only by its effect:
// a timer due at t wakes the call at some w with t ≤ w ≤ t + maxLate. When
// the world's timers are late by a fixed amount (no jitter), every one is
// exactly maxLate late and w is t + maxLate: every wake, every race's
// verdict but one whose result came at the timer's own instant, and the
// delay a call measures and hands on are then known. With jitter, the model
// reads w from the next thing the call did (its next request, or its
// reply) and checks the bound; where a late race timer leaves open whether a
// result that ended after deadline + slip was in time, the model walks both
// ways (see explore).
type model struct {
	who      string
	in       modelInput
	start    int64
	deadline int64
	capped   int64
	maxLate  int64 // the largest lateness the world gave a tool timer
	endMs    int64 // when the reply resolved, as recorded
	// exact: every timer of the tool fired exactly maxLate late (the
	// world's timers have a lateness and no jitter, contract §2 step 12),
	// so that every wake, and what the call measured, is known.
	exact bool
	// wireDelay: the reply reached the caller up to this much after the tool
	// sent it (a resumed stream, contract §6); builtMs is the instant the
	// reply's remainingMs says it was built, when built (it carries one).
	wireDelay, builtMs int64
	built              bool
	// open: the call's own late (what its next call inherits) is not known
	// from the records: a timer's wake was read from a reply the wire delayed.
	open    bool
	reqs    []bridge.Request
	choices []bool // the verdicts of open races, in order: true = in time
	asked   int    // open races met so far

	inherited int64    // the machine delay the tool's previous call measured (step 12)
	c         Contract // the contract's figures

	next    int   // the next request of reqs to account for
	now     int64 // the tool's clock as the model has it
	cost    int64 // contract §2 step 2: the longest read so far
	late    int64 // the largest machine delay the call has measured so far (step 12)
	anchor  int64 // when the latest sleep was due (the start before the first)
	spent   int64 // the bridge time of the reads issued since anchor
	lastErr string
	why     []string // the story so far, for messages
	vs      []results.Violation
}

func (m *model) fail(id, format string, args ...any) {
	m.vs = append(m.vs, results.Violation{Invariant: id, Message: m.who + ": " + fmt.Sprintf(format, args...)})
}

// wake returns when a timer of the call due at due woke it: due itself with
// exact timers, due + maxLate with timers late by a fixed amount, else the
// instant of the call's next act in the records, which must lie within
// due..due+maxLate.
//
// A reply that came over a resumed stream was sent up to wireDelay before the
// caller got it (contract §6): the wake then lies in both windows, at the
// instant the reply's remainingMs says it was built when it says one, else
// at the latest (only remainingMs depends on it: the later, the less of the
// budget is left), and the call's late is no longer known exactly.
func (m *model) wake(due int64, what string) int64 {
	if m.maxLate == 0 {
		return due
	}
	if m.exact {
		// Known, whatever the call did next: a request issued at another
		// instant, or a reply resolved at another, is reported where the
		// model compares those.
		m.late = max(m.late, m.maxLate)
		return due + m.maxLate
	}
	w := m.endMs
	if m.next < len(m.reqs) {
		w = m.reqs[m.next].IssuedMs
	} else if m.wireDelay > 0 && w-m.wireDelay <= due+m.maxLate {
		lo, hi := max(due, w-m.wireDelay), min(w, due+m.maxLate)
		w = hi // no remainingMs: the latest instant, where it is least likely called for
		if m.built {
			w = min(max(m.builtMs, lo), hi)
		}
		m.open = true
	}
	if w < due || w > due+m.maxLate {
		m.fail(ModelRequests, "%s due at %d ms woke the call at %d ms (its next act); timers are at most %d ms late (%s)", what, due, w, m.maxLate, m.story())
		return max(due, min(w, due+m.maxLate))
	}
	m.late = max(m.late, w-due)
	return w
}

// read accounts for the next read of kind op ("list" or "read", for ids):
// the contract says whether it is issued now, and its record says how it ended.
func (m *model) read(op string, ids []string) (*bridge.Request, readEnd) {
	// Only planned sleeps and the bridge's time count against the deadline
	// (step 12): the slip, the time since the plan's anchor spent on neither,
	// moves the read's limit.
	slip := max(m.now-m.anchor-m.spent, 0)
	m.late = max(m.late, slip)
	limit := m.deadline + slip
	if m.now+m.cost > limit {
		m.why = append(m.why, fmt.Sprintf("%s not issued at %d ms (cost %d ms)", op, m.now, m.cost))
		return nil, endNotIssued
	}
	if m.next >= len(m.reqs) {
		m.fail(ModelRequests, "no %s was issued at %d ms; the contract calls for one (now %d + cost %d ≤ deadline %d + slip %d; %s)",
			op, m.now, m.now, m.cost, m.deadline, slip, m.story())
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
	ended := r.CompletedMs >= 0
	inTime := ended && r.CompletedMs <= limit
	if ended && !inTime && r.CompletedMs <= limit+m.maxLate {
		// The race timer, due at limit, may have woken after the result
		// (with exact lateness, a result before limit + maxLate was
		// taken: the walk that says otherwise finds it ended before the
		// timer woke the call).
		inTime = m.asked >= len(m.choices) || m.choices[m.asked]
		m.asked++
	}
	if inTime {
		m.cost = max(m.cost, r.CompletedMs-r.IssuedMs)
		m.spent += r.CompletedMs - r.IssuedMs
		m.now = r.CompletedMs
		// A read fails with the bridge's error, or, when the bridge call
		// panicked, with "bridge panic: " and the panic's value (step 9).
		if msg := failure(r); msg != "" {
			m.lastErr = msg
			m.why = append(m.why, fmt.Sprintf("%s #%d failed at %d ms", op, r.ID, m.now))
			return r, endFailed
		}
		m.why = append(m.why, fmt.Sprintf("%s #%d in time at %d ms", op, r.ID, m.now))
		return r, endOK
	}
	// The race timer won: the call stops waiting when it wakes, and the
	// read's cost runs until then.
	m.now = m.wake(limit, "the race timer of "+op+fmt.Sprintf(" #%d", r.ID))
	if ended && r.CompletedMs <= m.now {
		m.fail(ModelRequests, "%s #%d ended at %d ms, before its race timer woke the call at %d ms: it was in time (%s)", op, r.ID, r.CompletedMs, m.now, m.story())
	}
	m.cost = max(m.cost, m.now-r.IssuedMs)
	m.spent += m.now - r.IssuedMs
	m.why = append(m.why, fmt.Sprintf("%s #%d lost to the deadline at %d ms", op, r.ID, m.now))
	return r, endLost
}

// failure is the message of read r's failure as the tool must report it
// (contract §2 step 9): the bridge's error, word for word, or for a bridge
// call that panicked "bridge panic: " and the panic's value; "" when it
// returned a result.
func failure(r *bridge.Request) string {
	if r.Panic != "" {
		return panicPrefix + r.Panic
	}
	return r.Err
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
// when it resolves, and the progress the caller must receive.
type modelWant struct {
	reply    map[string]any
	endMs    int64
	progress []sim.ProgressNote
}

// lateAt is a walked call's measured machine delay (late) and when its
// reply resolved: what the tool hands to its next call (contract §2 step 12).
type lateAt struct{ endMs, late int64 }

// checkModel walks call v through contract §2 and returns every difference
// between what the model says and what the records show, the machine delay
// the call measured, and whether the records leave that figure open (a wake
// read from a reply the wire delayed). prior holds the calls walked before
// it; unknown says that a call the tool started before v may have been its
// previous one while the records do not tell its delay or when it ended (its
// reply was lost on the wire, or the wire delayed it).
func checkModel(v callView, prior []lateAt, unknown bool) ([]results.Violation, int64, bool) {
	base := model{who: fmt.Sprintf("%s#%d", v.sum.Caller, v.sum.Index), start: v.sum.StartMs,
		deadline: v.deadline, capped: v.capped, maxLate: v.maxLate, exact: v.exact, endMs: v.sum.EndMs, reqs: v.reqs,
		in: modelInputOf(v.cr.Args, v.sum.TimeoutMs), wireDelay: v.sum.WireDelayMs, c: v.c}
	if r, ok := v.sum.Reply["remainingMs"].(float64); ok {
		base.builtMs, base.built = v.sum.StartMs+v.sum.TimeoutMs-int64(r), true
	}
	// The tool's previous call is one whose reply resolved last by v's start;
	// at v's start instant itself the order is open, so a call that resolved
	// then, or the last one before, may be it. Each candidate is tried.
	latest := func(by int64, strict bool) []int64 {
		last := int64(-1)
		for _, p := range prior {
			if p.endMs < by || !strict && p.endMs == by {
				last = max(last, p.endMs)
			}
		}
		if last < 0 {
			return []int64{0}
		}
		var out []int64
		for _, p := range prior {
			if p.endMs == last {
				out = append(out, p.late)
			}
		}
		return out
	}
	all := append(latest(v.sum.StartMs, false), latest(v.sum.StartMs, true)...)
	// A call the tool started before v whose late the records do not tell
	// (its reply was lost on the wire, or the wire delayed it after a late
	// wake) may be the previous call: then v may inherit any delay the world
	// can give, 0 to maxLate (contract §2 step 12).
	if unknown {
		if v.exact {
			// Every delay a call can measure is a timer's lateness or a
			// slip, the lateness of its latest sleep: 0 or maxLate.
			all = append(all, 0, v.maxLate)
		} else {
			for l := range v.maxLate + 1 {
				all = append(all, l)
			}
		}
	}
	var candidates []int64
	for _, l := range all {
		if !slices.Contains(candidates, l) {
			candidates = append(candidates, l)
		}
	}
	var first []results.Violation
	var firstLate int64
	firstOpen := false
	for i, inherited := range candidates {
		base.inherited = inherited
		vs, late, open := base.explore(v, nil)
		if len(vs) == 0 {
			return nil, late, open
		}
		if i == 0 {
			first, firstLate, firstOpen = vs, late, open
		}
	}
	return first, firstLate, firstOpen
}

// explore walks the call with the given verdicts of its open races (later
// ones default to "in time"); when that fails and an open race was decided
// by default, it tries both verdicts of the first undecided one. It returns
// nil when some walk matches the records, else the shortest list of
// differences found.
func (base model) explore(v callView, choices []bool) ([]results.Violation, int64, bool) {
	m := base
	m.choices, m.now, m.anchor = choices, m.start, m.start
	m.run(v)
	if len(m.vs) == 0 || m.asked <= len(choices) || len(choices) >= 8 {
		return m.vs, m.late, m.open
	}
	best, late, open := m.vs, m.late, m.open
	for _, verdict := range []bool{true, false} {
		vs, l, o := base.explore(v, append(slices.Clone(choices), verdict))
		if len(vs) == 0 {
			return nil, l, o
		}
		if len(vs) < len(best) {
			best, late, open = vs, l, o
		}
	}
	return best, late, open
}

// run walks the call once and compares.
func (m *model) run(v callView) {
	var want modelWant
	if v.noBridge {
		// No bridge: the tool answers at once, without a read (contract §2 step 9, ok).
		want = modelWant{endMs: m.start, reply: map[string]any{"ok": false, "error": unavailableError,
			"done": false, "agents": []any{}, "outputs": []any{}}}
	} else {
		cs := v.spec.Sim() // the profile's knobs, then the file's
		var ok bool
		if want, ok = m.walk(cs.Progress); !ok {
			return
		}
	}
	if m.next < len(m.reqs) {
		r := m.reqs[m.next]
		m.fail(ModelRequests, "%s #%d issued at %d ms was not called for: the reply was due at %d ms (%s)", r.Op, r.ID, r.IssuedMs, want.endMs, m.story())
	}
	// A reply carried by a resumed stream reaches the caller up to
	// WireDelayMs after the tool sent it (contract §6).
	if d := v.sum.EndMs - want.endMs; d < 0 || d > v.sum.WireDelayMs {
		if v.sum.WireDelayMs > 0 {
			m.fail(ModelRequests, "resolved at %d ms, want %d ms, or up to %d ms later over a resumed stream (%s)", v.sum.EndMs, want.endMs, v.sum.WireDelayMs, m.story())
		} else {
			m.fail(ModelRequests, "resolved at %d ms, want %d ms (%s)", v.sum.EndMs, want.endMs, m.story())
		}
	}
	m.compareReply(v.sum.Reply, want.reply)
	m.compareProgress(v.cr.ProgressNotes, want.progress, v.late)
}

// walk runs contract §2 steps 1–11 over the call's records. ok is false
// when the records left the model's path (already reported).
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
	var sent int64 // the last progress sent, elapsed ms
	// Step 6: poll while an agent is active (or the first list failed and no
	// list was read since), leaving a reserve for a round trip, the final
	// read and the machine's delay, the larger of what this call and the
	// tool's previous call measured, and at least the floor once any delay
	// was measured (step 12).
	reserve := func() int64 {
		machine := max(m.late, m.inherited)
		if machine > 0 {
			machine = max(machine, m.c.MachineDelayFloorMs)
		}
		return 2*m.cost + machine
	}
	for !stopped && m.now+reserve() < m.deadline && (agents == nil && firstFailed || agents != nil && someActive(agents)) {
		due := m.now + min(m.in.poll, m.deadline-m.now-reserve())
		m.now = m.wake(due, "the poll sleep")
		m.anchor, m.spent = due, 0
		// Step 11: one notification per poll, with the elapsed ms (never
		// above the capped ms), only when it grows.
		if elapsed := min(m.now-m.start, m.capped); token && elapsed > sent {
			sent = elapsed
			want.progress = append(want.progress, sim.ProgressNote{AtMs: m.now, Progress: float64(elapsed), Total: float64(m.capped),
				Message: fmt.Sprintf(progressMessage, elapsed, m.capped)})
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
	if left := m.in.timeout - (m.now - m.start); !done && m.capped < m.in.timeout && left >= m.c.MinTimeoutMs {
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

// compareProgress checks the notifications a caller received against the
// model's. Over streamable HTTP the transport may drop notifications (no
// stream to carry them, a cut stream), deliver one late (a resumed stream)
// and deliver one again (a standalone stream reopened without Last-Event-ID
// replays the handler's EventStore from its start): what arrived must then be
// the model's notifications, in order, each at or after its instant, one
// delivered again (the same notification, after its first copy, which was
// itself called for) counting once, but not all of them need arrive
// (contract §6; progress-reports-elapsed allows the same).
func (m *model) compareProgress(notes, want []sim.ProgressNote, overHTTP bool) {
	if overHTTP {
		j := 0
		for i, n := range notes {
			if slices.ContainsFunc(notes[:i], func(p sim.ProgressNote) bool {
				return p.Progress == n.Progress && p.Total == n.Total && p.Message == n.Message && p.AtMs < n.AtMs
			}) {
				continue // delivered again, later (a replay needs a cut and a new stream): it counts once
			}
			for j < len(want) && (want[j].Progress != n.Progress || want[j].Total != n.Total || want[j].Message != n.Message || n.AtMs < want[j].AtMs) {
				j++
			}
			if j == len(want) {
				m.fail(ModelProgress, "progress notification %d (%.0f/%.0f ms at %d ms) was not called for, or came out of order (its message %q)", i+1, n.Progress, n.Total, n.AtMs, n.Message)
				return
			}
			j++
		}
		return
	}
	for i := range max(len(notes), len(want)) {
		switch {
		case i >= len(notes):
			m.fail(ModelProgress, "progress notification %d of %d (%.0f/%.0f ms at %d ms) was not received", i+1, len(want), want[i].Progress, want[i].Total, want[i].AtMs)
		case i >= len(want):
			m.fail(ModelProgress, "progress notification %d (%.0f/%.0f ms at %d ms) was not called for: want %d notifications", i+1, notes[i].Progress, notes[i].Total, notes[i].AtMs, len(want))
		case notes[i] != want[i]:
			msg := fmt.Sprintf("progress notification %d is %.0f/%.0f ms at %d ms, want %.0f/%.0f ms at %d ms", i+1, notes[i].Progress, notes[i].Total, notes[i].AtMs, want[i].Progress, want[i].Total, want[i].AtMs)
			if notes[i].Message != want[i].Message {
				msg += fmt.Sprintf("; its message is %q, want %q", notes[i].Message, want[i].Message)
			}
			m.fail(ModelProgress, "%s", msg)
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
