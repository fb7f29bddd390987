package check

import (
	"fmt"
	"strings"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// Invariant is a rule checked on every case. ID is stable; Rule is the one
// sentence the documentation gives it.
type Invariant struct {
	ID   string
	Rule string
}

// Ids of the generic invariants.
const (
	ReplyOrNamedLoss   = "reply-or-named-loss"
	ProgressNeedsToken = "progress-needs-token"
	ProgressBounded    = "progress-bounded"
)

// Invariants are the invariants that hold for any tool, in the order they
// are checked.
var Invariants = []Invariant{
	{ReplyOrNamedLoss, "Every call ends in one of three ways: its reply reaches the caller within the caller's request timeout (counted from the call, or from the last progress notification when the caller resets on progress), or it is an error result, or it is LOST with a named cause (the request timeout, or what the transport did)."},
	{ProgressNeedsToken, "No progress notification reaches a caller without a progress token it sent (contract §2 step 11)."},
	{ProgressBounded, "A call's progress notifications grow (one delivered again by a reopened stream counts once) and, when they carry a total, never exceed it."},
}

// lossCauses are the causes a lost call may name (sim.CallResult.LostBy).
var lossCauses = []string{sim.LostByTimeout, "proxy", "server write timeout", "connection dropped", sim.LostBySession, sim.LostByHang, sim.LostBySessionEnded}

// GenericInvariants returns the violations of the generic invariants in case c's run
// res, whose calls sums summarizes.
func GenericInvariants(c *scenario.Case, res *sim.Result, sums []results.CallSummary) []results.Violation {
	var vs []results.Violation
	add := func(id, format string, args ...any) {
		vs = append(vs, results.Violation{Invariant: id, Message: fmt.Sprintf(format, args...)})
	}
	specs := map[string]sim.CallerSpec{}
	for _, cs := range c.World().Callers {
		specs[cs.Name] = cs
	}
	for _, s := range sums {
		who := fmt.Sprintf("%s#%d", s.Caller, s.Index)
		cr := res.Call(s.Caller, s.Index)
		spec := specs[s.Caller]
		timeout := spec.RequestTimeoutMs
		if timeout == 0 {
			timeout = sim.DefaultRequestTimeoutMs
		}
		switch {
		case s.Lost:
			named := false
			for _, cause := range lossCauses {
				named = named || (s.LostBy != "" && strings.Contains(s.LostBy, cause))
			}
			if !named {
				add(ReplyOrNamedLoss, "%s: lost at %d ms with no named cause (%q)", who, s.EndMs, s.LostBy)
			}
		case !s.IsError && timeout > 0 && cr != nil:
			from := s.StartMs
			if spec.ResetOnProgress && spec.Progress {
				for _, n := range cr.ProgressNotes {
					if n.AtMs <= s.EndMs {
						from = max(from, n.AtMs)
					}
				}
			}
			if s.EndMs-from > timeout {
				add(ReplyOrNamedLoss, "%s: received at %d ms, %d ms after %d ms, past the caller's %d ms request timeout", who, s.EndMs, s.EndMs-from, from, timeout)
			}
		}
		if cr == nil {
			continue
		}
		var last *sim.ProgressNote
		seen := map[[2]float64]bool{}
		for i := range cr.ProgressNotes {
			n := &cr.ProgressNotes[i]
			if key := [2]float64{n.Progress, n.Total}; seen[key] {
				continue // delivered again (a reopened stream): counts once
			} else {
				seen[key] = true
			}
			if n.Total > 0 && n.Progress > n.Total {
				add(ProgressBounded, "%s: progress %.0f above its total %.0f at %d ms", who, n.Progress, n.Total, n.AtMs)
			}
			if last != nil && n.Progress <= last.Progress {
				add(ProgressBounded, "%s: progress %.0f at %d ms after %.0f: it must grow", who, n.Progress, n.AtMs, last.Progress)
			}
			last = n
		}
	}
	for _, p := range res.StrayProgress {
		add(ProgressNeedsToken, "%s received a progress notification at %d ms with a token it did not send (%s)", p.Caller, p.AtMs, p.Token)
	}
	return vs
}
