package scenarios

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/waittool"
)

// World builds the sim.World of a case.
func (c *Case) World() sim.World {
	sc := c.Scenario
	w := sim.World{Name: c.ID, NoBridge: sc.NoBridge, HorizonMs: sc.HorizonMs, Seed: uint64(sc.Seed), Transport: sc.Transport.sim(), ToolCapMs: sc.CapMs}
	if t := sc.Timers; t != nil {
		w.Timers = sim.TimerScript{LateMs: t.LateMs, JitterMs: t.JitterMs}
	}
	if b := sc.Bridge; b != nil {
		w.Bridge.JitterMs = b.JitterMs
		w.Bridge.List = steps(b.List)
		w.Bridge.Read = steps(b.Read)
		if b.TimeoutMs != nil {
			w.Bridge.TimeoutMs = b.TimeoutMs.Ms
			if b.TimeoutMs.None {
				w.Bridge.TimeoutMs = -1
			}
		}
		if b.CacheMs != nil {
			w.Bridge.CacheMs = *b.CacheMs
			if *b.CacheMs == 0 {
				w.Bridge.CacheMs = -1
			}
		}
		for _, h := range b.Congestion {
			w.Bridge.Congestion = append(w.Bridge.Congestion, sim.Hold{AtMs: h.AtMs, HoldMs: h.HoldMs})
		}
	}
	for _, a := range sc.Agents {
		msgs := append([]string(nil), a.Messages...)
		if g := a.Generate; g != nil {
			for i := 1; i <= g.Count; i++ {
				head := fmt.Sprintf("%s-%03d:", a.ID, i)
				body := strings.Repeat("x", max(0, g.Chars-len(head)))
				msgs = append(msgs, (head + body)[:g.Chars])
			}
		}
		w.Agents = append(w.Agents, sim.AgentSpec{ID: a.ID, State: a.State, Messages: msgs})
	}
	for _, ch := range sc.Changes {
		w.Changes = append(w.Changes, sim.Change{AtMs: ch.AtMs, Op: sim.ChangeOp(ch.Op), ID: ch.ID, State: ch.State, Messages: ch.Messages})
	}
	for _, cl := range sc.Callers {
		w.Callers = append(w.Callers, callerSpec(cl))
	}
	return w
}

func steps(in []Step) []sim.Step {
	out := make([]sim.Step, len(in))
	for i, s := range in {
		out[i] = sim.Step{LatencyMs: s.LatencyMs, Stall: s.Stall, Err: s.Error, Reject: s.Reject}
		if s.Outputs != nil {
			out[i].Outputs = []waittool.AgentOutput{}
			for _, o := range s.Outputs {
				out[i].Outputs = append(out[i].Outputs, waittool.AgentOutput{SessionID: o.ID, Messages: append([]string{}, o.Messages...)})
			}
		}
	}
	return out
}

var reproEscape = regexp.MustCompile(`[\[\]().*+?^$|{}\\]`)

// DefaultTable is the table TestTable runs without -waitsim.paths, relative
// to the module root.
const DefaultTable = "scenarios/table/"

// Repro is the one command line, run from the module root, that re-runs just
// case id from file (a path relative to the module root, or absolute).
func Repro(id, file string) string {
	line := fmt.Sprintf("go test ./scenarios/ -count=1 -run '^TestTable$/^%s$'", reproEscape.ReplaceAllString(id, `\$0`))
	if strings.HasPrefix(filepath.ToSlash(file), DefaultTable) {
		return line
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join("..", file) // go test runs in scenarios/
	}
	return line + " -args -waitsim.paths=" + file
}

// Run runs the case in a synctest bubble under t and checks its expectations
// and every invariant. It does not fail t; the verdict is in the result.
func (c *Case) Run(t *testing.T) CaseResult {
	t.Helper()
	start := time.Now()
	res := sim.RunWorld(t, c.World())
	out := Summarize(c, res)
	out.WallMs = float64(time.Since(start).Microseconds()) / 1000
	return out
}

// Summarize turns a world result into a CaseResult, checking expectations and
// invariants.
func Summarize(c *Case, res *sim.Result) CaseResult {
	out := CaseResult{ID: c.ID, File: c.File, Line: c.Line, Protects: c.Protects, Verdict: VerdictPass,
		Requests: len(res.Requests), EndMs: res.EndMs, TraceHash: res.Hash, Timeline: res.Timeline,
		Trace: res.Trace, BridgeReqs: res.Requests, Repro: Repro(c.ID, c.File)}
	for _, e := range res.Events {
		out.ToolEvents = append(out.ToolEvents, ToolEvent{CallID: e.Call.ID, Kind: string(e.Kind),
			AtMs: e.At.Sub(sim.Epoch).Milliseconds(), Detail: e.Detail, CostMs: e.CostMs,
			StartedMs: e.Call.StartedAt.Sub(sim.Epoch).Milliseconds(), DeadlineMs: e.Call.Deadline.Sub(sim.Epoch).Milliseconds()})
	}
	for _, cr := range res.Calls {
		out.Calls = append(out.Calls, summarizeCall(cr, res))
	}
	annotateWire(c, out.Calls, res)
	if res.Err != "" {
		out.Verdict, out.Error = VerdictError, res.Err
		return out
	}
	out.Failures = checkExpect(c, res, out.Calls)
	out.Violation = checkInvariants(c, res, out.Calls)
	if len(out.Failures) > 0 || len(out.Violation) > 0 {
		out.Verdict = VerdictFail
	}
	return out
}

func summarizeCall(cr sim.CallResult, res *sim.Result) CallSummary {
	s := CallSummary{Caller: cr.Caller, Index: cr.Index, CallID: cr.CallID, StartMs: cr.StartMs, EndMs: cr.EndMs,
		Lost: cr.Lost, IsError: cr.IsError || cr.RPCError != "", TimeoutMs: intArg(cr.Args, "timeoutMs", 30000)}
	if cr.Reply != nil {
		s.Reply = cr.Raw
	}
	if cr.CallID == 0 {
		return s
	}
	for _, r := range res.Requests {
		if r.CallID != cr.CallID {
			continue
		}
		switch r.Op {
		case "list":
			s.Lists++
		case "read":
			s.Reads++
		}
		if r.CompletedMs < 0 || r.CompletedMs > cr.EndMs {
			s.Stranded++
		}
	}
	return s
}

// intArg returns the integer argument name of a call's args (a JSON number,
// or an int set by a followed chain), def when absent, or 0 when it is not an
// integer (a call the schema rejected).
func intArg(args map[string]any, name string, def int64) int64 {
	v, ok := args[name]
	if !ok {
		return def
	}
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case int:
		return int64(x)
	case int64:
		return x
	}
	return 0
}
