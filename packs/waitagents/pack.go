package waitagents

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/check"
	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim/timeline"
	"github.com/waitsim/waitsim/waittool"
)

// Pack is the orchestration_wait_agents contract pack (check.Pack): worlds
// with the simulated bridge of contract §3, and on top of the generic
// checks the contract's invariants (invariants.go) and its reference model
// (model.go), for one implementation of the contract.
type Pack struct {
	impl *Impl
}

// New is the pack for implementation impl.
func New(impl Impl) *Pack { return &Pack{impl: &impl} }

// Reference is the pack for the reference tool, waittool.
func Reference() *Pack { return &Pack{impl: ReferenceImpl} }

// Name implements check.Pack.
func (p *Pack) Name() string { return scenario.PackWaitAgents }

// Impl is the implementation the pack checks.
func (p *Pack) Impl() *Impl { return p.impl }

// contract is the contract's figures the implementation follows.
func (p *Pack) contract() Contract { return p.impl.Contract.withDefaults() }

// LoadOptions implements check.Pack: the implementation's published input
// schema checks callers' args.
func (p *Pack) LoadOptions() (scenario.Options, error) {
	s, err := p.inputSchema()
	if err != nil {
		return scenario.Options{}, err
	}
	return scenario.Options{Pack: scenario.PackWaitAgents, DefaultTool: waittool.ToolName,
		Tools: map[string]*jsonschema.Schema{waittool.ToolName: s}}, nil
}

// inputSchema is the implementation's published input schema: the
// reference's own, or the one another implementation's server lists.
func (p *Pack) inputSchema() (*jsonschema.Schema, error) {
	if p.impl == ReferenceImpl {
		return waittool.InputSchema()
	}
	tools, err := check.ListTools(func(s *mcp.Server) {
		if p.impl.RegisterGated != nil {
			p.impl.RegisterGated(s, nil, clock.New())
		} else {
			p.impl.Register(s, nil)
		}
	})
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		if t.Name == waittool.ToolName {
			return check.InputSchema(t)
		}
	}
	return nil, fmt.Errorf("implementation %q registers no tool %s", p.impl.Name, waittool.ToolName)
}

// Run implements check.Pack: it runs case c and checks its expectations, the
// generic invariants, the contract's and the reference model.
func (p *Pack) Run(t *testing.T, c *scenario.Case) results.CaseResult {
	t.Helper()
	start := time.Now()
	if why := p.skip(c); why != "" {
		out := results.CaseResult{ID: c.ID, File: c.File, Line: c.Line, Protects: c.Protects, Pack: p.Name(),
			Verdict: results.VerdictSkip, Error: why}
		return out
	}
	out := p.Check(c, RunWorld(t, p.World(c)))
	out.WallMs = check.WallMs(start)
	return out
}

// Check is case c's result from its run res: the summary (Summarize), then
// its expectations, the generic invariants, the contract's and the
// reference model.
func (p *Pack) Check(c *scenario.Case, res *Result) results.CaseResult {
	out := p.Summarize(c, res)
	if out.Verdict != results.VerdictError {
		out.Failures = check.Expectations(c, res.Result, out.Calls)
		out.Violation = append(check.GenericInvariants(c, res.Result, out.Calls), p.checkInvariants(c, res, out.Calls)...)
		check.Verdict(&out)
	}
	return out
}

// skip says why case c does not apply to the implementation ("" when it
// does): late timers need one that reads the gated clock; another cap than
// its own needs one that can take it (the reference's CapMs).
func (p *Pack) skip(c *scenario.Case) string {
	if p.impl == ReferenceImpl {
		return ""
	}
	if c.Scenario.Timers != nil && !p.impl.gated() {
		return fmt.Sprintf("timers: late timers need an implementation that reads the clock it is handed (Impl.RegisterGated); %s reads package time", p.impl.Name)
	}
	if c.Scenario.CapMs != 0 && c.Scenario.CapMs != p.contract().CapMs {
		return fmt.Sprintf("capMs %d: a replay of another cap; %s caps at %d ms", c.Scenario.CapMs, p.impl.Name, p.contract().CapMs)
	}
	return ""
}

// World is the world of case c for the pack's implementation.
func (p *Pack) World(c *scenario.Case) World {
	sc := c.Scenario
	gw := c.World()
	w := World{Name: gw.Name, Callers: gw.Callers, HorizonMs: gw.HorizonMs, Transport: gw.Transport, Seed: gw.Seed,
		NoBridge: sc.NoBridge, CapMs: sc.CapMs}
	if p.impl != ReferenceImpl {
		w.Impl = p.impl
	}
	if t := sc.Timers; t != nil {
		w.Timers = timeline.TimerScript{LateMs: t.LateMs, JitterMs: t.JitterMs}
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
			w.Bridge.Congestion = append(w.Bridge.Congestion, bridge.Hold{AtMs: h.AtMs, HoldMs: h.HoldMs})
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
		w.Agents = append(w.Agents, AgentSpec{ID: a.ID, State: a.State, Messages: msgs})
	}
	for _, ch := range sc.Changes {
		w.Changes = append(w.Changes, Change{AtMs: ch.AtMs, Op: ChangeOp(ch.Op), ID: ch.ID, State: ch.State, Messages: ch.Messages})
	}
	return w
}

// steps turns a scenario's bridge steps into the bridge's.
func steps(in []scenario.Step) []bridge.Step {
	out := make([]bridge.Step, len(in))
	for i, s := range in {
		out[i] = bridge.Step{LatencyMs: s.LatencyMs, Stall: s.Stall, Err: s.Error, Panic: s.Panic, Reject: s.Reject}
		if s.Outputs != nil {
			out[i].Outputs = []waittool.AgentOutput{}
			for _, o := range s.Outputs {
				out[i].Outputs = append(out[i].Outputs, waittool.AgentOutput{SessionID: o.ID, Messages: append([]string{}, o.Messages...)})
			}
		}
	}
	return out
}

// Summarize is case c's result from its run res: the generic summary
// (check.Summarize), and what the pack knows of each call: its timeoutMs,
// its bridge requests (lists, reads, those still in flight at its reply),
// the cap, and a brief of its reply; the case's bridge requests and the
// reference tool's steps.
func (p *Pack) Summarize(c *scenario.Case, res *Result) results.CaseResult {
	out := check.Summarize(c, res.Result, p.Name())
	k := p.contract()
	out.Requests = len(res.Requests)
	out.BridgeReqs = Records(res.Requests)
	for _, e := range res.Events {
		out.ToolEvents = append(out.ToolEvents, results.ToolEvent{CallID: e.Call.ID, Kind: string(e.Kind),
			AtMs: e.At.Sub(timeline.Epoch).Milliseconds(), Detail: e.Detail, CostMs: e.CostMs,
			StartedMs: e.Call.StartedAt.Sub(timeline.Epoch).Milliseconds(), DeadlineMs: e.Call.Deadline.Sub(timeline.Epoch).Milliseconds()})
	}
	for i := range out.Calls {
		s := &out.Calls[i]
		cr := res.Call(s.Caller, s.Index)
		s.TimeoutMs = intArg(cr.Args, "timeoutMs", k.DefaultTimeoutMs)
		if s.Wire != nil {
			s.Wire.CapMs = p.capOf(c)
		}
		s.Brief = brief(*s)
		if s.CallID == 0 {
			continue
		}
		for _, r := range res.Requests {
			if r.CallID != s.CallID {
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
	}
	return out
}

// brief renders the key fields of a reply for the result table.
func brief(c results.CallSummary) string {
	if c.Reply == nil {
		return ""
	}
	var out []string
	if ok, _ := c.Reply["ok"].(bool); !ok {
		out = append(out, "ok=false")
	}
	out = append(out, fmt.Sprintf("done=%v", c.Reply["done"]))
	if v, ok := c.Reply["remainingMs"]; ok {
		out = append(out, fmt.Sprintf("remainingMs=%v", v))
	}
	for _, f := range []string{"agentsUnavailable", "outputsUnavailable", "truncated"} {
		if _, ok := c.Reply[f]; ok {
			out = append(out, f)
		}
	}
	if v, ok := c.Reply["bridgeError"]; ok {
		out = append(out, fmt.Sprintf("bridgeError=%q", v))
	}
	return strings.Join(out, " ")
}

// Records are the bridge's requests as the results file records them.
func Records(reqs []bridge.Request) []results.BridgeRequest {
	var out []results.BridgeRequest
	for _, r := range reqs {
		out = append(out, r.BridgeRequest)
	}
	return out
}
