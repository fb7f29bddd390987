package waittool

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure Register. Clock is required; Bridge may be nil (the tool
// then replies ok=false, error "orchestration_unavailable"); Observer, when not
// nil, is called synchronously with every Event of every call.
type Options struct {
	Clock    clock.Clock
	Bridge   Bridge
	Observer func(Event)
	// CapMs, when > 0, replaces CallCapMs as the per-call cap (ms). It exists
	// for waitsim's worlds that replay an earlier version of the tool (the
	// first one capped at 90000 ms, contract §1); 0 is the contract's cap.
	CapMs int64
	// Machine measures the machine's delays inside a read (contract §2
	// step 12): machine.Twin() on a real clock; nil is ExactMachine.
	Machine Machine
}

// Register adds orchestration_wait_agents to server. It panics, like
// mcp.AddTool, if the schemas cannot be built or opts.Clock is nil. The
// published schemas are shared by every registration: they must not be modified.
func Register(server *mcp.Server, opts Options) {
	if opts.Clock == nil {
		panic("waittool: Options.Clock is nil")
	}
	in, out := publishedSchemas()
	t := &tool{opts: opts, machine: opts.Machine}
	if t.machine == nil {
		t.machine = ExactMachine{}
	}
	mcp.AddTool(server, &mcp.Tool{
		Name:         ToolName,
		Description:  Description,
		InputSchema:  in,
		OutputSchema: out,
	}, t.handle)
}

// published holds the schemas Register publishes, built once: one pointer
// each, so that an mcp.ServerOptions.SchemaCache shared by many servers
// resolves them only once.
var published struct {
	once    sync.Once
	in, out *jsonschema.Schema
}

func publishedSchemas() (in, out *jsonschema.Schema) {
	published.once.Do(func() {
		var err error
		if published.in, err = InputSchema(); err != nil {
			panic(err)
		}
		if published.out, err = OutputSchema(); err != nil {
			panic(err)
		}
	})
	return published.in, published.out
}

type tool struct {
	opts    Options
	machine Machine // opts.Machine, or ExactMachine
	calls   atomic.Uint64
	// late is the machine delay (ns) measured by the call that ended last
	// (contract §2 step 12): every call of the tool runs on the same machine, so
	// a call starts its reserve from it. The latest call's own figure, not a
	// running maximum: it follows the machine's load as the load changes.
	late atomic.Int64
}

// outcome is how one raced bridge read ended (contract §2 steps 3–4).
type outcome int

const (
	inTime    outcome = iota // resolved at t ≤ deadline, successfully
	failed                   // resolved at t ≤ deadline with an error
	expired                  // lost the race to the deadline; left in flight
	notIssued                // now + cost > deadline: never issued
	canceled                 // the caller went away
)

// call is the state of one call of the tool.
type call struct {
	t        *tool
	ctx      context.Context // carries the CallInfo; passed to the bridge
	info     CallInfo
	deadline time.Time
	cost     time.Duration // contract §2 step 2: longest read so far
	lastErr  error
	// late is the largest delay of the machine this call has measured so
	// far (contract §2 step 12), like cost: the lateness of a timer wake (due at
	// t, woke at t + l), the slip at a read's issue, the wait of a read's
	// goroutine for a CPU. inherited is what the tool's previous call
	// measured; the reserve uses the larger of the two.
	late, inherited time.Duration
	// The plan (step 12): anchor is the instant the latest sleep was due
	// (startedAt before the first), spent the bridge time of the reads
	// issued since; see slip.
	anchor time.Time
	spent  time.Duration
}

func (c *call) now() time.Time { return c.t.opts.Clock.Now() }

func (c *call) emit(kind EventKind, detail string) {
	if c.t.opts.Observer != nil {
		c.t.opts.Observer(Event{Call: c.info, Kind: kind, At: c.now(), Detail: detail, CostMs: c.cost.Milliseconds()})
	}
}

// observe records the duration of a read into the cost (contract §2 step 2).
func (c *call) observe(d time.Duration) {
	if d > c.cost {
		c.cost = d
	}
}

// woke records the lateness of a timer wake that was due at due (contract §2
// step 12) into late.
func (c *call) woke(due time.Time) {
	c.late = max(c.late, c.now().Sub(due))
}

// machine is the reserve's room for the machine's delay (contract §2 step 12):
// the larger of the call's own late and the inherited figure; once any delay
// has been measured (the clock is not exact), at least MachineDelayFloorMs.
func (c *call) machine() time.Duration {
	m := max(c.late, c.inherited)
	if m > 0 {
		m = max(m, MachineDelayFloorMs*time.Millisecond)
	}
	return m
}

// slip is the machine's delay in the call's plan (contract §2 step 12): the time
// since the plan's anchor (the instant the latest sleep was due, or the start)
// that was spent neither sleeping as planned nor waiting for the bridge —
// a timer that woke late, a goroutine that was scheduled late, the tool's own
// work. It is 0 on an exact clock.
func (c *call) slip() time.Duration { return max(c.now().Sub(c.anchor)-c.spent, 0) }

// limit returns now and the instant a read is issued and raced against
// (contract §2 step 12): the deadline moved by the call's slip, which it
// records into late.
func (c *call) limit() (now, limit time.Time) {
	now, slip := c.now(), c.slip()
	c.late = max(c.late, slip)
	return now, c.deadline.Add(slip)
}

type readResult[T any] struct {
	v     T
	err   error
	start time.Time     // when the read's goroutine began the bridge call
	d     time.Duration // the bridge's time: its share of start to the result
}

// raceRead issues one bridge read if it is predicted to finish in time
// (contract §2 step 4) and races it against the deadline (step 3). A result ready
// at the deadline instant is in time: after waking on the deadline, a result
// that is already there is taken.
//
// Only planned sleeps and the bridge's time count against the deadline (step
// 12): the read is issued, and raced, against the deadline moved by the
// call's slip, so the machine's delays delay the reply by themselves and never
// cost a read.
func raceRead[T any](c *call, what string, read func(context.Context) (T, error)) (T, outcome) {
	var zero T
	now, limit := c.limit()
	if now.Add(c.cost).After(limit) {
		c.emit(EvNotIssued, what)
		return zero, notIssued
	}
	clk := c.t.opts.Clock
	ch := make(chan readResult[T], 1)
	begun := make(chan struct{})
	c.emit(EvIssue, what)
	var meter Meter // the machine beside the read (step 12), set before begun
	go func() {
		r := readResult[T]{start: clk.Now()}
		m := c.t.machine.Read(clk, r.start)
		meter = m
		close(begun)
		defer func() {
			if p := recover(); p != nil {
				r.err = fmt.Errorf("bridge panic: %v", p)
			}
			// The bridge's time: from the read's start, less the machine's
			// delay measured meanwhile (none on an exact clock).
			r.d = m.Bridge(clk.Since(r.start))
			ch <- r
		}()
		r.v, r.err = read(c.ctx)
	}()
	// The race starts when the bridge call does: a goroutine that waited for
	// a CPU has cost the bridge nothing, so its wait moves the limit (step 12).
	select {
	case <-begun:
	case <-c.ctx.Done():
		return zero, canceled
	}
	now, limit = c.limit()
	// Due at limit; on a real clock later by the machine's delay measured
	// beside the read (step 12). Its wake's lateness is the machine's too.
	timer := meter.Race(clk, limit, now)
	defer timer.Stop()
	var r readResult[T]
	select {
	case r = <-ch:
	case <-timer.C:
		c.woke(limit)
		select {
		case r = <-ch: // ready at the same instant: in time
		default:
			d := clk.Since(now)
			c.observe(d)
			c.spent += d
			c.emit(EvLost, what)
			return zero, expired
		}
	case <-c.ctx.Done():
		return zero, canceled
	}
	c.observe(r.d)
	c.spent += r.d
	if r.err != nil {
		c.lastErr = r.err
		c.emit(EvFailed, what)
		return zero, failed
	}
	c.emit(EvInTime, what)
	return r.v, inTime
}

// sleep waits d on the clock and measures how late it woke (contract §2 step
// 12); it returns false if the caller went away.
func (c *call) sleep(d time.Duration) bool {
	c.emit(EvSleep, fmt.Sprint(d.Milliseconds()))
	due := c.now().Add(d)
	timer := c.t.opts.Clock.Timer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		c.woke(due)
		c.anchor, c.spent = due, 0
		return true
	case <-c.ctx.Done():
		return false
	}
}

func anyActive(agents []Agent) bool {
	for _, a := range agents {
		if Active(a.State) {
			return true
		}
	}
	return false
}

// scope keeps the agents named in ids, in list order; all of them when ids is
// empty (contract §2 step 7: applied to every list). It never returns nil.
func scope(agents []Agent, ids []string) []Agent {
	out := make([]Agent, 0, len(agents))
	for _, a := range agents {
		if len(ids) == 0 || contains(ids, a.SessionID) {
			out = append(out, a)
		}
	}
	return out
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// withDefaults fills zero fields with the schema defaults, for a handler that
// is reached without the SDK's defaulting.
func withDefaults(in Input) Input {
	fields := []*int{&in.TimeoutMs, &in.PollIntervalMs, &in.MaxMessagesPerAgent,
		&in.MaxCharsPerMessage, &in.MaxCharsPerAgent, &in.MaxTotalChars}
	for i, f := range fields {
		if *f == 0 {
			*f = inputBounds[i].def
		}
	}
	return in
}

// handle is the tool's handler: contract §2 steps 1–11.
func (t *tool) handle(ctx context.Context, req *mcp.CallToolRequest, in Input) (*mcp.CallToolResult, Reply, error) {
	if t.opts.Bridge == nil {
		return nil, Reply{OK: false, Error: "orchestration_unavailable", Agents: []Agent{}, Outputs: []AgentOutput{}}, nil
	}
	in = withDefaults(in)
	clk := t.opts.Clock

	// Step 1: the deadline exists before the first bridge read.
	startedAt := clk.Now()
	capped := min(in.TimeoutMs, CallCapMs)
	deadline := startedAt.Add(time.Duration(capped) * time.Millisecond)
	if t.opts.CapMs > 0 {
		capped = min(in.TimeoutMs, int(t.opts.CapMs))
		deadline = startedAt.Add(time.Duration(capped) * time.Millisecond)
	}
	c := &call{t: t, deadline: deadline, anchor: startedAt, inherited: time.Duration(t.late.Load())}
	c.info = CallInfo{ID: t.calls.Add(1), StartedAt: startedAt, Deadline: deadline}
	if req != nil {
		c.info.Session = req.Session
	}
	c.ctx = context.WithValue(ctx, callInfoKey{}, c.info)
	c.emit(EvStart, fmt.Sprint(capped))

	bridge := t.opts.Bridge
	list := func(ctx context.Context) ([]Agent, error) { return bridge.ListAgents(ctx, in.RunID) }

	// Step 5: the first list.
	var agents []Agent
	res, oc := raceRead(c, "list", list)
	if oc == canceled {
		return nil, Reply{}, ctx.Err()
	}
	if oc == inTime {
		agents = scope(res, in.SessionIDs)
	}

	// Step 6: poll, leaving room for one more round trip and the final read.
	poll := time.Duration(in.PollIntervalMs) * time.Millisecond
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	// A first list that failed in time is retried like a failed poll, so
	// that a bridge failing at once cannot make a caller who follows
	// remainingMs call again for ever at the same instant (issue 4:
	// following remainingMs always terminates).
	retry := oc == failed
	// The reserve (contract §2 steps 6 and 12): room for one more round trip and
	// the final read (2·cost), and for the machine to be as late as it was
	// measured to be, in this call or the tool's previous one, but no less
	// than MachineDelayFloorMs once a delay was measured (see machine).
	reserve := func() time.Duration { return 2*c.cost + c.machine() }
	var progressed int64 // the last progress sent, in ms
polling:
	for (agents != nil && anyActive(agents) || agents == nil && retry) && c.now().Add(reserve()).Before(deadline) {
		if !c.sleep(min(poll, deadline.Sub(c.now())-reserve())) {
			return nil, Reply{}, ctx.Err()
		}
		// Step 11: one notification per poll, only with a token. Progress
		// never exceeds total: a sleep that woke late past the cap reports
		// the cap (step 12). It must grow: on a real clock a short last
		// sleep can end within the same ms as the previous poll, and then
		// no notification is sent.
		if elapsed := min(c.now().Sub(startedAt).Milliseconds(), int64(capped)); token != nil && req.Session != nil && elapsed > progressed {
			progressed = elapsed
			c.emit(EvProgress, fmt.Sprint(elapsed))
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      float64(elapsed),
				Total:         float64(capped),
				Message:       fmt.Sprintf("waiting for agents: %d ms of %d ms", elapsed, capped),
			})
		}
		res, oc := raceRead(c, "list", list)
		switch oc {
		case canceled:
			return nil, Reply{}, ctx.Err()
		case inTime:
			agents = scope(res, in.SessionIDs) // step 7
		case expired, notIssued:
			break polling // an expired poll ends the loop, keeping the last good list
		}
	}

	// Step 8: the final read, filtered to the listed agents and cut to budget.
	reply := Reply{OK: true, Agents: []Agent{}, Outputs: []AgentOutput{}}
	if agents != nil {
		reply.Agents = agents
		ids := make([]string, len(agents))
		for i, a := range agents {
			ids[i] = a.SessionID
		}
		outs, oc := raceRead(c, "read", func(ctx context.Context) ([]AgentOutput, error) {
			return bridge.ReadOutputs(ctx, in.RunID, ids)
		})
		switch oc {
		case canceled:
			return nil, Reply{}, ctx.Err()
		case inTime:
			reply.Outputs, reply.Truncated = bound(outs, agents, in)
		case expired, notIssued:
			reply.OutputsUnavailable = true
		}
	} else {
		reply.AgentsUnavailable = true
	}

	// Step 9: the reply, measured when it is built.
	reply.Done = agents != nil && !anyActive(agents)
	if c.lastErr != nil {
		reply.BridgeError = c.lastErr.Error()
	}
	remaining := in.TimeoutMs - int(c.now().Sub(startedAt).Milliseconds())
	if !reply.Done && capped < in.TimeoutMs && remaining >= MinTimeoutMs {
		reply.RemainingMs = &remaining
	}
	t.late.Store(int64(c.late))
	c.emit(EvReply, "")
	return nil, reply, nil
}
