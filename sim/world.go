package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/benbjohnson/clock"
	"maps"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/waittool"
)

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

// CallerSpec is one simulated MCP caller (contract §4): a real mcp.Client over the
// SDK's in-memory transport. Times in ms.
type CallerSpec struct {
	Name    string `json:"name"`
	StartMs int64  `json:"startMs,omitempty"`
	// RequestTimeoutMs is the caller's request timeout: a reply resolving after
	// it is LOST. 0 means DefaultRequestTimeoutMs; negative means none.
	RequestTimeoutMs int64 `json:"requestTimeoutMs,omitempty"`
	// ResetOnProgress restarts the request timeout on every progress
	// notification (and implies Progress).
	ResetOnProgress bool `json:"resetOnProgress,omitempty"`
	// Progress sends a progress token with each call.
	Progress bool `json:"progress,omitempty"`
	// Follow calls again with timeoutMs = remainingMs while a reply carries one.
	Follow bool `json:"follow,omitempty"`
	// MaxCalls bounds a followed chain; 0 means DefaultMaxCalls.
	MaxCalls int `json:"maxCalls,omitempty"`
	// Args are the arguments of the first call, as JSON values.
	Args map[string]any `json:"args,omitempty"`
	// Transport, if set, replaces the world's transport for this caller
	// (contract §6).
	Transport *TransportSpec `json:"transport,omitempty"`
	// Profile names the client this caller stands for (contract §4; see
	// Profiles); it is a label here: the profile's knobs are already in the
	// fields above.
	Profile string `json:"profile,omitempty"`
	// OnTransportFailure is what the caller does when the transport loses a
	// call: FailThrow (the default) or FailRetry.
	OnTransportFailure FailureAction `json:"onTransportFailure,omitempty"`
}

// Caller defaults (contract §4).
const (
	// DefaultRequestTimeoutMs is the floor an unknown client must be assumed to have.
	DefaultRequestTimeoutMs = 60000
	// DefaultMaxCalls bounds a followed chain.
	DefaultMaxCalls = 50
	// DefaultHorizonMs is the default virtual horizon: one hour.
	DefaultHorizonMs = 3600000
	// DefaultWallTimeout is the default wall-clock watchdog.
	DefaultWallTimeout = 30 * time.Second
)

// World is everything a run needs: the bridge script, the run's roster and its
// changes, and the callers. NoBridge registers the tool without a bridge.
type World struct {
	Name      string       `json:"name"`
	NoBridge  bool         `json:"noBridge,omitempty"`
	Bridge    BridgeScript `json:"bridge"`
	Agents    []AgentSpec  `json:"agents,omitempty"`
	Changes   []Change     `json:"changes,omitempty"`
	Callers   []CallerSpec `json:"callers"`
	HorizonMs int64        `json:"horizonMs,omitempty"` // 0 = DefaultHorizonMs
	// Transport is every caller's transport unless the caller has its own;
	// nil means memory (contract §6).
	Transport *TransportSpec `json:"transport,omitempty"`
	// ToolCapMs, when > 0, replaces the tool's per-call cap
	// (waittool.Options.CapMs): 90000 replays the first version.
	ToolCapMs int64 `json:"toolCapMs,omitempty"`
	// Timers makes the tool's timers fire late (contract §2 step 12).
	Timers TimerScript `json:"timers,omitzero"`
	// Seed drives every jitter of the world (Timers.JitterMs,
	// Bridge.JitterMs): the same seed gives the same trace.
	Seed uint64 `json:"seed,omitempty"`
	// WrapBridge, if set, wraps the simulated bridge before the tool sees it
	// (e.g. to inject a panic).
	WrapBridge func(waittool.Bridge) waittool.Bridge `json:"-"`
	// WallTimeout is the wall-clock watchdog; 0 = DefaultWallTimeout.
	WallTimeout time.Duration `json:"-"`
}

// CallResult is what one call of one caller saw, measured at the instant the
// reply resolved at the caller. Times are virtual ms since Epoch.
type CallResult struct {
	Caller string `json:"caller"`
	Index  int    `json:"index"` // 1-based within the caller
	// CallID is the tool's id of this call (waittool.CallInfo.ID), 0 if the
	// handler never ran (e.g. the input was rejected).
	CallID  uint64         `json:"callId"`
	Args    map[string]any `json:"args"`
	StartMs int64          `json:"startMs"`
	EndMs   int64          `json:"endMs"`
	// Lost: the caller's request timeout expired first, or the transport
	// lost the call (LostBy says which); Reply is nil.
	Lost   bool   `json:"lost,omitempty"`
	LostBy string `json:"lostBy,omitempty"`
	// WireDelayMs is how long the call's response stream was cut before a
	// resumption picked it up (contract §6): the reply may reach the caller
	// up to this much later than the tool sent it. 0 over memory.
	WireDelayMs int64 `json:"wireDelayMs,omitempty"`
	// IsError: the tool answered with an error result; ErrorText has its text.
	IsError   bool   `json:"isError,omitempty"`
	ErrorText string `json:"errorText,omitempty"`
	// RPCError: the request failed at the protocol level (not lost).
	RPCError string `json:"rpcError,omitempty"`
	// Reply is the structured reply; Raw the same JSON object, untyped, so an
	// absent field can be told from a zero one.
	Reply *waittool.Reply `json:"reply,omitempty"`
	Raw   map[string]any  `json:"raw,omitempty"`

	Progress int `json:"progress,omitempty"` // progress notifications received
	// ProgressNotes are those notifications, in the order received.
	ProgressNotes []ProgressNote `json:"progressNotes,omitempty"`
}

// ProgressNote is one progress notification as a caller received it: at
// virtual time AtMs, with the notification's progress and total values.
type ProgressNote struct {
	AtMs     int64   `json:"atMs"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
}

// Result is the outcome of one world run.
type Result struct {
	World    string           `json:"world"`
	Calls    []CallResult     `json:"calls"`
	Requests []Request        `json:"requests"`
	Events   []waittool.Event `json:"-"`
	Tools    []*mcp.Tool      `json:"-"`
	Trace    []Entry          `json:"trace"`
	Hash     string           `json:"hash"`
	EndMs    int64            `json:"endMs"`
	// MaxTimerLateMs is the largest lateness in ms the world gave any of the
	// tool's timers, fired or stopped (World.Timers; 0 with exact timers).
	MaxTimerLateMs int64 `json:"maxTimerLateMs,omitempty"`
	// StrayProgress are progress notifications that reached a caller
	// without a token it sent (contract §2 step 11 forbids them).
	StrayProgress []StrayProgress `json:"strayProgress,omitempty"`
	Err           string          `json:"error,omitempty"`
	Timeline      string          `json:"-"`
}

// Call returns the call with the given caller name and 1-based index, or nil.
func (r *Result) Call(caller string, index int) *CallResult {
	for i := range r.Calls {
		if r.Calls[i].Caller == caller && r.Calls[i].Index == index {
			return &r.Calls[i]
		}
	}
	return nil
}

// toolsCache holds the tools/list answer of this process: the tools are a
// property of the binary, not of a world, and the answer is large. It is
// asked for over an in-memory session of its own (processTools), never over
// a world's wire: were the first world of a process to ask over its own
// transport, its trace would hold steps that the same world run later in
// the process lacks.
var toolsCache struct {
	sync.Mutex
	tools []*mcp.Tool
	err   error
	done  bool
}

// processTools returns the tools a server with the tool registered lists,
// asked once per process over an in-memory session of their own. Outside a
// synctest bubble (RunWorld calls it first) its goroutines are the
// process's; inside one (Run), they end before the world's kernel starts.
func processTools() ([]*mcp.Tool, error) {
	toolsCache.Lock()
	defer toolsCache.Unlock()
	if !toolsCache.done {
		toolsCache.tools, toolsCache.err = askTools()
		toolsCache.done = true
	}
	return toolsCache.tools, toolsCache.err
}

// askTools lists the tools of a server with the tool registered (real clock,
// no bridge: listing runs neither) over in-memory transports.
func askTools() ([]*mcp.Tool, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server := mcp.NewServer(&mcp.Implementation{Name: "waitsim", Version: "v0"}, &mcp.ServerOptions{SchemaCache: schemaCache})
	waittool.Register(server, waittool.Options{Clock: clock.New()})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "waitsim-tools", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, err
	}
	defer cs.Close()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	return lt.Tools, nil
}

// schemaCache is shared by every world's server: schemas are resolved once.
var schemaCache = mcp.NewSchemaCache()

// RunWorld runs w in a fresh synctest bubble under t and returns its result.
// A wall-clock watchdog outside the bubble ends the test binary with a clear
// message if the world hangs on something outside the bubble.
func RunWorld(t *testing.T, w World) *Result {
	t.Helper()
	var res *Result
	wall := w.WallTimeout
	if wall == 0 {
		wall = DefaultWallTimeout
	}
	var virt struct {
		sync.Mutex
		k *Kernel
	}
	dog := time.AfterFunc(wall, func() {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		virt.Lock()
		at, step := int64(-1), uint64(0)
		if virt.k != nil {
			at, step = virt.k.nowMs.Load(), virt.k.Step()
		}
		virt.Unlock()
		fmt.Fprintf(os.Stderr, "waitsim: wall-clock watchdog: world %q did not reach quiescence within %s "+
			"(virtual time %d ms, step %d): a goroutine is blocked outside the bubble (mutex, I/O or a real timer)\n%s\n",
			w.Name, wall, at, step, buf[:n])
		os.Exit(3)
	})
	defer dog.Stop()
	if _, err := processTools(); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	synctest.Test(t, func(t *testing.T) {
		res = run(t, w, func(k *Kernel) { virt.Lock(); virt.k = k; virt.Unlock() })
	})
	return res
}

type worldRun struct {
	w      World
	k      *Kernel
	bridge *Bridge

	mu       sync.Mutex
	calls    []CallResult
	events   []waittool.Event
	sessions map[*mcp.ServerSession]string
	// lastStart is the id of the latest tool call started on each server
	// session (lastCallOf), kept as events arrive: scanning every event at
	// the end of every call made a world of n callers cost n² steps.
	lastStart map[*mcp.ServerSession]uint64
	pending   int                       // callers not finished
	progress  map[string][]ProgressNote // progress notifications by token

	ctx      context.Context // ends with the world
	wires    []*wire         // HTTP callers' wires (transport.go)
	bubble0  time.Time       // the bubble's clock at virtual time 0
	wmu      sync.Mutex
	wireDue  map[int64]time.Time // instants with a wire event (transport.go)
	sessionN int
	stray    []StrayProgress
}

// StrayProgress is a progress notification a caller received with a token it
// did not send (or none): at virtual time AtMs (ms), Token as text.
type StrayProgress struct {
	Caller string `json:"caller"`
	AtMs   int64  `json:"atMs"`
	Token  string `json:"token"`
}

// Run runs w and returns its result. It must be called inside a synctest
// bubble (see RunWorld); onKernel, if not nil, is given the kernel first. A
// world with an HTTP transport needs RunWorld.
func Run(w World, onKernel func(*Kernel)) *Result { return run(nil, w, onKernel) }

func run(tb testing.TB, w World, onKernel func(*Kernel)) *Result {
	horizon := w.HorizonMs
	if horizon == 0 {
		horizon = DefaultHorizonMs
	}
	k := NewKernel(horizon)
	k.StandstillLimit = (len(w.Callers) + 1) * ActionsPerInstantPerCaller
	if w.Timers != (TimerScript{}) {
		ts, seed := w.Timers, w.Seed
		k.Clock.SetLateness(func(n uint64) time.Duration { return ts.Lateness(seed, n) })
	}
	if onKernel != nil {
		onKernel(k)
	}
	wr := &worldRun{w: w, k: k, sessions: map[*mcp.ServerSession]string{}, progress: map[string][]ProgressNote{}, bubble0: time.Now()}
	res := &Result{World: w.Name}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wr.ctx = ctx

	opts := waittool.Options{Clock: k.Clock, Observer: wr.observe, CapMs: w.ToolCapMs}
	if !w.NoBridge {
		wr.bridge = NewWorldBridge(k, w)
		opts.Bridge = wr.bridge
		if w.WrapBridge != nil {
			opts.Bridge = w.WrapBridge(wr.bridge)
		}
	}
	sopts := &mcp.ServerOptions{SchemaCache: schemaCache}
	if anyHTTP(w) {
		sopts.GetSessionID = wr.nextSessionID
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "waitsim", Version: "v0"}, sopts)
	waittool.Register(server, opts)
	if anyHTTP(w) {
		server.AddReceivingMiddleware(wr.attributeSessions)
	}

	var sessions []*mcp.ClientSession
	var serverSessions []*mcp.ServerSession
	defer func() {
		cancel() // ends handlers still waiting (after a kernel error)
		if wr.bridge != nil {
			wr.bridge.shutdown()
		}
		for _, s := range sessions {
			_ = s.Close()
		}
		for _, s := range serverSessions {
			_ = s.Wait()
		}
	}()
	for i := range w.Callers {
		spec := w.Callers[i]
		c := &caller{wr: wr, spec: spec}
		var cs *mcp.ClientSession
		var err error
		if ts := transportOf(w, spec); ts.HTTP() {
			cs, err = wr.connectHTTP(tb, ctx, server, c, *ts)
		} else {
			st, ct := mcp.NewInMemoryTransports()
			var ss *mcp.ServerSession
			ss, err = server.Connect(ctx, st, nil)
			if err != nil {
				res.Err = fmt.Sprintf("connect server: %v", err)
				return res
			}
			serverSessions = append(serverSessions, ss)
			wr.sessions[ss] = spec.Name
			client := mcp.NewClient(&mcp.Implementation{Name: "caller-" + spec.Name, Version: "v0"},
				&mcp.ClientOptions{ProgressNotificationHandler: c.onProgress})
			cs, err = client.Connect(ctx, ct, nil)
		}
		if err != nil {
			res.Err = fmt.Sprintf("connect caller %s: %v", spec.Name, err)
			return res
		}
		sessions = append(sessions, cs)
		c.cs = cs
		if i == 0 {
			tools, err := processTools()
			if err != nil {
				res.Err = fmt.Sprintf("tools/list: %v", err)
				return res
			}
			res.Tools = tools
		}
		wr.pending++
		k.At(spec.StartMs, "start "+spec.Name, func() { go c.run(ctx) })
	}
	err := k.Run(func() bool {
		wr.mu.Lock()
		defer wr.mu.Unlock()
		return wr.pending == 0
	})
	if err != nil {
		res.Err = err.Error()
	}
	if wr.bridge != nil {
		res.Requests = wr.bridge.Requests()
		for _, r := range res.Requests {
			if r.Op != "hold" && r.CompletedMs < 0 && r.SharedWith == 0 {
				k.Trace.Addf("bridge", "%s #%d stranded: still in flight at the end", r.Op, r.ID)
			}
		}
	}
	wr.mu.Lock()
	for i := range wr.calls {
		cr := &wr.calls[i]
		cr.ProgressNotes = wr.progress[progressToken(cr.Caller, cr.Index)]
		cr.Progress = len(cr.ProgressNotes)
	}
	res.Calls = append(res.Calls, wr.calls...)
	res.StrayProgress = append(res.StrayProgress, wr.stray...)
	sort.SliceStable(res.StrayProgress, func(i, j int) bool {
		a, b := res.StrayProgress[i], res.StrayProgress[j]
		if a.AtMs != b.AtMs {
			return a.AtMs < b.AtMs
		}
		return a.Caller < b.Caller
	})
	res.Events = append(res.Events, wr.events...)
	wr.mu.Unlock()
	sort.SliceStable(res.Calls, func(i, j int) bool { return res.Calls[i].StartMs < res.Calls[j].StartMs })
	res.EndMs = k.NowMs()
	res.MaxTimerLateMs = k.MaxTimerLateMs()
	res.Trace = k.Trace.Entries()
	res.Timeline = FormatEntries(res.Trace)
	res.Hash = HashTimeline(res.Timeline) // Trace.Hash without rendering the trace again
	return res
}

// observe receives the tool's events (waittool.Options.Observer).
func (wr *worldRun) observe(e waittool.Event) {
	wr.mu.Lock()
	wr.events = append(wr.events, e)
	if e.Kind == waittool.EvStart && e.Call.Session != nil && e.Call.ID > wr.lastStart[e.Call.Session] {
		if wr.lastStart == nil {
			wr.lastStart = map[*mcp.ServerSession]uint64{}
		}
		wr.lastStart[e.Call.Session] = e.Call.ID
	}
	wr.mu.Unlock()
	actor := fmt.Sprintf("tool:%d", e.Call.ID)
	switch e.Kind {
	case waittool.EvStart:
		wr.k.Trace.Addf(actor, "start: capped %s ms, deadline %d ms", e.Detail, ms(e.Call.Deadline))
	case waittool.EvSleep:
		wr.k.Trace.Addf(actor, "sleep %s ms (cost %d ms)", e.Detail, e.CostMs)
	case waittool.EvReply:
		wr.k.Trace.Addf(actor, "reply built")
	default:
		wr.k.Trace.Addf(actor, "%s %s (cost %d ms)", e.Kind, e.Detail, e.CostMs)
	}
}

// caller is one running CallerSpec.
type caller struct {
	wr   *worldRun
	spec CallerSpec
	cs   *mcp.ClientSession
	wire *wire // nil over memory

	lastID uint64 // the tool call id of this caller's latest call

	mu      sync.Mutex
	token   string
	resetCh chan struct{}
}

func (c *caller) actor() string { return "caller:" + c.spec.Name }

func (c *caller) timeout() int64 {
	if c.spec.RequestTimeoutMs == 0 {
		return DefaultRequestTimeoutMs
	}
	return c.spec.RequestTimeoutMs
}

// onProgress receives a progress notification. It is recorded under its
// token, and the world's results take them from there at the end: a
// notification is not ordered with the reply it precedes (the SDK does not
// promise it), so a count read when CallTool returns would vary run to run.
func (c *caller) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token := fmt.Sprint(req.Params.ProgressToken)
	if !strings.HasPrefix(token, c.spec.Name+"/") {
		// Not a token this caller sent (contract §2 step 11: no notification
		// without a token): kept for the invariants.
		c.wr.mu.Lock()
		c.wr.stray = append(c.wr.stray, StrayProgress{Caller: c.spec.Name, AtMs: c.wr.k.NowMs(), Token: token})
		c.wr.mu.Unlock()
		c.wr.k.Trace.SideAddf(c.actor(), "progress %.0f/%.0f ms with a token it did not send (%s)", req.Params.Progress, req.Params.Total, token)
		return
	}
	c.wr.mu.Lock()
	c.wr.progress[token] = append(c.wr.progress[token], ProgressNote{AtMs: c.wr.k.NowMs(), Progress: req.Params.Progress, Total: req.Params.Total})
	c.wr.mu.Unlock()
	c.wr.k.Trace.SideAddf(c.actor(), "progress %.0f/%.0f ms (%s)", req.Params.Progress, req.Params.Total, token)
	c.mu.Lock()
	defer c.mu.Unlock()
	if token == c.token && c.spec.ResetOnProgress && c.resetCh != nil {
		c.resetCh <- struct{}{}
	}
}

func (c *caller) run(ctx context.Context) {
	defer func() {
		c.wr.mu.Lock()
		c.wr.pending--
		c.wr.mu.Unlock()
	}()
	args := map[string]any{}
	for k, v := range c.spec.Args {
		args[k] = v
	}
	maxCalls := c.spec.MaxCalls
	if maxCalls == 0 {
		maxCalls = DefaultMaxCalls
	}
	for i := 1; i <= maxCalls; i++ {
		cr := c.call(ctx, i, args)
		if cr.LostBy != "" && cr.LostBy != LostByTimeout && c.spec.OnTransportFailure == FailRetry {
			// Call again with what is left of this call's budget (contract §4).
			took := cr.EndMs - cr.StartMs
			left := intArgOf(args, "timeoutMs", 30000) - took
			if left < 1000 || took == 0 {
				// Below the schema minimum; or the transport failed at once
				// (a session given up): calling again would fail the same way.
				c.wr.k.Trace.Addf(c.actor(), "no retry: %d ms of the budget left after %d ms", left, took)
				return
			}
			next := maps.Clone(args)
			next["timeoutMs"] = left
			args = next
			continue
		}
		if !c.spec.Follow || cr.Lost || cr.Reply == nil || cr.Reply.Done || cr.Reply.RemainingMs == nil {
			return
		}
		next := map[string]any{}
		for k, v := range args {
			next[k] = v
		}
		next["timeoutMs"] = *cr.Reply.RemainingMs
		args = next
	}
	c.wr.k.Trace.Addf(c.actor(), "chain stopped after %d calls (maxCalls)", maxCalls)
}

// progressToken is the progress token of a caller's index-th call.
func progressToken(caller string, index int) string { return fmt.Sprintf("%s/%d", caller, index) }

func argsText(args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		b, _ := json.Marshal(args[k])
		parts[i] = k + "=" + string(b)
	}
	return strings.Join(parts, " ")
}

// call makes one call and records it.
func (c *caller) call(ctx context.Context, index int, args map[string]any) CallResult {
	k := c.wr.k
	cr := CallResult{Caller: c.spec.Name, Index: index, Args: args, StartMs: k.NowMs()}
	params := &mcp.CallToolParams{Name: waittool.ToolName, Arguments: args}
	reset := make(chan struct{})
	c.mu.Lock()
	c.token = ""
	if c.spec.Progress || c.spec.ResetOnProgress {
		c.token = progressToken(c.spec.Name, index)
		params.SetProgressToken(c.token)
	}
	c.resetCh = reset
	c.mu.Unlock()
	k.Trace.Addf(c.actor(), "call %d: %s", index, argsText(args))
	if c.wire != nil {
		c.wire.startCall()
	}

	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	lost := make(chan struct{})
	if d := c.timeout(); d >= 0 {
		timer := k.Clock.callerTimer(time.Duration(d) * time.Millisecond)
		go func() {
			for {
				select {
				case <-timer.C:
					k.Trace.Addf(c.actor(), "request timeout (%d ms): reply LOST", d)
					if c.wire != nil {
						c.wire.abandon()
					}
					close(lost)
					cancel()
					return
				case <-reset:
					timer.Stop()
					timer = k.Clock.callerTimer(time.Duration(d) * time.Millisecond)
				case <-stop:
					timer.Stop()
					return
				}
			}
		}()
	}
	res, err := c.cs.CallTool(callCtx, params)
	c.mu.Lock()
	c.resetCh = nil
	c.mu.Unlock()
	close(stop)
	cr.EndMs = k.NowMs()
	if c.wire != nil {
		cr.WireDelayMs = c.wire.wireDelay()
	}
	select {
	case <-lost:
		cr.Lost, cr.LostBy = true, LostByTimeout
	default:
		why := ""
		if err != nil && c.wire != nil {
			why = c.wire.lostBy(err)
		}
		switch {
		case why != "":
			cr.Lost, cr.LostBy = true, why
			k.Trace.Addf(c.actor(), "call %d: transport failure (%s): reply LOST", index, why)
		case err != nil:
			cr.RPCError = err.Error()
			k.Trace.Addf(c.actor(), "call %d: protocol error: %v", index, err)
		case res.IsError:
			cr.IsError = true
			for _, ct := range res.Content {
				if tc, ok := ct.(*mcp.TextContent); ok {
					cr.ErrorText += tc.Text
				}
			}
			k.Trace.Addf(c.actor(), "call %d: error result: %s", index, cr.ErrorText)
		default:
			raw, _ := json.Marshal(res.StructuredContent)
			var rep waittool.Reply
			if err := json.Unmarshal(raw, &rep); err != nil {
				cr.RPCError = "bad structured content: " + err.Error()
			}
			cr.Reply = &rep
			_ = json.Unmarshal(raw, &cr.Raw)
			k.Trace.Addf(c.actor(), "call %d: reply %s", index, replyText(cr.Raw))
		}
	}
	// A call rejected before the handler ran has no tool call id.
	if id := c.wr.lastCallOf(c.spec.Name); id != c.lastID {
		cr.CallID, c.lastID = id, id
	}
	c.wr.mu.Lock()
	c.wr.calls = append(c.wr.calls, cr)
	c.wr.mu.Unlock()
	return cr
}

// lastCallOf returns the id of the latest tool call made by caller name.
func (wr *worldRun) lastCallOf(name string) uint64 {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	var id uint64
	for s, last := range wr.lastStart {
		if wr.sessions[s] == name && last > id {
			id = last
		}
	}
	return id
}

// replyText renders a reply's fields in a stable order, leaving out agents'
// and outputs' contents except counts and states.
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
