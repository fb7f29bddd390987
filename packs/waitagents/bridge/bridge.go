package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/sim/timeline"
	"github.com/waitsim/waitsim/waittool"
)

// Step is how one bridge request behaves (contract §3). Times in ms.
//   - Stall: never completes by itself; only the bridge timeout ends it.
//   - Err != "": completes with this error after LatencyMs (at dispatch + LatencyMs).
//   - Panic != "": completes after LatencyMs, and the bridge call then
//     panics with this string as its value instead of returning.
//   - Reject: rejected at once, without entering the queue (with Err, or
//     "owner window is gone").
//   - otherwise: completes successfully after LatencyMs.
//   - Outputs != nil (an output read that succeeds): the read returns these
//     outputs, whatever ids it asked for (a real bridge may return ids it was
//     not asked for, an id twice, or any order).
type Step struct {
	LatencyMs int64                  `json:"latencyMs,omitempty"`
	Stall     bool                   `json:"stall,omitempty"`
	Err       string                 `json:"error,omitempty"`
	Panic     string                 `json:"panic,omitempty"`
	Reject    bool                   `json:"reject,omitempty"`
	Outputs   []waittool.AgentOutput `json:"outputs,omitempty"`
}

// Hold is another requester of the app taking the dispatch slot: it joins the
// queue at AtMs and, once dispatched, holds the slot for HoldMs (a congested
// queue, contract §3).
type Hold struct {
	AtMs   int64 `json:"atMs"`
	HoldMs int64 `json:"holdMs"`
}

// Script scripts the bridge (contract §3): one dispatch slot, an untimed FIFO
// queue in front of it, a timeout that starts at dispatch, a cache that shares
// identical reads, no cancellation. Times in ms.
type Script struct {
	// List and Read give the n-th list / output read request its Step; the last
	// Step repeats. Empty means instant success.
	List []Step `json:"list,omitempty"`
	Read []Step `json:"read,omitempty"`
	// TimeoutMs ends a dispatched request with an error this long after its
	// dispatch. 0 means the reference's 30000; negative means no timeout.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// CacheMs: a request identical to one issued less than this long ago shares it.
	// 0 means the reference's 250; negative disables sharing. (In scenario
	// YAML, where a field can be left out, cacheMs: 0 disables sharing.)
	CacheMs int64 `json:"cacheMs,omitempty"`
	// Congestion lists other requesters holding the slot.
	Congestion []Hold `json:"congestion,omitempty"`
	// JitterMs adds to each list or read request's latency (and to the time
	// of an error after a latency) a draw from 0..JitterMs, by the world's
	// seed and the request's id: the same seed gives the same latencies.
	JitterMs int64 `json:"jitterMs,omitempty"`
}

// ErrPollStorm: a call issued more lists than its capped time allows at the
// schema's minimum poll interval (contract §2 step 6): a loop whose sleeps
// are too short. Caught when it happens (timeline.Kernel.Fail), so that such a
// world fails at once instead of crawling to its horizon.
var ErrPollStorm = errors.New("poll storm")

// Default bridge figures of the reference bridge (contract §3), in ms.
const (
	DefaultTimeoutMs = 30000
	DefaultCacheMs   = 250
)

// Request is the record of one bridge request, for invariants and reports.
// Times are virtual ms since Epoch; -1 means "never".
type Request struct {
	// BridgeRequest is what the results file records of it: id, op, call,
	// issued, dispatched and completed times, error, panic, shared result,
	// timer lateness and jitter.
	results.BridgeRequest
	// IDs are the session ids an output read asked for, as the tool passed them.
	IDs []string `json:"-"`
	// Agents (a list) and Outputs (a read) are what a successful request
	// returned to its requester, as the bridge built it; nil otherwise.
	Agents  []waittool.Agent       `json:"-"`
	Outputs []waittool.AgentOutput `json:"-"`

	key     string
	step    Step
	agents  []waittool.Agent
	outputs []waittool.AgentOutput
	waiters []chan struct{}
	sharers []*Request // requests that share this one's result
	ids     []string
}

// agentState is one child agent of the simulated run.
type agentState struct {
	ID       string
	State    string
	Messages []string
}

// Bridge is the simulated bridge: it implements waittool.Bridge on a
// timeline.Scheduler's timeline — the kernel's virtual one, or real time for
// `waitsim serve`. Roster changes are applied with SetState, Join and Leave
// (usually from scheduled events).
type Bridge struct {
	k      timeline.Scheduler
	script Script
	seed   uint64 // draws Request.JitterMs (Script.JitterMs)

	mu     sync.Mutex
	roster []*agentState
	reqs   []*Request
	queue  []*Request
	slot   *Request
	nList  int
	nRead  int
	recent map[string]*Request
	capMs  int64                  // a call's cap (callOf; SetLimits)
	pollMs int64                  // the schema's minimum poll interval (ErrPollStorm; SetLimits)
	lists  map[uint64]int         // lists issued per call (ErrPollStorm)
	open   map[chan struct{}]bool // waiter channels not yet closed
	// arrivals are requests made since the kernel last ran, in a world
	// that follows the bubble's clock (admit).
	arrivals []*arrival
	// ended: the world ended (shutdown). A request made after it (a handler
	// whose context is cancelled beside the world's, by context.AfterFunc,
	// may still issue one) ends at once, or its goroutine would outlive the
	// bubble.
	ended bool
}

var _ waittool.Bridge = (*Bridge)(nil)

// New returns a bridge on timeline k (usually a *Kernel), following script.
func New(k timeline.Scheduler, script Script) *Bridge {
	b := &Bridge{k: k, script: script, capMs: waittool.CallCapMs, pollMs: waittool.MinPollIntervalMs, recent: map[string]*Request{}, lists: map[uint64]int{}, open: map[chan struct{}]bool{}}
	for _, h := range script.Congestion {
		h := h
		k.At(h.AtMs, "hold", func() { b.hold(h.HoldMs) })
	}
	return b
}

// SetLimits sets the contract's figures the bridge checks calls against:
// a call's cap in ms (the capped time of a call the bridge cannot ask) and
// the schema's minimum poll interval in ms (ErrPollStorm). New sets the
// reference tool's (waittool.CallCapMs, waittool.MinPollIntervalMs). Call it
// before the world runs.
func (b *Bridge) SetLimits(capMs, minPollIntervalMs int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.capMs, b.pollMs = capMs, minPollIntervalMs
}

// SetSeed sets the seed that draws each request's jitter
// (Script.JitterMs, Request.JitterMs). Call it before the world runs.
func (b *Bridge) SetSeed(seed uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seed = seed
}

// Present adds an agent that is part of the run from the start, with no
// trace entry (Join records one joining later). Call it before the world
// runs.
func (b *Bridge) Present(id, state string, messages []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roster = append(b.roster, &agentState{ID: id, State: state, Messages: append([]string(nil), messages...)})
}

func (b *Bridge) timeoutMs() int64 {
	if b.script.TimeoutMs == 0 {
		return DefaultTimeoutMs
	}
	return b.script.TimeoutMs
}

func (b *Bridge) cacheMs() int64 {
	if b.script.CacheMs == 0 {
		return DefaultCacheMs
	}
	return b.script.CacheMs
}

// Join adds an agent to the run (a child joining while a wait is open).
func (b *Bridge) Join(id, state string, messages []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roster = append(b.roster, &agentState{ID: id, State: state, Messages: messages})
	b.k.Logf("run", "%s joins (%s)", id, stateName(state))
}

// Leave removes an agent from the run.
func (b *Bridge) Leave(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roster = slices.DeleteFunc(b.roster, func(a *agentState) bool { return a.ID == id })
	b.k.Logf("run", "%s leaves", id)
}

// SetState changes an agent's lifecycle state (and appends messages, if any).
func (b *Bridge) SetState(id, state string, messages []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.roster {
		if a.ID == id {
			a.State = state
			a.Messages = append(a.Messages, messages...)
		}
	}
	b.k.Logf("run", "%s -> %s", id, stateName(state))
}

func stateName(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// Requests returns a copy of every request record, in issue order.
func (b *Bridge) Requests() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Request, len(b.reqs))
	for i, r := range b.reqs {
		out[i] = *r
		out[i].waiters, out[i].sharers, out[i].agents, out[i].outputs = nil, nil, nil, nil
		out[i].IDs = slices.Clone(r.ids)
		if r.Err == "" && r.Panic == "" && r.CompletedMs >= 0 {
			out[i].Agents = slices.Clone(r.agents)
			for _, o := range r.outputs {
				out[i].Outputs = append(out[i].Outputs, waittool.AgentOutput{SessionID: o.SessionID, Messages: slices.Clone(o.Messages)})
			}
		}
	}
	return out
}

// ListAgents implements waittool.Bridge.
func (b *Bridge) ListAgents(ctx context.Context, runID string) ([]waittool.Agent, error) {
	r, wait := b.submit(ctx, "list", "list:"+runID, nil)
	<-wait
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.Panic != "" {
		panic(r.Panic)
	}
	return slices.Clone(r.agents), errOf(r.Err)
}

// ReadOutputs implements waittool.Bridge.
func (b *Bridge) ReadOutputs(ctx context.Context, runID string, ids []string) ([]waittool.AgentOutput, error) {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	r, wait := b.submit(ctx, "read", "read:"+runID+":"+strings.Join(sorted, ","), ids)
	<-wait
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.Panic != "" {
		panic(r.Panic)
	}
	out := make([]waittool.AgentOutput, len(r.outputs))
	for i, o := range r.outputs {
		out[i] = waittool.AgentOutput{SessionID: o.SessionID, Messages: slices.Clone(o.Messages)}
	}
	return out, errOf(r.Err)
}

func errOf(s string) error {
	if s == "" {
		return nil
	}
	return fmt.Errorf("%s", s)
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// arrival is a request made in a world whose tools read package time
// (sim.ClockBubble), waiting for the kernel to admit it.
type arrival struct {
	ctx     context.Context
	op, key string
	ids     []string
	ready   chan struct{} // closed once admitted: r and w are set
	r       *Request
	w       <-chan struct{}
}

// submit records a request and returns it with a channel closed when its
// result is ready for this requester.
//
// In a world that follows the bubble's clock, the tools' own timers of one
// instant wake their goroutines together, and their requests would reach
// the bridge in the order the Go scheduler runs them. So a request is only
// noted there; the kernel admits the instant's requests once every
// goroutine is blocked, in a fixed order (admit).
func (b *Bridge) submit(ctx context.Context, op, key string, ids []string) (*Request, <-chan struct{}) {
	if kk, ok := b.k.(*timeline.Kernel); ok && kk.Following() {
		a := &arrival{ctx: ctx, op: op, key: key, ids: ids, ready: make(chan struct{})}
		b.mu.Lock()
		if b.ended {
			b.mu.Unlock()
			return &Request{BridgeRequest: results.BridgeRequest{Op: op, IssuedMs: b.k.NowMs(), CompletedMs: b.k.NowMs(), Err: "world ended", DispatchedMs: -1}}, closed()
		}
		b.arrivals = append(b.arrivals, a)
		first := len(b.arrivals) == 1
		b.mu.Unlock()
		if first {
			b.k.Soon("arrive", b.admit)
		}
		<-a.ready
		return a.r, a.w
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.submitLocked(ctx, op, key, ids)
}

// admit takes the requests made since the kernel last ran, in the order of
// their calls' ids, then operation and key (arrival order only between
// requests alike in all three).
func (b *Bridge) admit() {
	b.mu.Lock()
	defer b.mu.Unlock()
	as := b.arrivals
	b.arrivals = nil
	type keyed struct {
		a  *arrival
		id uint64
	}
	ks := make([]keyed, len(as))
	for i, a := range as {
		id, _, _ := b.callOf(a.ctx)
		ks[i] = keyed{a, id}
	}
	slices.SortStableFunc(ks, func(x, y keyed) int {
		if x.id != y.id {
			return cmp.Compare(x.id, y.id)
		}
		if x.a.op != y.a.op {
			return strings.Compare(x.a.op, y.a.op)
		}
		return strings.Compare(x.a.key, y.a.key)
	})
	for _, k := range ks {
		k.a.r, k.a.w = b.submitLocked(k.a.ctx, k.a.op, k.a.key, k.a.ids)
		close(k.a.ready)
	}
}

// submitLocked is submit with b.mu held.
func (b *Bridge) submitLocked(ctx context.Context, op, key string, ids []string) (*Request, <-chan struct{}) {
	now := b.k.NowMs()
	callID, capped, known := b.callOf(ctx)
	r := &Request{BridgeRequest: results.BridgeRequest{ID: len(b.reqs) + 1, Op: op, CallID: callID, IssuedMs: now, DispatchedMs: -1, CompletedMs: -1}, key: key, ids: ids}
	if kk, isKernel := b.k.(*timeline.Kernel); isKernel {
		if late, ok := kk.WakeLate(); ok {
			r.WakeLateMs = &late
		}
		if known && op == "list" {
			b.lists[callID]++
			if n, most := b.lists[callID], capped/b.pollMs+2; int64(n) > most {
				kk.Fail(fmt.Errorf("%w: call %d issued %d lists in a call capped at %d ms, more than the %d its sleeps of at least %d ms allow", ErrPollStorm, callID, n, capped, most, b.pollMs))
			}
		}
	}
	if b.ended {
		r.CompletedMs, r.Err = now, "world ended"
		return r, closed()
	}
	b.reqs = append(b.reqs, r)
	who := fmt.Sprintf("call %d", callID)

	if ctx.Err() != nil {
		r.CompletedMs, r.Err = now, "owner window is gone"
		b.k.Logf("bridge", "%s #%d by %s rejected at once: %s", op, r.ID, who, r.Err)
		return r, closed()
	}
	// Identical reads within the cache window share one request.
	if c := b.cacheMs(); c > 0 {
		if prev, ok := b.recent[key]; ok && now-prev.IssuedMs < c {
			r.SharedWith = prev.ID
			if prev.CompletedMs >= 0 {
				r.CompletedMs, r.Err, r.Panic, r.agents, r.outputs = now, prev.Err, prev.Panic, prev.agents, prev.outputs
				b.k.Logf("bridge", "%s #%d by %s shares #%d (done)", op, r.ID, who, prev.ID)
				return r, closed()
			}
			w := b.waiter()
			prev.waiters = append(prev.waiters, w)
			prev.sharers = append(prev.sharers, r)
			b.k.Logf("bridge", "%s #%d by %s shares #%d (in flight)", op, r.ID, who, prev.ID)
			return r, w
		}
	}
	switch op {
	case "list":
		r.step = pick(b.script.List, b.nList)
		b.nList++
	case "read":
		r.step = pick(b.script.Read, b.nRead)
		b.nRead++
	}
	if r.step.Reject {
		r.CompletedMs, r.Err = now, r.step.Err
		if r.Err == "" {
			r.Err = "owner window is gone"
		}
		b.k.Logf("bridge", "%s #%d by %s rejected at once: %s", op, r.ID, who, r.Err)
		return r, closed()
	}
	b.recent[key] = r
	w := b.waiter()
	r.waiters = append(r.waiters, w)
	b.queue = append(b.queue, r)
	b.k.Logf("bridge", "%s #%d by %s issued (queue %d)", op, r.ID, who, len(b.queue)-1+b.busy())
	b.dispatchLocked()
	return r, w
}

func (b *Bridge) busy() int {
	if b.slot != nil {
		return 1
	}
	return 0
}

func pick(steps []Step, n int) Step {
	if len(steps) == 0 {
		return Step{}
	}
	return steps[min(n, len(steps)-1)]
}

// hold enqueues another requester that holds the slot for holdMs once dispatched.
func (b *Bridge) hold(holdMs int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := &Request{BridgeRequest: results.BridgeRequest{ID: len(b.reqs) + 1, Op: "hold", IssuedMs: b.k.NowMs(), DispatchedMs: -1, CompletedMs: -1},
		step: Step{LatencyMs: holdMs}}
	b.reqs = append(b.reqs, r)
	b.queue = append(b.queue, r)
	b.k.Logf("bridge", "hold #%d by another requester queued (%d ms)", r.ID, holdMs)
	b.dispatchLocked()
}

// dispatchLocked gives the free slot to the head of the queue. b.mu is held.
func (b *Bridge) dispatchLocked() {
	if b.slot != nil || len(b.queue) == 0 {
		return
	}
	r := b.queue[0]
	b.queue = b.queue[1:]
	b.slot = r
	now := b.k.NowMs()
	r.DispatchedMs = now
	if r.Op != "hold" && !r.step.Stall && b.script.JitterMs > 0 {
		r.JitterMs = timeline.Draw(b.seed, timeline.StreamService, uint64(r.ID), b.script.JitterMs)
	}
	if r.JitterMs > 0 {
		b.k.Logf("bridge", "%s #%d dispatched (latency jitter +%d ms)", r.Op, r.ID, r.JitterMs)
	} else {
		b.k.Logf("bridge", "%s #%d dispatched", r.Op, r.ID)
	}
	timeout := b.timeoutMs()
	if r.Op == "hold" {
		timeout = -1
	}
	var after int64
	errText := r.step.Err
	switch {
	case r.step.Stall && timeout < 0:
		return // never completes; holds the slot for ever
	case r.step.Stall, timeout >= 0 && r.step.LatencyMs > timeout:
		after, errText = timeout, fmt.Sprintf("bridge timeout after %d ms", timeout)
	default:
		after = r.step.LatencyMs + r.JitterMs
		if timeout >= 0 && after > timeout {
			after, errText = timeout, fmt.Sprintf("bridge timeout after %d ms", timeout)
		}
	}
	b.k.At(now+after, "complete", func() { b.complete(r, errText) })
}

// complete ends request r at the current instant: it snapshots the run,
// frees the slot, wakes its requesters one per sim event, and dispatches the next.
func (b *Bridge) complete(r *Request, errText string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r.CompletedMs = b.k.NowMs()
	r.Err = errText
	if errText == "" && r.step.Panic != "" {
		r.Panic = r.step.Panic
	}
	if errText == "" && r.Panic == "" {
		switch r.Op {
		case "list":
			for _, a := range b.roster {
				r.agents = append(r.agents, waittool.Agent{SessionID: a.ID, State: a.State})
			}
		case "read":
			if r.step.Outputs != nil {
				r.outputs = []waittool.AgentOutput{}
				for _, o := range r.step.Outputs {
					r.outputs = append(r.outputs, waittool.AgentOutput{SessionID: o.SessionID, Messages: slices.Clone(o.Messages)})
				}
				break
			}
			for _, a := range b.roster {
				if slices.Contains(r.ids, a.ID) {
					r.outputs = append(r.outputs, waittool.AgentOutput{SessionID: a.ID, Messages: slices.Clone(a.Messages)})
				}
			}
		}
	}
	if errText != "" {
		b.k.Logf("bridge", "%s #%d failed: %s", r.Op, r.ID, errText)
	} else if r.Panic != "" {
		b.k.Logf("bridge", "%s #%d panics: %s", r.Op, r.ID, r.Panic)
	} else if r.Op == "list" {
		b.k.Logf("bridge", "%s #%d completed: %s", r.Op, r.ID, describeAgents(r.agents))
	} else {
		b.k.Logf("bridge", "%s #%d completed", r.Op, r.ID)
	}
	for _, sr := range r.sharers {
		sr.CompletedMs, sr.Err, sr.Panic, sr.agents, sr.outputs = r.CompletedMs, r.Err, r.Panic, r.agents, r.outputs
	}
	b.slot = nil
	for _, w := range r.waiters {
		w := w
		b.k.Soon("deliver", func() { b.release(w) })
	}
	r.waiters = nil
	b.dispatchLocked()
}

func describeAgents(as []waittool.Agent) string {
	if len(as) == 0 {
		return "[]"
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.SessionID + "=" + stateName(a.State)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// waiter returns a new channel that a requester waits on. b.mu is held.
func (b *Bridge) waiter() chan struct{} {
	w := make(chan struct{})
	b.open[w] = true
	return w
}

// release closes waiter channel w, once.
func (b *Bridge) release(w chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open[w] {
		delete(b.open, w)
		close(w)
	}
}

// callOf is the call a bridge read comes from: its id, and the call's
// capped time in ms when known. The reference tool attaches a
// waittool.CallInfo to the context; for any other implementation the id is
// the world's own (sim.CallIDFrom) and the capped time at most the
// contract's cap.
func (b *Bridge) callOf(ctx context.Context) (id uint64, cappedMs int64, known bool) {
	if ci, ok := waittool.CallInfoFrom(ctx); ok {
		return ci.ID, ci.Deadline.Sub(ci.StartedAt).Milliseconds(), true
	}
	if id, ok := sim.CallIDFrom(ctx); ok {
		return id, b.capMs, true
	}
	return 0, 0, false
}

// Shutdown wakes every requester still waiting when the world ends — on a
// request still in flight, or on a delivery not yet made — so that no
// goroutine outlives the bubble. Incomplete requests stay incomplete in the record.
func (b *Bridge) Shutdown() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended = true
	for _, a := range b.arrivals {
		a.r = &Request{BridgeRequest: results.BridgeRequest{Op: a.op, IssuedMs: b.k.NowMs(), CompletedMs: b.k.NowMs(), Err: "world ended", DispatchedMs: -1}}
		a.w = closed()
		close(a.ready)
	}
	b.arrivals = nil
	for _, r := range b.reqs {
		if r.CompletedMs < 0 {
			r.Err = "world ended"
		}
	}
	for w := range b.open {
		close(w)
	}
	clear(b.open)
}
