package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/sim/timeline"
)

// CallerSpec is one simulated MCP caller (contract §4): a real mcp.Client over the
// SDK's in-memory transport. Times in ms.
type CallerSpec struct {
	Name    string `json:"name"`
	StartMs int64  `json:"startMs,omitempty"`
	// RequestTimeoutMs is the caller's request timeout: a reply resolving after
	// it is LOST. 0 means DefaultRequestTimeoutMs; negative means none.
	RequestTimeoutMs int64 `json:"requestTimeoutMs,omitempty"`
	// ResetOnProgress restarts the request timeout on every progress
	// notification. Without Progress the caller sends no token and gets no
	// notification to restart on (as the TypeScript SDK's
	// resetTimeoutOnProgress without an onprogress handler).
	ResetOnProgress bool `json:"resetOnProgress,omitempty"`
	// Progress sends a progress token with each call.
	Progress bool `json:"progress,omitempty"`
	// Follow calls again while the world's Next rule gives the next call's
	// arguments (the wait_agents pack: timeoutMs = remainingMs while a reply
	// carries one).
	Follow bool `json:"follow,omitempty"`
	// MaxCalls bounds a followed chain; 0 means DefaultMaxCalls.
	MaxCalls int `json:"maxCalls,omitempty"`
	// Tool is the name of the tool the caller calls; "" is the world's
	// DefaultTool.
	Tool string `json:"tool,omitempty"`
	// Args are the arguments of the first call, as JSON values.
	Args map[string]any `json:"args,omitempty"`
	// Transport, if set, replaces the world's transport for this caller
	// (contract §6).
	Transport *TransportSpec `json:"transport,omitempty"`
	// Profile names the client this caller stands for (contract §4; see
	// Profiles); it is a label here: the profile's knobs are already in the
	// fields above and in Client.
	Profile string `json:"profile,omitempty"`
	// Client is whose rules the caller follows when the transport fails a
	// call (ClientGo, the default; ClientTS; ClientPython).
	Client ClientKind `json:"client,omitempty"`
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

// watchdog is the process's wall-clock watchdog for worlds that set none
// (SetWatchdog); 0: DefaultWallTimeout.
var watchdog atomic.Int64

// SetWatchdog sets the wall-clock watchdog of every world this process runs
// that sets no WallTimeout of its own (0: DefaultWallTimeout again). A
// mutation runner sets it beyond its own timeout for a mutant
// (results.Params.WatchdogMs), so that a mutant that spins is always ended
// by the runner's timeout, whatever the machine's load, not sometimes by
// the watchdog.
func SetWatchdog(d time.Duration) { watchdog.Store(int64(d)) }

// WatchdogExit is the exit code of a process the wall-clock watchdog ends.
const WatchdogExit = 3

// watchdogHookWait bounds how long the watchdog waits for its hook
// (OnWatchdog) before it ends the process: a bound, not a measurement (the
// hook writes one results file).
const watchdogHookWait = 5 * time.Second

// watchdogHook is what the watchdog calls before it ends the process.
var watchdogHook atomic.Pointer[func(world, report string)]

// OnWatchdog sets what the wall-clock watchdog calls before it ends the
// process (nil: nothing): the hung world's name and what the watchdog
// printed (its message, then every goroutine's stack). The hook runs beside
// the hung world, outside its bubble, and gets watchdogHookWait. waitsim.Run
// writes its results there: the table that stopped says which case stopped
// it.
func OnWatchdog(f func(world, report string)) {
	if f == nil {
		watchdogHook.Store(nil)
		return
	}
	watchdogHook.Store(&f)
}

// World is everything a run needs: the server side (Tool, which registers
// the tools under test) and the callers, on the transports between them.
type World struct {
	Name      string       `json:"name"`
	Callers   []CallerSpec `json:"callers"`
	HorizonMs int64        `json:"horizonMs,omitempty"` // 0 = DefaultHorizonMs
	// ReplyBytes bounds the bytes of replies the world's callers receive in
	// all; 0 = MaxReplyBytes.
	ReplyBytes int `json:"replyBytes,omitempty"`
	// Transport is every caller's transport unless the caller has its own;
	// nil means memory (contract §6).
	Transport *TransportSpec `json:"transport,omitempty"`
	// Tool sets up the server side of the world: it registers the tools
	// under test on the world's server. Required.
	Tool ToolSetup `json:"-"`
	// DefaultTool is the tool a caller with no Tool calls; "" is the only
	// tool the server lists (a world whose server lists several must name one).
	DefaultTool string `json:"defaultTool,omitempty"`
	// Clock says which clock the tools under test read: ClockGated (the
	// default), the kernel's gated clock handed to them (Env.Clock), whose
	// timers Timers can make late; or ClockBubble, package time itself,
	// which inside the world's synctest bubble is virtual: a tool that knows
	// nothing of waitsim runs in virtual time unchanged.
	Clock ClockMode `json:"clock,omitempty"`
	// Timers makes the gated clock's timers fire late (contract §2 step 12);
	// with ClockBubble it must be zero.
	Timers timeline.TimerScript `json:"timers,omitzero"`
	// Seed drives every jitter of the world (Timers.JitterMs and whatever a
	// ToolSetup draws with Env.Draw): the same seed gives the same trace.
	Seed uint64 `json:"seed,omitempty"`
	// Next, when set, is the rule of a followed chain: given a call that
	// resolved and its arguments, the arguments of the caller's next call,
	// or ok false to stop (CallerSpec.Follow).
	Next func(prev CallResult) (args map[string]any, ok bool) `json:"-"`
	// Retry, when set, is what a caller with OnTransportFailure retry does
	// after the transport lost a call: the arguments of the next call, or ok
	// false and why not (logged on the trace). Unset: call again with the
	// same arguments.
	Retry func(lost CallResult) (args map[string]any, ok bool, why string) `json:"-"`
	// ReplyText, when set, renders a received reply's structured content on
	// the trace; unset: every field as JSON, in key order.
	ReplyText func(raw map[string]any) string `json:"-"`
	// WallTimeout is the wall-clock watchdog; 0 = DefaultWallTimeout.
	WallTimeout time.Duration `json:"-"`
}

// ClockMode is which clock a world's tools read (World.Clock).
type ClockMode string

// Clock modes.
const (
	// ClockGated: the tools take the kernel's gated clock (Env.Clock, a
	// clock.Clock); their timers at one instant are released in a fixed
	// order, and a timeline.TimerScript can make them late.
	ClockGated ClockMode = ""
	// ClockBubble: the tools read package time, which in the bubble is
	// virtual. The kernel follows the bubble's clock: at one instant the
	// tools' own timers run first, then sim events, then the callers'
	// request timeouts (timeline.Kernel.FollowBubble).
	ClockBubble ClockMode = "bubble"
)

// ToolSetup registers the tools under test on env.Server. It runs once per
// world, inside the world's bubble, before any caller connects; an error
// ends the world before it starts (Result.Err).
type ToolSetup func(env *Env) error

// Env is the world as a ToolSetup sees it.
type Env struct {
	// Server is the world's MCP server: register the tools on it.
	Server *mcp.Server
	// Kernel is the world's timeline, for simulated services the tools talk
	// to (a timeline.Scheduler: At, Soon, NowMs, Logf on the trace).
	Kernel *timeline.Kernel
	// Clock is the gated clock to hand the tools (World.Clock ClockGated);
	// under ClockBubble it reads the bubble's clock too, but its timers are
	// the kernel's.
	Clock clock.Clock
	// Context ends when the world ends.
	Context context.Context
	// Seed is the world's seed (World.Seed).
	Seed uint64

	wr *worldRun
}

// OnShutdown registers fn to run when the world ends, before its sessions
// close: wake what the tools still wait on (a simulated service's requests
// in flight), so that no goroutine outlives the bubble.
func (e *Env) OnShutdown(fn func()) { e.wr.onShutdown = append(e.wr.onShutdown, fn) }

// OnEnd registers fn to run when the kernel has stopped, before the trace
// is closed: add the last trace entries (e.g. requests stranded in flight).
func (e *Env) OnEnd(fn func()) { e.wr.onEnd = append(e.wr.onEnd, fn) }

// SetCallIDs replaces the world's account of tool call ids: fn returns the
// id of the latest tool call that started on session (0: none), as the tool
// numbers its calls. Unset, the world numbers every tools/call its server
// receives, from 1, in arrival order.
func (e *Env) SetCallIDs(fn func(session *mcp.ServerSession) uint64) { e.wr.callIDs = fn }

// CallResult is what one call of one caller saw, measured at the instant the
// reply resolved at the caller. Times are virtual ms since timeline.Epoch.
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
	// CutBy: the call's SSE stream was cut after its headers (this says by
	// what) and its client, with no event id to resume with, kept waiting
	// until its own request timeout lost the call (ClientTS, ClientPython).
	CutBy string `json:"cutBy,omitempty"`
	// Cut says where the wire cut the call's own response, when a cut lost
	// it (LostBy or CutBy names it): CutBeforeHeaders or CutAfterHeaders.
	Cut string `json:"cut,omitempty"`
	// WireDelayMs is how long the call's response stream was cut before a
	// resumption picked it up (contract §6): the reply may reach the caller
	// up to this much later than the tool sent it. 0 over memory.
	WireDelayMs int64 `json:"wireDelayMs,omitempty"`
	// IsError: the tool answered with an error result; ErrorText has its text.
	IsError   bool   `json:"isError,omitempty"`
	ErrorText string `json:"errorText,omitempty"`
	// RPCError: the request failed at the protocol level (not lost).
	RPCError string `json:"rpcError,omitempty"`
	// Raw is the received reply's structured content, a JSON object (nil when
	// lost, an error, or not an object); StructuredJSON the same as sent.
	Raw            map[string]any  `json:"raw,omitempty"`
	StructuredJSON json.RawMessage `json:"-"`

	Progress int `json:"progress,omitempty"` // progress notifications received
	// ProgressNotes are those notifications, in the order received.
	ProgressNotes []ProgressNote `json:"progressNotes,omitempty"`
}

// ProgressNote is one progress notification as a caller received it: at
// virtual time AtMs, with the notification's progress, total and message.
type ProgressNote struct {
	AtMs     int64   `json:"atMs"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message,omitempty"`
}

// Result is the outcome of one world run.
type Result struct {
	World string           `json:"world"`
	Calls []CallResult     `json:"calls"`
	Tools []*mcp.Tool      `json:"-"` // what the server lists (tools/list)
	Trace []timeline.Entry `json:"trace"`
	Hash  string           `json:"hash"`
	EndMs int64            `json:"endMs"`
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

// ListTools lists the tools of server as a client sees them, over an
// in-memory session of its own. A world lists its server's tools this way,
// inside its bubble, before any caller connects: never over a world's wire,
// so that a world's trace never holds the listing.
func ListTools(ctx context.Context, server *mcp.Server) ([]*mcp.Tool, error) {
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
// message (exit WatchdogExit, after the OnWatchdog hook) if the world hangs
// on something outside the bubble or spins without ever blocking.
func RunWorld(t *testing.T, w World) *Result {
	t.Helper()
	var res *Result
	wall := w.WallTimeout
	if wall == 0 {
		wall = time.Duration(watchdog.Load())
	}
	if wall == 0 {
		wall = DefaultWallTimeout
	}
	var virt struct {
		sync.Mutex
		k *timeline.Kernel
	}
	dog := time.AfterFunc(wall, func() {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		virt.Lock()
		at, step := int64(-1), uint64(0)
		if virt.k != nil {
			at, step = virt.k.WatchdogNowMs(), virt.k.Step()
		}
		virt.Unlock()
		report := fmt.Sprintf("waitsim: wall-clock watchdog: world %q did not reach quiescence within %s "+
			"(virtual time %d ms, step %d): a goroutine is blocked outside the bubble (mutex, I/O or a real timer), or one spins without ever blocking (a loop that does not advance virtual time), "+
			"or the world does more work than fits in that time (fewer callers or calls); the goroutines that were running come first\n%s\n",
			w.Name, wall, at, step, runningFirst(buf[:n]))
		fmt.Fprint(os.Stderr, report)
		if h := watchdogHook.Load(); h != nil {
			done := make(chan struct{})
			go func() {
				defer close(done)
				(*h)(w.Name, report)
			}()
			select {
			case <-done:
			case <-time.After(watchdogHookWait):
			}
		}
		os.Exit(WatchdogExit)
	})
	defer dog.Stop()
	synctest.Test(t, func(t *testing.T) {
		res = run(t, w, func(k *timeline.Kernel) { virt.Lock(); virt.k = k; virt.Unlock() })
	})
	return res
}

// MaxReplyBytes is how many bytes of replies the callers of one world may
// receive in all (structured content as JSON, error texts); the reply past
// it ends the world with ErrRepliesFull. A world's replies are kept whole
// until its case ends, in its calls and its results, so without it a case
// of the load limits (500 calls, each a reply of up to the wait_agents
// tool's 2,000,000 characters) could hold gigabytes: 300 callers with
// 1 MB replies over three files took 5.1 GB and wrote a results file over
// its 256 MiB limit (3 December 2026). The table's largest world receives
// 21,919 bytes; 64 MiB holds 32 replies at that tool's largest budget.
const MaxReplyBytes = 64 << 20

// ErrRepliesFull: a world's replies passed MaxReplyBytes.
var ErrRepliesFull = errors.New("the world's replies are too large")

// received counts n bytes of a reply a caller received, and ends the
// world once they pass its bound (World.ReplyBytes, MaxReplyBytes).
func (wr *worldRun) received(n int) {
	limit := wr.w.ReplyBytes
	if limit <= 0 {
		limit = MaxReplyBytes
	}
	wr.mu.Lock()
	wr.replyN += n
	over := wr.replyN > limit && wr.replyN-n <= limit
	wr.mu.Unlock()
	if over {
		wr.k.Fail(fmt.Errorf("%w: its callers received more than %d bytes of replies (each kept until the case ends): make fewer calls, or smaller replies", ErrRepliesFull, limit))
	}
}

// runningFirst is a runtime.Stack dump of every goroutine with the
// goroutines that were running or runnable first (a tool that spins is
// one of them: a report cut to its first stacks then still shows it), the
// others after them, each group in the dump's order.
func runningFirst(dump []byte) string {
	var first, rest []string
	for _, g := range strings.Split(strings.TrimSpace(string(dump)), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if strings.Contains(head, "[running") || strings.Contains(head, "[runnable") {
			first = append(first, g)
		} else {
			rest = append(rest, g)
		}
	}
	return strings.Join(append(first, rest...), "\n\n")
}

type worldRun struct {
	w World
	k *timeline.Kernel

	onShutdown []func()
	onEnd      []func()
	callIDs    func(*mcp.ServerSession) uint64 // Env.SetCallIDs; nil: lastCall

	mu       sync.Mutex
	calls    []CallResult
	sessions map[*mcp.ServerSession]string
	// lastCall is the id of the latest tools/call each server session
	// received, and callN the count of them all (the world's own call ids,
	// when the ToolSetup keeps none).
	lastCall map[*mcp.ServerSession]uint64
	callN    uint64
	pending  int                       // callers not finished
	progress map[string][]ProgressNote // progress notifications by token
	replyN   int                       // bytes of the replies the callers received (MaxReplyBytes)

	ctx      context.Context // ends with the world
	wires    []*wire         // HTTP callers' wires (transport.go)
	bubble0  time.Time       // the bubble's clock at virtual time 0
	wmu      sync.Mutex
	wireDue  map[int64]time.Time // instants with a wire event (transport.go)
	idleDue  map[int64]bool      // instants with a proxy idle check (transport.go)
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
func Run(w World, onKernel func(*timeline.Kernel)) *Result { return run(nil, w, onKernel) }

func run(tb testing.TB, w World, onKernel func(*timeline.Kernel)) *Result {
	res := &Result{World: w.Name}
	if w.Tool == nil {
		res.Err = "world has no tool (World.Tool)"
		return res
	}
	if w.Clock == ClockBubble && w.Timers != (timeline.TimerScript{}) {
		res.Err = "late timers (World.Timers) need the gated clock: a tool that reads package time cannot be made late"
		return res
	}
	for _, c := range w.Callers {
		if err := c.Validate(); err != nil {
			res.Err = fmt.Sprintf("caller %s: %v", c.Name, err)
			return res
		}
	}
	horizon := w.HorizonMs
	if horizon == 0 {
		horizon = DefaultHorizonMs
	}
	k := timeline.NewKernel(horizon)
	k.StandstillLimit = (len(w.Callers) + 1) * timeline.ActionsPerInstantPerCaller
	if w.Timers != (timeline.TimerScript{}) {
		ts, seed := w.Timers, w.Seed
		k.Clock.SetLateness(func(n uint64) time.Duration { return ts.Lateness(seed, n) })
	}
	if w.Clock == ClockBubble {
		k.FollowBubble()
	}
	if onKernel != nil {
		onKernel(k)
	}
	wr := &worldRun{w: w, k: k, sessions: map[*mcp.ServerSession]string{}, progress: map[string][]ProgressNote{}, bubble0: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wr.ctx = ctx

	sopts := &mcp.ServerOptions{SchemaCache: schemaCache}
	if anyHTTP(w) {
		sopts.GetSessionID = wr.nextSessionID
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "waitsim", Version: "v0"}, sopts)
	env := &Env{Server: server, Kernel: k, Clock: k.Clock, Context: ctx, Seed: w.Seed, wr: wr}
	var sessions []*mcp.ClientSession
	var serverSessions []*mcp.ServerSession
	defer func() {
		cancel() // ends handlers still waiting (after a kernel error)
		for _, fn := range wr.onShutdown {
			fn()
		}
		for _, s := range sessions {
			_ = s.Close()
		}
		for _, s := range serverSessions {
			_ = s.Wait()
		}
		for _, w := range wr.wires {
			w.deletes.Wait()
		}
	}()
	if err := w.Tool(env); err != nil {
		res.Err = fmt.Sprintf("tool setup: %v", err)
		return res
	}
	server.AddReceivingMiddleware(wr.countCalls)
	if anyHTTP(w) {
		server.AddReceivingMiddleware(wr.attributeSessions)
	}
	tools, err := ListTools(ctx, server)
	if err != nil {
		res.Err = fmt.Sprintf("tools/list: %v", err)
		return res
	}
	res.Tools = tools
	defaultTool, err := pickTool(w, tools)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	for i := range w.Callers {
		spec := w.Callers[i]
		if spec.Tool == "" {
			spec.Tool = defaultTool
		}
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
		wr.pending++
		k.At(spec.StartMs, "start "+spec.Name, func() { go c.run(ctx) })
	}
	err = k.Run(func() bool {
		wr.mu.Lock()
		defer wr.mu.Unlock()
		return wr.pending == 0
	})
	if err != nil {
		res.Err = err.Error()
	}
	for _, fn := range wr.onEnd {
		fn()
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
	wr.mu.Unlock()
	// By start, then caller and call: calls are recorded as they end, and
	// two that end at one instant end in the goroutines' order, which
	// varies from run to run (the trace does not: it orders them itself).
	sort.Slice(res.Calls, func(i, j int) bool {
		a, b := res.Calls[i], res.Calls[j]
		if a.StartMs != b.StartMs {
			return a.StartMs < b.StartMs
		}
		if a.Caller != b.Caller {
			return a.Caller < b.Caller
		}
		return a.Index < b.Index
	})
	res.EndMs = k.NowMs()
	res.MaxTimerLateMs = k.MaxTimerLateMs()
	res.Trace = k.Trace.Entries()
	res.Timeline = timeline.FormatEntries(res.Trace)
	res.Hash = timeline.HashTimeline(res.Timeline) // timeline.Trace.Hash without rendering the trace again
	return res
}

// pickTool is the tool a caller with no Tool of its own calls: the world's
// DefaultTool, else the only tool the server lists.
func pickTool(w World, tools []*mcp.Tool) (string, error) {
	if w.DefaultTool != "" {
		return w.DefaultTool, nil
	}
	needed := false
	for _, c := range w.Callers {
		needed = needed || c.Tool == ""
	}
	switch {
	case !needed:
		return "", nil
	case len(tools) == 1:
		return tools[0].Name, nil
	case len(tools) == 0:
		return "", errors.New("the server lists no tool: the tool setup registered none")
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return "", fmt.Errorf("the server lists %d tools (%s): each caller must name the one it calls (tool:)", len(tools), strings.Join(names, ", "))
}

// countCalls is the world's own account of tool call ids (Env.SetCallIDs):
// every tools/call the server receives gets the next id, and is its
// session's latest.
func (wr *worldRun) countCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				wr.mu.Lock()
				wr.callN++
				id := wr.callN
				if wr.lastCall == nil {
					wr.lastCall = map[*mcp.ServerSession]uint64{}
				}
				wr.lastCall[ss] = id
				wr.mu.Unlock()
				ctx = context.WithValue(ctx, callIDKey{}, id)
			}
		}
		return next(ctx, method, req)
	}
}

type callIDKey struct{}

// CallIDFrom returns the world's id of the tool call whose handling ctx
// belongs to (the n-th tools/call the world's server received, from 1), for
// a simulated service that attributes its requests to calls; ok is false
// outside a tool call. A tool that passes its handler's context on to the
// services it reads keeps it.
func CallIDFrom(ctx context.Context) (id uint64, ok bool) {
	id, ok = ctx.Value(callIDKey{}).(uint64)
	return id, ok
}

// caller is one running CallerSpec.
type caller struct {
	wr   *worldRun
	spec CallerSpec
	cs   *mcp.ClientSession
	wire *wire // nil over memory

	lastID uint64 // the tool call id of this caller's latest call
	// ended says why the caller's session is over (the Python client ends
	// it at a failure before the headers); "" while it is not.
	ended string

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
	c.wr.progress[token] = append(c.wr.progress[token], ProgressNote{AtMs: c.wr.k.NowMs(), Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
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
		c.wr.k.WakeUp() // the world may be finished
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
			if c.ended != "" {
				c.wr.k.Trace.Addf(c.actor(), "no retry: the session ended (%s)", c.ended)
				return
			}
			if strings.HasPrefix(cr.LostBy, LostByHang) {
				return // the client is still waiting: it never learns of the failure
			}
			next, ok, why := c.retry(cr)
			if !ok {
				c.wr.k.Trace.Addf(c.actor(), "no retry: %s", why)
				return
			}
			args = next
			continue
		}
		if !c.spec.Follow || c.wr.w.Next == nil || cr.Lost || cr.Raw == nil {
			return
		}
		next, ok := c.wr.w.Next(cr)
		if !ok {
			return
		}
		args = next
	}
	c.wr.k.Trace.Addf(c.actor(), "chain stopped after %d calls (maxCalls)", maxCalls)
}

// retry is the next call after the transport lost cr (World.Retry); by
// default the same arguments again, unless the transport failed at once (a
// session given up), when calling again would fail the same way.
func (c *caller) retry(cr CallResult) (map[string]any, bool, string) {
	if c.wr.w.Retry != nil {
		return c.wr.w.Retry(cr)
	}
	if cr.EndMs == cr.StartMs {
		return nil, false, "the transport failed at once"
	}
	return cr.Args, true, ""
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
	params := &mcp.CallToolParams{Name: c.spec.Tool, Arguments: args}
	reset := make(chan struct{})
	c.mu.Lock()
	c.token = ""
	if c.spec.Progress {
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
	var dueMs atomic.Int64 // when the request timeout fires (-1: never)
	dueMs.Store(-1)
	if d := c.timeout(); d >= 0 {
		dueMs.Store(k.NowMs() + d)
		timer := k.Clock.CallerTimer(time.Duration(d) * time.Millisecond)
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
					dueMs.Store(k.NowMs() + d)
					timer = k.Clock.CallerTimer(time.Duration(d) * time.Millisecond)
				case <-stop:
					timer.Stop()
					return
				}
			}
		}()
	}
	var res *mcp.CallToolResult
	var err error
	if c.ended != "" {
		// The Python client ended its session: no call goes out.
		err = errors.New(c.ended)
	} else {
		res, err = c.cs.CallTool(callCtx, params)
	}
	c.mu.Lock()
	c.resetCh = nil
	c.mu.Unlock()
	var loss cutLoss
	if err != nil && c.wire != nil {
		loss = c.wire.lostBy(err)
	}
	hang := ""
	if loss.why != "" && c.spec.Client.pendingAfterCut(loss) {
		// The real client saw the stream end after its headers with no
		// event id to resume with: it keeps waiting, for its own timeout or
		// for ever (contract §4).
		select {
		case <-lost:
		default:
			if due := dueMs.Load(); due >= 0 && due <= k.HorizonMs {
				k.Trace.Addf(c.actor(), "call %d: stream cut after its headers (%s), no event id seen: the %s waits for its request timeout", index, loss.why, c.spec.Client.Label())
				<-lost
			} else {
				hang = fmt.Sprintf("%sthe stream was cut after its headers (%s), no event id seen, and the %s has no request timeout before the horizon", LostByHang, loss.why, c.spec.Client.Label())
			}
		}
	}
	close(stop)
	cr.EndMs = k.NowMs()
	if c.wire != nil {
		cr.WireDelayMs = c.wire.wireDelay()
	}
	cr.Cut = loss.where()
	select {
	case <-lost:
		cr.Lost, cr.LostBy = true, LostByTimeout
		if c.spec.Client.pendingAfterCut(loss) {
			cr.CutBy = loss.why
		}
	default:
		why := loss.why
		if c.ended != "" && loss.why == "" {
			why = LostBySessionEnded + c.ended
		}
		switch {
		case hang != "":
			cr.Lost, cr.LostBy = true, hang
			k.Trace.Addf(c.actor(), "call %d: stream cut after its headers (%s), no event id seen: the %s waits for ever: reply LOST (hang)", index, loss.why, c.spec.Client.Label())
		case why != "":
			cr.Lost, cr.LostBy = true, why
			k.Trace.Addf(c.actor(), "call %d: transport failure (%s): reply LOST", index, why)
			if c.ended == "" && c.spec.Client.endsSession(loss) {
				c.ended = fmt.Sprintf("the %s ends its session at a failure before the headers: %s", c.spec.Client.Label(), why)
				k.Trace.Addf(c.actor(), "session ended: the %s ends it at a failure before the headers", c.spec.Client.Label())
			}
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
			c.wr.received(len(cr.ErrorText))
		default:
			raw, _ := json.Marshal(res.StructuredContent)
			c.wr.received(len(raw))
			cr.StructuredJSON = raw
			_ = json.Unmarshal(raw, &cr.Raw)
			text := replyText
			if c.wr.w.ReplyText != nil {
				text = c.wr.w.ReplyText
			}
			k.Trace.Addf(c.actor(), "call %d: reply %s", index, text(cr.Raw))
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

// lastCallOf returns the id of the latest tool call made by caller name:
// the ToolSetup's account (Env.SetCallIDs) or the world's own.
func (wr *worldRun) lastCallOf(name string) uint64 {
	wr.mu.Lock()
	sessions := make([]*mcp.ServerSession, 0, 1)
	for s, n := range wr.sessions {
		if n == name {
			sessions = append(sessions, s)
		}
	}
	own := wr.lastCall
	wr.mu.Unlock()
	var id uint64
	for _, s := range sessions {
		last := own[s]
		if wr.callIDs != nil {
			last = wr.callIDs(s)
		}
		id = max(id, last)
	}
	return id
}

// replyText renders a reply's fields in key order, each as JSON.
func replyText(raw map[string]any) string {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		b, _ := json.Marshal(raw[k])
		parts = append(parts, k+"="+string(b))
	}
	return strings.Join(parts, " ")
}
