package check

import (
	"time"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// Summarize is the generic part of case c's result from its run res: the
// case, its trace, and each call as its caller saw it (results.CallSummary,
// with the world's dimensions of the survival matrix); the verdict is pass,
// or error when the world could not run. Checks come after it; a pack adds
// what it knows (e.g. the bridge's requests of each call).
func Summarize(c *scenario.Case, res *sim.Result, pack string) results.CaseResult {
	out := results.CaseResult{ID: c.ID, File: c.File, Line: c.Line, Protects: c.Protects, Pack: pack, Verdict: results.VerdictPass,
		EndMs: res.EndMs, TraceHash: res.Hash, Timeline: res.Timeline, Trace: res.Trace}
	w := c.World()
	specs := map[string]sim.CallerSpec{}
	for _, cs := range w.Callers {
		specs[cs.Name] = cs
	}
	for _, cr := range res.Calls {
		s := results.CallSummary{Caller: cr.Caller, Index: cr.Index, CallID: cr.CallID, StartMs: cr.StartMs, EndMs: cr.EndMs,
			Lost: cr.Lost, IsError: cr.IsError || cr.RPCError != "", LostBy: cr.LostBy, CutBy: cr.CutBy, Cut: cr.Cut,
			Progress: cr.Progress, WireDelayMs: cr.WireDelayMs}
		if cr.Raw != nil {
			s.Reply = cr.Raw
		}
		spec := specs[cr.Caller]
		t := spec.Transport
		if t == nil {
			t = w.Transport
		}
		d := &results.WireDims{Progress: spec.Progress, Mode: string(sim.ModeMemory),
			Profile: spec.Profile, Transport: t.Label()}
		if t.HTTP() {
			d.Mode, d.ProxyMs = string(t.Mode), t.IdleTimeoutMs
		}
		s.Wire = d
		out.Calls = append(out.Calls, s)
	}
	if res.Err != "" {
		out.Verdict, out.Error = results.VerdictError, res.Err
	}
	return out
}

// Verdict sets r's verdict from its failures and violations (an error
// stays an error).
func Verdict(r *results.CaseResult) {
	if r.Verdict == results.VerdictError {
		return
	}
	r.Verdict = results.VerdictPass
	if len(r.Failures) > 0 || len(r.Violation) > 0 {
		r.Verdict = results.VerdictFail
	}
}

// WallMs is the wall time since start in ms, for CaseResult.WallMs.
func WallMs(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }
