//go:build realclock

package waittool_test

// The tool on the REAL clock (contract §2 step 12): the one place where wall
// time is the point, kept out of the deterministic suite by the realclock
// build tag. `make realclock` runs it (about a minute of wall time):
//
//	go test -tags realclock -count=1 -v -run '^TestRealClock' ./waittool/
//
// It serves the tool on clock.New() with an instant in-process bridge over the
// SDK's in-memory transport (realServer: with the real clock's Machine,
// machine.Twin, see withMachine), and counts the replies that lose their
// outputs and the progress notifications above total or not growing; one test
// puts a last sleep shorter than a millisecond into each call.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/waittool"
)

// instantBridge answers at once: one running agent with one message.
type instantBridge struct{}

func (instantBridge) ListAgents(context.Context, string) ([]waittool.Agent, error) {
	return []waittool.Agent{{SessionID: "c", State: "running"}}, nil
}

func (instantBridge) ReadOutputs(_ context.Context, _ string, ids []string) ([]waittool.AgentOutput, error) {
	out := make([]waittool.AgentOutput, len(ids))
	for i, id := range ids {
		out[i] = waittool.AgentOutput{SessionID: id, Messages: []string{"working"}}
	}
	return out, nil
}

// realTally counts what the callers saw.
type realTally struct {
	mu                    sync.Mutex
	calls, lostOutputs    int
	notes, aboveTotal     int
	notGrowing, strayNote int
	lastProgress          map[string]float64
	ends                  map[string]int // lost / not issued reads, by kind
	maxOverMs             float64        // the largest resolve time past the deadline, ms
	overMs                []float64      // every call's resolve time past its deadline, ms
}

// observe counts how final reads and polls ended (the tool's own account, for
// the diagnosis printed by report).
func (rt *realTally) observe(e waittool.Event) {
	if e.Kind != waittool.EvLost && e.Kind != waittool.EvNotIssued {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.ends[string(e.Kind)+" "+e.Detail]++
}

func (rt *realTally) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	p := req.Params
	rt.notes++
	tok, ok := p.ProgressToken.(string)
	if !ok || tok == "" {
		rt.strayNote++
		return
	}
	if p.Progress > p.Total {
		rt.aboveTotal++
	}
	if last, seen := rt.lastProgress[tok]; seen && p.Progress <= last {
		rt.notGrowing++
	}
	rt.lastProgress[tok] = p.Progress
}

// realServer returns one server holding the tool on the real clock; every
// session of a test connects to it, as clients of one deployed tool do.
func realServer(rt *realTally) *mcp.Server { return realServerObserved(rt.observe) }

// realServerObserved is realServer with the tool's events going to observe.
func realServerObserved(observe func(waittool.Event)) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "waitsim-real", Version: "v0"}, nil)
	opts := waittool.Options{Clock: clock.New(), Bridge: instantBridge{}, Observer: observe}
	withMachine(&opts)
	waittool.Register(server, opts)
	return server
}

// realSession connects one client session to server.
func realSession(t *testing.T, server *mcp.Server, rt *realTally) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "real-caller", Version: "v0"},
		&mcp.ClientOptions{ProgressNotificationHandler: rt.onProgress})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// realCall makes one call and returns its reply; it counts lost outputs.
func realCall(t *testing.T, cs *mcp.ClientSession, rt *realTally, token string, timeoutMs int) waittool.Reply {
	params := &mcp.CallToolParams{Name: waittool.ToolName,
		Arguments: map[string]any{"timeoutMs": timeoutMs, "pollIntervalMs": 250}}
	if token != "" {
		params.SetProgressToken(token)
	}
	start := time.Now()
	res, err := cs.CallTool(context.Background(), params)
	took := time.Since(start)
	if err != nil || res.IsError {
		t.Errorf("call %s: %v %v", token, err, res)
		return waittool.Reply{}
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var rep waittool.Reply
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	over := float64(took-time.Duration(min(timeoutMs, waittool.CallCapMs))*time.Millisecond) / float64(time.Millisecond)
	rt.mu.Lock()
	rt.calls++
	if rep.OutputsUnavailable || len(rep.Outputs) != 1 {
		rt.lostOutputs++
	}
	if len(rt.overMs) == 0 || over > rt.maxOverMs {
		rt.maxOverMs = over
	}
	rt.overMs = append(rt.overMs, over)
	rt.mu.Unlock()
	return rep
}

// overQuantile is the q-quantile (0..1) of the calls' resolve times past
// their deadlines, in ms.
func (rt *realTally) overQuantile(q float64) float64 {
	if len(rt.overMs) == 0 {
		return 0
	}
	s := slices.Clone(rt.overMs)
	slices.Sort(s)
	return s[max(int(math.Ceil(q*float64(len(s))))-1, 0)]
}

func (rt *realTally) report(t *testing.T, what string) {
	t.Logf("%s: %d calls, %d lost their outputs; %d progress notifications, %d above total, %d not growing, %d without a token; latest reply %.1f ms after its deadline; reads that lost or were not issued: %v",
		what, rt.calls, rt.lostOutputs, rt.notes, rt.aboveTotal, rt.notGrowing, rt.strayNote, rt.maxOverMs, rt.ends)
	if rt.lostOutputs != 0 || rt.aboveTotal != 0 || rt.notGrowing != 0 || rt.strayNote != 0 {
		t.Errorf("%s: the tool broke a promise of contract §2 steps 11–12 on the real clock", what)
	}
}

// TestRealClockOneSecond: 100 one-second calls (timeoutMs 1000, poll 250),
// 25 sessions in parallel, half of them with a progress token.
func TestRealClockOneSecond(t *testing.T) {
	rt := &realTally{lastProgress: map[string]float64{}, ends: map[string]int{}}
	oneSecondCalls(t, realServer(rt), rt)
	rt.report(t, "one-second calls")
}

// oneSecondCalls makes 100 one-second calls (timeoutMs 1000) on server: 25
// sessions in parallel, 4 calls each, half of them with a progress token.
func oneSecondCalls(t *testing.T, server *mcp.Server, rt *realTally) {
	var wg sync.WaitGroup
	for s := range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := realSession(t, server, rt)
			for i := range 4 {
				token := ""
				if (s+i)%2 == 0 {
					token = fmt.Sprintf("s%d/%d", s, i)
				}
				realCall(t, cs, rt, token, 1000)
			}
		}()
	}
	wg.Wait()
}

// TestRealClockCappedChains: 10 chains in parallel, each following
// remainingMs from timeoutMs 32000 (a capped 30 s call, then about 2 s),
// every call with a progress token.
func TestRealClockCappedChains(t *testing.T) {
	rt := &realTally{lastProgress: map[string]float64{}, ends: map[string]int{}}
	server := realServer(rt)
	var wg sync.WaitGroup
	for s := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := realSession(t, server, rt)
			timeout := 32000
			for i := 0; i < 5; i++ {
				rep := realCall(t, cs, rt, fmt.Sprintf("chain%d/%d", s, i), timeout)
				if rep.RemainingMs == nil {
					return
				}
				timeout = *rep.RemainingMs
			}
		}()
	}
	wg.Wait()
	rt.report(t, "capped chains")
}

// spin is how long before its due time a timer of preciseClock, or
// sleepUntil, stops sleeping and spins: more than Go's timers are late on a
// busy machine of the project's kind (1–3 ms, contract §2 step 12).
const spin = 3 * time.Millisecond

// sleepUntil returns at t, within microseconds: it sleeps to spin before t,
// then spins.
func sleepUntil(t time.Time) {
	if d := time.Until(t) - spin; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
}

// preciseClock is the real clock whose timers fire within microseconds of
// their due time (sleepUntil), as an idle machine's do: a sleep shorter than
// a millisecond then ends within the ms it was due in, which Go's own timers
// on a busy machine (late by 1–3 ms) rarely allow. Time is the machine's.
type preciseClock struct{ clock.Clock }

func (c preciseClock) Timer(d time.Duration) *clock.Timer {
	due := time.Now().Add(d)
	ch := make(chan time.Time, 1)
	t := c.Clock.AfterFunc(max(d-spin, 0), func() {
		sleepUntil(due)
		ch <- time.Now()
	})
	t.C = ch
	return t
}

// poisingBridge places one poll of each call just before the call's
// reserve (contract §2 steps 6 and 12), so that the poll after it sleeps
// less than a millisecond. Its first list takes hold (the read cost c from
// then on); every later list is instant, but for the one after which a
// poll interval ends within hold of the instant B − x, B = deadline − 2c −
// the 20 ms floor the reserve keeps for the machine: that list is held to
// end exactly a poll interval before B − x. The full sleep after it wakes
// x before the reserve, less its lateness, and the last sleep is what is
// left of x: under a millisecond, its wake within the whole ms of the
// notification before when x and the wakes' lateness are small.
type poisingBridge struct {
	instantBridge
	hold, poll, x time.Duration
	mu            sync.Mutex
	calls         map[uint64]*poisedCall
}

type poisedCall struct {
	lists int
	cost  time.Duration // the first list's time, as the bridge took it
}

func (b *poisingBridge) ListAgents(ctx context.Context, run string) ([]waittool.Agent, error) {
	start := time.Now()
	ci, _ := waittool.CallInfoFrom(ctx)
	b.mu.Lock()
	c := b.calls[ci.ID]
	if c == nil {
		c = &poisedCall{}
		b.calls[ci.ID] = c
	}
	c.lists++
	first, cost := c.lists == 1, c.cost
	b.mu.Unlock()
	if first {
		sleepUntil(start.Add(b.hold))
		b.mu.Lock()
		c.cost = time.Since(start)
		b.mu.Unlock()
	} else if end := ci.Deadline.Add(-2*cost - waittool.MachineDelayFloorMs*time.Millisecond - b.x - b.poll); end.After(start) && end.Sub(start) < cost-time.Millisecond {
		sleepUntil(end)
	}
	return b.instantBridge.ListAgents(ctx, run)
}

// subMsTally follows each call through the tool's events: the polls that
// woke from a sleep shorter than a millisecond (subMs) and, of those, the
// ones within the whole ms of the call's last progress notification before
// that sleep (hits), where a notification would not grow.
type subMsTally struct {
	mu          sync.Mutex
	calls       map[uint64]*subMsCall
	subMs, hits int
}

type subMsCall struct {
	lastSent, before int64 // the last progress sent, and the last before the latest sleep, ms
	sleptSubMs, woke bool  // the latest sleep was under 1 ms; it ended and its poll's list is not yet issued
	counted          bool  // this poll is a hit already
}

func (st *subMsTally) observe(e waittool.Event) {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := st.calls[e.Call.ID]
	if c == nil {
		c = &subMsCall{}
		st.calls[e.Call.ID] = c
	}
	switch e.Kind {
	case waittool.EvSleep:
		c.sleptSubMs, c.woke, c.before, c.counted = e.Detail == "0", true, c.lastSent, false
	case waittool.EvProgress:
		_, _ = fmt.Sscan(e.Detail, &c.lastSent)
		if c.woke && c.sleptSubMs && c.before > 0 && c.lastSent == c.before {
			st.hits++ // a notification that repeats the one before: the callers see it
			c.counted = true
		}
	case waittool.EvIssue:
		if e.Detail != "list" || !c.woke {
			return
		}
		c.woke = false
		if !c.sleptSubMs {
			return
		}
		st.subMs++
		// the poll's elapsed ms, as its notification would have said it
		// (the list is issued microseconds after that point)
		if !c.counted && c.before > 0 && e.At.Sub(e.Call.StartedAt).Milliseconds() == c.before {
			st.hits++
		}
	}
}

// TestRealClockProgressSubMillisecond: when the last sleep of a call is
// shorter than a millisecond, its poll can come within the whole ms of the
// poll before; progress must still grow from one notification to the next
// and never exceed total (contract §2 steps 11 and 12): no notification is
// sent there. Calls of 2000 ms, polling every 250 ms with a progress token,
// on preciseClock, each placed by poisingBridge (a first list of 300 ms, x
// from 0.2 to 0.9 ms); batches of 10 sessions run until 3 such polls came
// within the ms of the notification before (at most 20 batches).
func TestRealClockProgressSubMillisecond(t *testing.T) {
	rt := &realTally{lastProgress: map[string]float64{}, ends: map[string]int{}}
	st := &subMsTally{calls: map[uint64]*subMsCall{}}
	const batch, batches, want = 10, 20, 3
	server := mcp.NewServer(&mcp.Implementation{Name: "waitsim-real", Version: "v0"}, nil)
	bridges := make([]*poisingBridge, 8)
	for i := range bridges {
		bridges[i] = &poisingBridge{hold: 300 * time.Millisecond, poll: 250 * time.Millisecond,
			x: time.Duration(200+100*i) * time.Microsecond, calls: map[uint64]*poisedCall{}}
	}
	mux := bridgeByCall{pick: func(id uint64) waittool.Bridge { return bridges[id%uint64(len(bridges))] }}
	waittool.Register(server, waittool.Options{Clock: preciseClock{clock.New()}, Bridge: mux, Observer: func(e waittool.Event) {
		rt.observe(e)
		st.observe(e)
	}})
	for i := 0; i < batches; i++ {
		var wg sync.WaitGroup
		for s := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cs := realSession(t, server, rt)
				realCall(t, cs, rt, fmt.Sprintf("b%d/s%d", i, s), 2000)
			}()
		}
		wg.Wait()
		st.mu.Lock()
		hits := st.hits
		st.mu.Unlock()
		if hits >= want {
			break
		}
	}
	t.Logf("polls after a sleep under 1 ms: %d, within the ms of the notification before: %d", st.subMs, st.hits)
	rt.report(t, "sub-millisecond last sleeps")
	if st.hits == 0 {
		t.Errorf("no call slept less than a millisecond into the ms of its last notification: the case this test is for was not reached (a loaded machine?)")
	}
}

// bridgeByCall hands each call's reads to the bridge pick chooses by the
// call's id.
type bridgeByCall struct {
	pick func(id uint64) waittool.Bridge
}

func (m bridgeByCall) ListAgents(ctx context.Context, run string) ([]waittool.Agent, error) {
	ci, _ := waittool.CallInfoFrom(ctx)
	return m.pick(ci.ID).ListAgents(ctx, run)
}

func (m bridgeByCall) ReadOutputs(ctx context.Context, run string, ids []string) ([]waittool.AgentOutput, error) {
	ci, _ := waittool.CallInfoFrom(ctx)
	return m.pick(ci.ID).ReadOutputs(ctx, run, ids)
}
