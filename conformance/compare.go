package conformance

import (
	"encoding/json"
	"fmt"
	"github.com/waitsim/waitsim/results"
	"math"
	"slices"
	"sort"
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
	// Mismatches lists every disagreement; empty means this call agrees.
	Mismatches []string `json:"mismatches,omitempty"`
}

// compare matches the calls of one real run to the simulation's by (caller,
// index): lost or received, error or not, every reply field exactly except
// remainingMs, and the resolve time, both within toleranceMs; a progress
// notification above its total is a mismatch too (contract §2 step 11).
func compare(sim []results.CallSummary, real []Observed, toleranceMs float64) []CallComparison {
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
		c := CallComparison{Caller: s.Caller, Index: s.Index, SimStartMs: s.StartMs, SimEndMs: s.EndMs, SimLost: s.Lost, SimReply: s.Reply}
		r := realBy[k]
		if r == nil {
			c.Mismatches = append(c.Mismatches, "the real client made no such call")
			out = append(out, c)
			continue
		}
		c.RealStartMs, c.RealEndMs, c.RealLost, c.RealReply, c.Progress = r.StartMs, r.EndMs, r.Lost, r.Reply, len(r.ProgressNotes)
		for _, n := range r.ProgressNotes {
			c.ProgressAtMs = append(c.ProgressAtMs, math.Round(n.AtMs*10)/10)
			c.ProgressMs = append(c.ProgressMs, n.Progress)
		}
		c.DiffMs = math.Round((r.EndMs-float64(s.EndMs))*10) / 10
		if s.Lost != r.Lost {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("lost: simulation %v, real %v", s.Lost, r.Lost))
		}
		realErr := r.IsError || r.RPCError != ""
		if s.IsError != realErr {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("error: simulation %v, real %v %s%s", s.IsError, realErr, r.ErrorText, r.RPCError))
		}
		if math.Abs(c.DiffMs) > toleranceMs {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("resolves at %.1f ms, simulation %d ms: off by %.1f ms, tolerance %.0f ms", r.EndMs, s.EndMs, c.DiffMs, toleranceMs))
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

func text(v any) string {
	if v == nil {
		return "none"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
