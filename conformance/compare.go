package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/waitsim/waitsim/results"
	simpkg "github.com/waitsim/waitsim/sim"
)

// CallComparison is one call as the simulation predicted it and as a real
// client saw it. Times in ms since the first caller's start (virtual for the
// simulation, wall for the client); DiffMs = RealEndMs − SimEndMs.
type CallComparison struct {
	Caller    string         `json:"caller"`
	Index     int            `json:"index"`
	SimEndMs  int64          `json:"simEndMs"`
	RealEndMs float64        `json:"realEndMs"`
	DiffMs    float64        `json:"diffMs"`
	SimLost   bool           `json:"simLost,omitempty"`
	RealLost  bool           `json:"realLost,omitempty"`
	SimReply  map[string]any `json:"simReply,omitempty"`
	RealReply map[string]any `json:"realReply,omitempty"`
	// RealStartMs is when the client sent the call (the simulation's start
	// is SimStartMs).
	SimStartMs  int64   `json:"simStartMs"`
	RealStartMs float64 `json:"realStartMs"`
	// Progress is how many progress notifications the client received;
	// ProgressAtMs when, and ProgressMs the progress value of each.
	Progress     int       `json:"progress,omitempty"`
	ProgressAtMs []float64 `json:"progressAtMs,omitempty"`
	ProgressMs   []float64 `json:"progressMs,omitempty"`
	// LostOutputs: the real reply says outputsUnavailable where the
	// simulation's has the outputs (the timer-lateness defect, contract §2 step 12).
	LostOutputs bool `json:"lostOutputs,omitempty"`
	// SimCause and RealCause say what ended the call (CauseReceived,
	// CauseTimeout, Cause504, CauseCut, CauseHang, …): the simulation's from
	// its lostBy and where its wire cut the call, the client's as it saw it.
	SimCause  string `json:"simCause,omitempty"`
	RealCause string `json:"realCause,omitempty"`
	// SimProgress is how many progress notifications the simulated caller
	// received for the call (Progress: the real one).
	SimProgress int `json:"simProgress,omitempty"`
	// SimCutBy names the cut the simulated client saw before its own
	// timeout lost the call; RealCutAtMs is when the real client's transport
	// reported its stream cut (0: it reported none).
	SimCutBy    string  `json:"simCutBy,omitempty"`
	RealCutAtMs float64 `json:"realCutAtMs,omitempty"`
	// Tie: in the simulation the client's own timeout and the proxy's idle
	// timeout fell due at one instant, and the client's fired first (the
	// proxy starts its timer when it forwards the request, after the
	// client started its own). TieClientFirst or TieProxyFirst says which
	// came first for the real client; either agrees.
	Tie string `json:"tie,omitempty"`
	// NoteDelayMs, for a call its client lost to a request timeout it
	// restarts on progress: how much later the real client received the
	// last progress notification before its end than the simulated one
	// (whose timeout fell due the timeout after it). That client's timer
	// runs from the note's arrival, so its end is judged from there: the
	// resolve time within the tolerance of the note's arrival plus the
	// timeout, and the note's delay within the tolerance plus the proxy's
	// hold (ProxyLeg.HoldMs: HAProxy holds each small chunk about 200 ms).
	NoteDelayMs float64 `json:"noteDelayMs,omitempty"`
	// Mismatches lists every disagreement; empty means this call agrees.
	Mismatches []string `json:"mismatches,omitempty"`
}

// How a tie between the client's timeout and the proxy's (CallComparison.Tie)
// went for the real client.
const (
	TieClientFirst = "client first"
	TieProxyFirst  = "proxy first"
)

// judgeRules is what comparing a run needs to know of its world beyond the
// calls.
type judgeRules struct {
	client string // ClientTS or ClientGo
	// idleMs is the proxy's idle timeout (0: no proxy); postSilent says the
	// call's POST carries nothing until the reply, progress or not (the
	// JSON-response modes).
	idleMs     int64
	postSilent bool
	// holdMs is how long the proxy may hold a progress notification on its
	// way to the client (ProxyLeg.HoldMs; 0 without a proxy).
	holdMs float64
	// resetMs holds, by caller, the request timeout of a caller that
	// restarts it on each progress notification (a progress token sent and
	// resetOnProgress): its timer runs from the note's arrival.
	resetMs map[string]int64
	// lagMs is the run's start lag (RunEntry.StartLagMs): what the server
	// times (a reply, a note, a proxy's timeout after the server's last
	// byte) may come this much later than simulated, never earlier.
	lagMs float64
}

// noteAnchor is, for simulated call s lost to its caller's own request
// timeout that restarts on progress, when the real client received the last
// progress notification of r before r's end; ok is false when the end is
// not anchored at a note (another cause, no reset, no note before the end
// on either side).
func noteAnchor(s results.CallSummary, r *Observed, rules judgeRules) (atMs float64, ok bool) {
	timeout, reset := rules.resetMs[s.Caller]
	if !reset || timeout <= 0 || simCause(s) != CauseTimeout || realCause(r) != CauseTimeout || s.Progress == 0 {
		return 0, false
	}
	for _, n := range r.ProgressNotes {
		if n.AtMs <= r.EndMs {
			atMs, ok = n.AtMs, true
		}
	}
	return atMs, ok
}

// simCause is what ended simulated call s, as a CallComparison cause.
func simCause(s results.CallSummary) string {
	switch {
	case !s.Lost:
		return CauseReceived
	case s.LostBy == simpkg.LostByTimeout:
		return CauseTimeout
	case strings.HasPrefix(s.LostBy, simpkg.LostByHang):
		return CauseHang
	case s.Cut == simpkg.CutBeforeHeaders:
		return Cause504
	case s.Cut == simpkg.CutAfterHeaders:
		return CauseCut
	case strings.HasPrefix(s.LostBy, simpkg.LostBySession), strings.HasPrefix(s.LostBy, simpkg.LostBySessionEnded):
		return CauseSession
	}
	return CauseLost
}

// realCause is what ended real call r, as a CallComparison cause.
func realCause(r *Observed) string {
	switch {
	case !r.Lost:
		return CauseReceived
	case r.Cause == "":
		return CauseTimeout // a driver of before causes: lost was the client's own timeout
	}
	return r.Cause
}

// tieAt reports whether simulated call s, lost to its client's own timeout,
// met the proxy's idle timeout at the same instant: the call's POST was
// silent since it was sent (no progress on it) and it ended exactly the
// proxy's timeout after its start.
func tieAt(s results.CallSummary, rules judgeRules) bool {
	return rules.idleMs > 0 && simCause(s) == CauseTimeout && s.CutBy == "" &&
		(s.Progress == 0 || rules.postSilent) && s.EndMs-s.StartMs == rules.idleMs
}

// compare matches the calls of one real run to the simulation's by (caller,
// index): lost or received and what ended the call (a tie between the
// client's timeout and the proxy's may go either way), error or not, every
// reply field exactly except remainingMs, the resolve time (for a hang: the
// cut that left it waiting) within toleranceMs — late by up to toleranceMs
// plus the run's start lag (rules.lagMs) —, the cut a pending client saw,
// and the number of progress notifications up to the end within the
// tolerance (and the lag, for notes that came late); a progress
// notification above its total is a mismatch too (contract §2 step 11).
// remainingMs and the time from a note to the timeout it restarted are
// differences of two instants the lag moves alike: toleranceMs alone.
func compare(sim []results.CallSummary, real []Observed, toleranceMs float64, rules judgeRules) []CallComparison {
	type key struct {
		caller string
		index  int
	}
	realBy := map[key]*Observed{}
	for i := range real {
		realBy[key{real[i].Caller, real[i].Index}] = &real[i]
	}
	var out []CallComparison
	seen := map[key]bool{}
	for _, s := range sim {
		k := key{s.Caller, s.Index}
		seen[k] = true
		c := CallComparison{Caller: s.Caller, Index: s.Index, SimStartMs: s.StartMs, SimEndMs: s.EndMs, SimLost: s.Lost, SimReply: s.Reply,
			SimCause: simCause(s), SimProgress: s.Progress, SimCutBy: s.CutBy}
		r := realBy[k]
		if r == nil {
			c.Mismatches = append(c.Mismatches, "the real client made no such call")
			out = append(out, c)
			continue
		}
		c.RealStartMs, c.RealEndMs, c.RealLost, c.RealReply, c.Progress = r.StartMs, r.EndMs, r.Lost, r.Reply, len(r.ProgressNotes)
		c.RealCause, c.RealCutAtMs = realCause(r), math.Round(r.CutAtMs*10)/10
		for _, n := range r.ProgressNotes {
			c.ProgressAtMs = append(c.ProgressAtMs, math.Round(n.AtMs*10)/10)
			c.ProgressMs = append(c.ProgressMs, n.Progress)
		}
		// A hang resolves at the cut that left the client waiting; the
		// runner only saw it still pending at its deadline.
		end := r.EndMs
		if c.RealCause == CauseHang && r.CutAtMs > 0 {
			end = r.CutAtMs
		}
		c.DiffMs = math.Round((end-float64(s.EndMs))*10) / 10
		if s.Lost != r.Lost {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("lost: simulation %v, real %v", s.Lost, r.Lost))
		}
		if tieAt(s, rules) {
			c.Tie = TieClientFirst
			if c.RealCause == Cause504 {
				c.Tie = TieProxyFirst
			}
		}
		if c.SimCause != c.RealCause && s.Lost == r.Lost && c.Tie != TieProxyFirst {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("ended by: simulation %s, real %s", causeText(c.SimCause, s.LostBy), causeText(c.RealCause, r.RPCError)))
		}
		if (s.CutBy != "" || c.SimCause == CauseHang) && r.CutAtMs == 0 {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("the simulated client saw its stream cut after its headers (%s); the real client's transport reported no cut", cutName(s)))
		}
		if s.CutBy == "" && c.SimCause != CauseHang && r.CutAtMs > 0 {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("the real client's transport reported the call's stream cut at %.1f ms; the simulated client saw no cut", r.CutAtMs))
		}
		if lo, hi := progressWindow(r, end, toleranceMs, rules); s.Progress < lo || s.Progress > hi {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("progress notifications: simulation %d, real %d by the end (%d to %d within the tolerance)", s.Progress, notesBy(r, end), lo, hi))
		}
		realErr := r.IsError || r.RPCError != ""
		if s.IsError != realErr {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("error: simulation %v, real %v %s%s", s.IsError, realErr, r.ErrorText, r.RPCError))
		}
		if at, ok := noteAnchor(s, r, rules); ok {
			// The timer ran from the note's arrival: the simulated one's
			// note came the timeout before its end.
			c.NoteDelayMs = math.Round((at-float64(s.EndMs-rules.resetMs[s.Caller]))*10) / 10
			if c.NoteDelayMs < -toleranceMs || c.NoteDelayMs > toleranceMs+rules.holdMs+rules.lagMs {
				c.Mismatches = append(c.Mismatches, fmt.Sprintf("the last progress notification before the timeout arrived at %.1f ms, simulation %d ms: off by %.1f ms, tolerance %.0f ms and the proxy's hold %.0f ms%s", at, s.EndMs-rules.resetMs[s.Caller], c.NoteDelayMs, toleranceMs, rules.holdMs, lagText(rules.lagMs)))
			}
			if off := c.DiffMs - c.NoteDelayMs; math.Abs(off) > toleranceMs {
				c.Mismatches = append(c.Mismatches, fmt.Sprintf("resolves at %.1f ms, %.1f ms after its last progress notification; the simulation %d ms after: off by %.1f ms, tolerance %.0f ms", r.EndMs, r.EndMs-at, rules.resetMs[s.Caller], off, toleranceMs))
			}
		} else if c.DiffMs < -toleranceMs || c.DiffMs > toleranceMs+rules.lagMs {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("resolves at %.1f ms, simulation %d ms: off by %.1f ms, tolerance %.0f ms%s", r.EndMs, s.EndMs, c.DiffMs, toleranceMs, lagText(rules.lagMs)))
		}
		c.Mismatches = append(c.Mismatches, compareReplies(s.Reply, r.Reply, toleranceMs)...)
		for _, n := range r.ProgressNotes {
			if n.Progress > n.Total {
				c.Mismatches = append(c.Mismatches, fmt.Sprintf("progress %.0f above total %.0f", n.Progress, n.Total))
			}
		}
		if r.Reply != nil && r.Reply["outputsUnavailable"] == true && (s.Reply == nil || s.Reply["outputsUnavailable"] == nil) {
			c.LostOutputs = true
		}
		out = append(out, c)
	}
	for _, r := range real {
		if k := (key{r.Caller, r.Index}); !seen[k] {
			out = append(out, CallComparison{Caller: r.Caller, Index: r.Index, RealEndMs: r.EndMs, RealLost: r.Lost, RealReply: r.Reply,
				Mismatches: []string{"a call the simulation does not predict"}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Caller != out[j].Caller {
			return out[i].Caller < out[j].Caller
		}
		return out[i].Index < out[j].Index
	})
	return out
}

// compareReplies compares two replies field by field: presence always, values
// exactly (as JSON) except remainingMs, a time, within toleranceMs.
func compareReplies(sim, real map[string]any, toleranceMs float64) []string {
	if sim == nil || real == nil {
		if (sim == nil) != (real == nil) {
			return []string{fmt.Sprintf("reply: simulation %s, real %s", text(sim), text(real))}
		}
		return nil
	}
	var keys []string
	for k := range sim {
		keys = append(keys, k)
	}
	for k := range real {
		if _, ok := sim[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		sv, sok := sim[k]
		rv, rok := real[k]
		switch {
		case !sok:
			out = append(out, fmt.Sprintf("%s: absent in the simulation, real %s", k, text(rv)))
		case !rok:
			out = append(out, fmt.Sprintf("%s: simulation %s, absent in the real reply", k, text(sv)))
		case k == "remainingMs":
			sf, _ := sv.(float64)
			rf, _ := rv.(float64)
			if math.Abs(rf-sf) > toleranceMs {
				out = append(out, fmt.Sprintf("remainingMs: simulation %s, real %s: off by more than %.0f ms", text(sv), text(rv), toleranceMs))
			}
		case text(sv) != text(rv):
			out = append(out, fmt.Sprintf("%s: simulation %s, real %s", k, text(sv), text(rv)))
		}
	}
	return out
}

// progressWindow is the range of progress counts that agree with real call
// r ending at endMs: from the notifications received by endMs − tolerance
// to those received by endMs + tolerance + the start lag (a late start
// delays the notes, not a timeout the client timed), plus one for the TypeScript
// client, whose SDK discards a notification it processes after the call
// settled (contract §4), so that a note the simulation delivers at the
// very instant of the end may never be seen.
func progressWindow(r *Observed, endMs, toleranceMs float64, rules judgeRules) (lo, hi int) {
	lo, hi = notesBy(r, endMs-toleranceMs), notesBy(r, endMs+toleranceMs+rules.lagMs)
	if rules.client == ClientTS {
		hi++
	}
	return lo, hi
}

// notesBy counts r's progress notifications received by atMs.
func notesBy(r *Observed, atMs float64) int {
	n := 0
	for _, p := range r.ProgressNotes {
		if p.AtMs <= atMs {
			n++
		}
	}
	return n
}

// lagText names a start lag in a mismatch ("" for none).
func lagText(lagMs float64) string {
	if lagMs <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.0f ms more late: the start lag)", lagMs)
}

// causeText is a cause for a mismatch, with its detail (the simulation's
// lostBy, the real protocol error) when there is one.
func causeText(cause, detail string) string {
	if detail == "" {
		return cause
	}
	return fmt.Sprintf("%s (%s)", cause, detail)
}

// cutName names the cut that left simulated call s waiting.
func cutName(s results.CallSummary) string {
	if s.CutBy != "" {
		return s.CutBy
	}
	return strings.TrimPrefix(s.LostBy, simpkg.LostByHang)
}

func text(v any) string {
	if v == nil {
		return "none"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
