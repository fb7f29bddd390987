package waitagents

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/sim/timeline"
	"github.com/waitsim/waitsim/waittool"
)

// Contract holds the figures of the wait_agents contract (docs/contract.md
// §2, Constants) that an implementation is checked against, so that one
// whose cap is 60 s still gets the contract's checks. Times in ms.
type Contract struct {
	// CapMs bounds one call (CallCapMs).
	CapMs int64 `json:"capMs"`
	// MinTimeoutMs and MaxTimeoutMs bound timeoutMs, and so remainingMs.
	MinTimeoutMs int64 `json:"minTimeoutMs"`
	MaxTimeoutMs int64 `json:"maxTimeoutMs"`
	// DefaultTimeoutMs is timeoutMs when a call leaves it out.
	DefaultTimeoutMs int64 `json:"defaultTimeoutMs"`
	// MinPollIntervalMs is the schema minimum of pollIntervalMs.
	MinPollIntervalMs int64 `json:"minPollIntervalMs"`
	// MachineDelayFloorMs is the least room the reserve keeps for the
	// machine once a call measured any delay (step 12).
	MachineDelayFloorMs int64 `json:"machineDelayFloorMs"`
}

// ReferenceContract is the contract as docs/contract.md states it, and as
// the reference tool (waittool) implements it.
var ReferenceContract = Contract{
	CapMs:               waittool.CallCapMs,
	MinTimeoutMs:        waittool.MinTimeoutMs,
	MaxTimeoutMs:        waittool.MaxTimeoutMs,
	DefaultTimeoutMs:    30000,
	MinPollIntervalMs:   waittool.MinPollIntervalMs,
	MachineDelayFloorMs: waittool.MachineDelayFloorMs,
}

// withDefaults fills the zero fields of c from ReferenceContract.
func (c Contract) withDefaults() Contract {
	r := ReferenceContract
	for _, f := range []struct{ dst, def *int64 }{
		{&c.CapMs, &r.CapMs}, {&c.MinTimeoutMs, &r.MinTimeoutMs}, {&c.MaxTimeoutMs, &r.MaxTimeoutMs},
		{&c.DefaultTimeoutMs, &r.DefaultTimeoutMs}, {&c.MinPollIntervalMs, &r.MinPollIntervalMs},
		{&c.MachineDelayFloorMs, &r.MachineDelayFloorMs},
	} {
		if *f.dst == 0 {
			*f.dst = *f.def
		}
	}
	return c
}

// Impl is an implementation of the wait_agents contract under test.
type Impl struct {
	// Name names it in messages ("waittool" for the reference).
	Name string
	// Register registers the implementation's tool on s. It reads the run
	// through bridge (contract §3; nil when the world has no bridge),
	// passing each read the context of the tool call it serves (or one
	// derived from it), and reads time from package time, which the world
	// makes virtual. A scenario that makes the tool's timers late (timers:)
	// does not apply to it.
	Register func(s *mcp.Server, bridge waittool.Bridge)
	// RegisterGated, instead of Register, registers an implementation that
	// reads time from the clock it is handed: the world's gated clock, whose
	// timers a scenario may make late.
	RegisterGated func(s *mcp.Server, bridge waittool.Bridge, clk clock.Clock)
	// Contract is the contract's figures the implementation follows; zero
	// fields are ReferenceContract's.
	Contract Contract
}

// gated reports whether the implementation reads the clock it is handed.
func (i *Impl) gated() bool { return i.RegisterGated != nil }

// AgentSpec is a child agent present in the run at virtual time 0.
type AgentSpec struct {
	ID       string   `json:"id"`
	State    string   `json:"state"`
	Messages []string `json:"messages,omitempty"`
}

// ChangeOp is what a roster Change does.
type ChangeOp string

// Roster change operations (contract §3: children changing state, joining and
// leaving a run while a wait is open).
const (
	OpState ChangeOp = "state" // set the agent's state (and append Messages)
	OpJoin  ChangeOp = "join"  // add the agent with State and Messages
	OpLeave ChangeOp = "leave" // remove the agent
)

// Change is one roster change at virtual time AtMs (ms). Changes due at an
// instant apply before bridge completions at that instant.
type Change struct {
	AtMs     int64    `json:"atMs"`
	Op       ChangeOp `json:"op"`
	ID       string   `json:"id"`
	State    string   `json:"state,omitempty"`
	Messages []string `json:"messages,omitempty"`
}

// World is a world of the wait_agents contract: the bridge script, the run's
// roster and its changes, and the callers (sim.World for the rest).
type World struct {
	Name      string             `json:"name"`
	NoBridge  bool               `json:"noBridge,omitempty"` // register the tool without a bridge
	Bridge    bridge.Script      `json:"bridge"`
	Agents    []AgentSpec        `json:"agents,omitempty"`
	Changes   []Change           `json:"changes,omitempty"`
	Callers   []sim.CallerSpec   `json:"callers"`
	HorizonMs int64              `json:"horizonMs,omitempty"`
	Transport *sim.TransportSpec `json:"transport,omitempty"`
	// CapMs, when > 0, replaces the implementation's per-call cap (the
	// reference's waittool.Options.CapMs): 90000 replays the first version.
	CapMs  int64                `json:"capMs,omitempty"`
	Timers timeline.TimerScript `json:"timers,omitzero"`
	Seed   uint64               `json:"seed,omitempty"`
	// WrapBridge, if set, wraps the simulated bridge before the tool sees it
	// (e.g. to inject a panic).
	WrapBridge  func(waittool.Bridge) waittool.Bridge `json:"-"`
	WallTimeout time.Duration                         `json:"-"`
	// Impl is the implementation under test; nil is the reference tool.
	Impl *Impl `json:"-"`
}

// Result is a world's outcome with the pack's records: every bridge request
// and, for the reference tool, every step it reported (waittool.Event).
type Result struct {
	*sim.Result
	Requests []bridge.Request
	Events   []waittool.Event
}

// ReferenceImpl is the reference tool, waittool, as an Impl: it takes the
// gated clock and reports its steps (waittool.Options.Observer), which the
// world writes on the trace.
var ReferenceImpl = &Impl{Name: "waittool", RegisterGated: func(s *mcp.Server, b waittool.Bridge, clk clock.Clock) {
	waittool.Register(s, waittool.Options{Clock: clk, Bridge: b})
}}

// RunWorld runs w in a fresh synctest bubble under t (sim.RunWorld).
func RunWorld(t *testing.T, w World) *Result {
	t.Helper()
	pr := &packRun{w: w}
	res := sim.RunWorld(t, pr.simWorld())
	return pr.result(res)
}

// Run runs w inside the caller's synctest bubble (sim.Run); onKernel, if not
// nil, is given the kernel first.
func Run(w World, onKernel func(*timeline.Kernel)) *Result {
	pr := &packRun{w: w}
	res := sim.Run(pr.simWorld(), onKernel)
	return pr.result(res)
}

// packRun is one run of a World: the pack's side of it.
type packRun struct {
	w      World
	bridge *bridge.Bridge

	mu        sync.Mutex
	events    []waittool.Event
	lastStart map[*mcp.ServerSession]uint64 // latest call id started per session
	requests  []bridge.Request
}

func (pr *packRun) impl() *Impl {
	if pr.w.Impl == nil {
		return ReferenceImpl
	}
	return pr.w.Impl
}

// simWorld is the sim.World of pr.w.
func (pr *packRun) simWorld() sim.World {
	w := pr.w
	impl := pr.impl()
	c := impl.Contract.withDefaults()
	sw := sim.World{Name: w.Name, Callers: w.Callers, HorizonMs: w.HorizonMs, Transport: w.Transport,
		Timers: w.Timers, Seed: w.Seed, WallTimeout: w.WallTimeout, DefaultTool: waittool.ToolName,
		Next: followRemaining, Retry: retryBudget(c), ReplyText: replyText}
	if !impl.gated() {
		sw.Clock = sim.ClockBubble
	}
	sw.Tool = func(env *sim.Env) error {
		var b waittool.Bridge
		if !w.NoBridge {
			pr.bridge = NewWorldBridge(env.Kernel, w)
			capMs := c.CapMs
			if w.CapMs > 0 {
				capMs = w.CapMs
			}
			pr.bridge.SetLimits(capMs, c.MinPollIntervalMs)
			b = pr.bridge
			if w.WrapBridge != nil {
				b = w.WrapBridge(pr.bridge)
			}
			env.OnShutdown(pr.bridge.Shutdown)
			env.OnEnd(func() { pr.end(env.Kernel) })
		}
		if impl == ReferenceImpl {
			env.SetCallIDs(pr.lastCallOf)
			waittool.Register(env.Server, waittool.Options{Clock: env.Clock, Bridge: b,
				Observer: func(e waittool.Event) { pr.observe(env.Kernel, e) }, CapMs: w.CapMs})
			return nil
		}
		if w.CapMs > 0 && w.CapMs != c.CapMs {
			return fmt.Errorf("implementation %q caps at %d ms; a world of another cap (%d ms) does not apply to it", impl.Name, c.CapMs, w.CapMs)
		}
		switch {
		case impl.RegisterGated != nil:
			impl.RegisterGated(env.Server, b, env.Clock)
		case impl.Register != nil:
			impl.Register(env.Server, b)
		default:
			return fmt.Errorf("implementation %q has neither Register nor RegisterGated", impl.Name)
		}
		return nil
	}
	return sw
}

// end records the bridge's requests, and writes the requests still in
// flight when the world ended on the trace.
func (pr *packRun) end(k *timeline.Kernel) {
	pr.requests = pr.bridge.Requests()
	for _, r := range pr.requests {
		if r.Op != "hold" && r.CompletedMs < 0 && r.SharedWith == 0 {
			k.Trace.Addf("bridge", "%s #%d stranded: still in flight at the end", r.Op, r.ID)
		}
	}
}

func (pr *packRun) result(res *sim.Result) *Result {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return &Result{Result: res, Requests: pr.requests, Events: append([]waittool.Event(nil), pr.events...)}
}

// observe receives the reference tool's steps (waittool.Options.Observer)
// and writes them on the trace.
func (pr *packRun) observe(k *timeline.Kernel, e waittool.Event) {
	pr.mu.Lock()
	pr.events = append(pr.events, e)
	if e.Kind == waittool.EvStart && e.Call.Session != nil && e.Call.ID > pr.lastStart[e.Call.Session] {
		if pr.lastStart == nil {
			pr.lastStart = map[*mcp.ServerSession]uint64{}
		}
		pr.lastStart[e.Call.Session] = e.Call.ID
	}
	pr.mu.Unlock()
	actor := fmt.Sprintf("tool:%d", e.Call.ID)
	switch e.Kind {
	case waittool.EvStart:
		k.Trace.Addf(actor, "start: capped %s ms, deadline %d ms", e.Detail, e.Call.Deadline.Sub(timeline.Epoch).Milliseconds())
	case waittool.EvSleep:
		k.Trace.Addf(actor, "sleep %s ms (cost %d ms)", e.Detail, e.CostMs)
	case waittool.EvReply:
		k.Trace.Addf(actor, "reply built")
	default:
		k.Trace.Addf(actor, "%s %s (cost %d ms)", e.Kind, e.Detail, e.CostMs)
	}
}

// lastCallOf is the reference tool's id of the latest call started on
// session (sim.Env.SetCallIDs).
func (pr *packRun) lastCallOf(s *mcp.ServerSession) uint64 {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.lastStart[s]
}

// NewWorldBridge returns the bridge of world w on timeline s: w's bridge
// script (its latency jitter drawn from w.Seed), the agents present at 0, and
// w's roster changes scheduled at their times (contract §3). Callers are not
// part of it.
func NewWorldBridge(s timeline.Scheduler, w World) *bridge.Bridge {
	b := bridge.New(s, w.Bridge)
	b.SetSeed(w.Seed)
	for _, a := range w.Agents {
		b.Present(a.ID, a.State, a.Messages)
	}
	for _, c := range w.Changes {
		c := c
		s.At(c.AtMs, "change", func() {
			switch c.Op {
			case OpJoin:
				b.Join(c.ID, c.State, c.Messages)
			case OpLeave:
				b.Leave(c.ID)
			default:
				b.SetState(c.ID, c.State, c.Messages)
			}
		})
	}
	return b
}

// followRemaining is a followed chain's rule (contract §2 step 9): call
// again with timeoutMs = remainingMs while a reply carries one and is not
// done (sim.World.Next).
func followRemaining(prev sim.CallResult) (map[string]any, bool) {
	if prev.Raw["done"] == true {
		return nil, false
	}
	rem, ok := prev.Raw["remainingMs"].(float64)
	if !ok {
		return nil, false
	}
	next := maps.Clone(prev.Args)
	next["timeoutMs"] = int(rem)
	return next, true
}

// retryBudget is a retry's rule after the transport lost a call (contract
// §4): call again with what is left of the call's budget, timeoutMs minus
// the time the lost call took, unless that is below the minimum timeoutMs,
// or the transport failed at once (a session given up: calling again would
// fail the same way) (sim.World.Retry).
func retryBudget(c Contract) func(sim.CallResult) (map[string]any, bool, string) {
	return func(lost sim.CallResult) (map[string]any, bool, string) {
		took := lost.EndMs - lost.StartMs
		left := intArg(lost.Args, "timeoutMs", c.DefaultTimeoutMs) - took
		if left < c.MinTimeoutMs || took == 0 {
			return nil, false, fmt.Sprintf("%d ms of the budget left after %d ms", left, took)
		}
		next := maps.Clone(lost.Args)
		next["timeoutMs"] = left
		return next, true, ""
	}
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
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
	}
	return 0
}

// replyText renders a reply's fields in a stable order on the trace,
// leaving out agents' and outputs' contents except counts and states
// (sim.World.ReplyText).
func replyText(raw map[string]any) string {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := raw[k]
		switch k {
		case "agents":
			var as []string
			for _, a := range v.([]any) {
				m, _ := a.(map[string]any)
				as = append(as, fmt.Sprintf("%v=%v", m["sessionId"], m["state"]))
			}
			parts = append(parts, "agents=["+strings.Join(as, " ")+"]")
		case "outputs":
			parts = append(parts, fmt.Sprintf("outputs=%d", len(v.([]any))))
		default:
			b, _ := json.Marshal(v)
			parts = append(parts, k+"="+string(b))
		}
	}
	return strings.Join(parts, " ")
}

// ReplyOf decodes a received reply (sim.CallResult.Raw's JSON) as the
// contract's reply; nil when the call has none.
func ReplyOf(cr *sim.CallResult) *waittool.Reply {
	if cr == nil || cr.StructuredJSON == nil {
		return nil
	}
	var rep waittool.Reply
	if err := json.Unmarshal(cr.StructuredJSON, &rep); err != nil {
		return nil
	}
	return &rep
}
