package waitagents

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/sim/timeline"
)

func world(name string, b bridge.Script, agents []AgentSpec, callers ...sim.CallerSpec) World {
	return World{Name: name, Bridge: b, Agents: agents, Callers: callers}
}

var runningC = []AgentSpec{{ID: "c", State: "running"}}
var doneC = []AgentSpec{{ID: "c", State: "completed"}}

func mkCaller(name string, args map[string]any) sim.CallerSpec {
	return sim.CallerSpec{Name: name, Args: args}
}

func mustRun(t *testing.T, w World) *Result {
	t.Helper()
	res := RunWorld(t, w)
	if res.Err != "" {
		t.Fatalf("%s: %s\n%s", w.Name, res.Err, res.Timeline)
	}
	return res
}

// req returns the n-th (1-based) request of op.
func req(t *testing.T, res *Result, op string, n int) bridge.Request {
	t.Helper()
	k := 0
	for _, r := range res.Requests {
		if r.Op == op {
			k++
			if k == n {
				return r
			}
		}
	}
	t.Fatalf("no %s request #%d in %+v", op, n, res.Requests)
	return bridge.Request{}
}

func times(t *testing.T, r bridge.Request, issued, dispatched, completed int64) {
	t.Helper()
	if r.IssuedMs != issued || r.DispatchedMs != dispatched || r.CompletedMs != completed {
		t.Errorf("%s #%d: issued %d dispatched %d completed %d, want %d %d %d", r.Op, r.ID,
			r.IssuedMs, r.DispatchedMs, r.CompletedMs, issued, dispatched, completed)
	}
}

func TestConstantLatency(t *testing.T) {
	res := mustRun(t, world("const", bridge.Script{List: []bridge.Step{{LatencyMs: 700}}, Read: []bridge.Step{{LatencyMs: 300}}}, doneC,
		mkCaller("A", nil)))
	times(t, req(t, res, "list", 1), 0, 0, 700)
	times(t, req(t, res, "read", 1), 700, 700, 1000)
	if c := res.Call("A", 1); c.EndMs != 1000 {
		t.Errorf("resolved at %d, want 1000", c.EndMs)
	}
}

func TestLatencyListLastRepeats(t *testing.T) {
	res := mustRun(t, world("list", bridge.Script{List: []bridge.Step{{LatencyMs: 100}, {LatencyMs: 400}}}, runningC,
		mkCaller("A", map[string]any{"timeoutMs": 3000})))
	times(t, req(t, res, "list", 1), 0, 0, 100)
	times(t, req(t, res, "list", 2), 1100, 1100, 1500)
	// The last step repeats; the sleep before it is clamped to deadline − 2·cost.
	times(t, req(t, res, "list", 3), 2200, 2200, 2600)
}

func TestStallWithBridgeTimeout(t *testing.T) {
	res := mustRun(t, world("stall", bridge.Script{List: []bridge.Step{{Stall: true}}}, runningC,
		mkCaller("A", map[string]any{"timeoutMs": 1000}), sim.CallerSpec{Name: "B", StartMs: 1000, Args: map[string]any{"timeoutMs": 60000}, RequestTimeoutMs: -1}))
	r := req(t, res, "list", 1)
	times(t, r, 0, 0, 30000) // the reference's 30 s timeout starts at dispatch
	if r.Err != "bridge timeout after 30000 ms" {
		t.Errorf("error %q", r.Err)
	}
	// B's list queues behind the stalled one (no cancellation frees the slot),
	// and is itself stalled when B gives up at 31000.
	times(t, req(t, res, "list", 2), 1000, 30000, -1)
}

func TestStallForeverHoldsSlot(t *testing.T) {
	res := mustRun(t, world("stall-forever", bridge.Script{List: []bridge.Step{{Stall: true}}, TimeoutMs: -1}, runningC,
		mkCaller("A", map[string]any{"timeoutMs": 1000}), sim.CallerSpec{Name: "B", StartMs: 5000, Args: map[string]any{"timeoutMs": 1000}}))
	times(t, req(t, res, "list", 1), 0, 0, -1)
	times(t, req(t, res, "list", 2), 5000, -1, -1)
	if b := res.Call("B", 1); b.EndMs != 6000 || !ReplyOf(b).AgentsUnavailable {
		t.Errorf("B: %+v", b.Raw)
	}
	if !strings.Contains(res.Timeline, "list #1 stranded: still in flight at the end") {
		t.Errorf("no stranded note in\n%s", res.Timeline)
	}
}

func TestErrors(t *testing.T) {
	res := mustRun(t, world("errors", bridge.Script{List: []bridge.Step{{LatencyMs: 250, Err: "slow boom"}, {Reject: true}}}, runningC,
		mkCaller("A", map[string]any{"timeoutMs": 5000}), sim.CallerSpec{Name: "B", StartMs: 300, Args: map[string]any{"timeoutMs": 5000}}))
	a, b := req(t, res, "list", 1), req(t, res, "list", 2)
	times(t, a, 0, 0, 250)
	if a.Err != "slow boom" {
		t.Errorf("A's error %q", a.Err)
	}
	times(t, b, 300, -1, 300) // rejected at once, never queued
	if b.Err != "owner window is gone" {
		t.Errorf("B's error %q", b.Err)
	}
}

func TestCongestion(t *testing.T) {
	res := mustRun(t, world("congestion", bridge.Script{List: []bridge.Step{{LatencyMs: 100}}, Congestion: []bridge.Hold{{AtMs: 0, HoldMs: 2500}, {AtMs: 10, HoldMs: 1000}}}, doneC,
		mkCaller("A", map[string]any{"timeoutMs": 10000})))
	// The untimed queue is FIFO: A's list (at 0) goes before the hold at 10.
	times(t, req(t, res, "hold", 1), 0, 0, 2500)
	times(t, req(t, res, "list", 1), 0, 2500, 2600)
	times(t, req(t, res, "hold", 2), 10, 2600, 3600)
}

func TestCacheShares(t *testing.T) {
	res := mustRun(t, world("cache", bridge.Script{List: []bridge.Step{{LatencyMs: 1000}}}, doneC,
		mkCaller("A", nil), sim.CallerSpec{Name: "B", StartMs: 249, Args: nil}, sim.CallerSpec{Name: "C", StartMs: 250, Args: nil}))
	b, c := req(t, res, "list", 2), req(t, res, "list", 3)
	if b.SharedWith != 1 || b.CompletedMs != 1000 {
		t.Errorf("B (249 ms later) should share #1: %+v", b)
	}
	if c.SharedWith != 0 || c.DispatchedMs != 1000 {
		t.Errorf("C (250 ms later) should not share: %+v", c)
	}
}

func TestRosterChanges(t *testing.T) {
	res := mustRun(t, World{Name: "roster", Agents: []AgentSpec{{ID: "a", State: "running"}, {ID: "b", State: "running"}},
		Changes: []Change{{AtMs: 1000, Op: OpJoin, ID: "n", State: "created"}, {AtMs: 2000, Op: OpLeave, ID: "b"}, {AtMs: 3000, Op: OpState, ID: "a", State: "completed"}, {AtMs: 3000, Op: OpState, ID: "n", State: "failed"}},
		Callers: []sim.CallerSpec{mkCaller("A", map[string]any{"timeoutMs": 10000})}})
	c := res.Call("A", 1)
	if c.EndMs != 3000 || !ReplyOf(c).Done || len(ReplyOf(c).Agents) != 2 || ReplyOf(c).Agents[1].SessionID != "n" {
		t.Fatalf("reply at %d: %+v", c.EndMs, c.Raw)
	}
	for _, want := range []string{"1000 ms  run        n joins (created)", "2000 ms  run        b leaves", "list #3 completed: [a=running n=created]"} {
		if !strings.Contains(res.Timeline, want) {
			t.Errorf("timeline lacks %q:\n%s", want, res.Timeline)
		}
	}
}

func TestCallerStartsAndFollows(t *testing.T) {
	res := mustRun(t, world("follow", bridge.Script{}, runningC, sim.CallerSpec{Name: "A", StartMs: 1234, Follow: true, Args: map[string]any{"timeoutMs": 61000}}))
	if len(res.Calls) != 3 {
		t.Fatalf("%d calls, want 3 (61000 → 31000 → 1000)", len(res.Calls))
	}
	for i, want := range [][2]int64{{1234, 31234}, {31234, 61234}, {61234, 62234}} {
		if c := res.Calls[i]; c.StartMs != want[0] || c.EndMs != want[1] {
			t.Errorf("call %d: %d..%d, want %d..%d", i+1, c.StartMs, c.EndMs, want[0], want[1])
		}
	}
}

func TestCallerTimeouts(t *testing.T) {
	res := mustRun(t, world("timeouts", bridge.Script{}, runningC,
		sim.CallerSpec{Name: "Lost", RequestTimeoutMs: 29999, Args: map[string]any{"timeoutMs": 600000}},
		sim.CallerSpec{Name: "Edge", RequestTimeoutMs: 30000, Args: map[string]any{"timeoutMs": 600000}},
		sim.CallerSpec{Name: "Reset", RequestTimeoutMs: 1500, Progress: true, ResetOnProgress: true, Args: map[string]any{"timeoutMs": 600000}},
		// A reset with no token: no notification comes to restart on, as
		// with the TypeScript SDK's resetTimeoutOnProgress and no onprogress.
		sim.CallerSpec{Name: "ResetNoToken", RequestTimeoutMs: 1500, ResetOnProgress: true, Args: map[string]any{"timeoutMs": 600000}},
		sim.CallerSpec{Name: "None", RequestTimeoutMs: -1, Args: map[string]any{"timeoutMs": 600000}}))
	for name, want := range map[string]struct {
		lost bool
		end  int64
	}{"Lost": {true, 29999}, "Edge": {false, 30000}, "Reset": {false, 30000}, "ResetNoToken": {true, 1500}, "None": {false, 30000}} {
		c := res.Call(name, 1)
		if c.Lost != want.lost || c.EndMs != want.end {
			t.Errorf("%s: lost %v at %d, want lost %v at %d", name, c.Lost, c.EndMs, want.lost, want.end)
		}
	}
	if c := res.Call("Reset", 1); c.Progress != 30 {
		t.Errorf("Reset got %d progress notifications, want 30\n%s", c.Progress, res.Timeline)
	}
}

// TestKernelErrors: the virtual horizon, a world standing still and a stuck
// world are different failures.
func TestKernelErrors(t *testing.T) {
	// A dead standstill or stuck check would loop for ever: fail in
	// seconds with a clear message instead of at go test's own timeout.
	defer wallGuard("TestKernelErrors: a kernel error was not detected within 20 s (a dead standstill counter or stuck check?)", 20)()
	res := RunWorld(t, World{Name: "horizon", HorizonMs: 10000, Agents: runningC, Callers: []sim.CallerSpec{mkCaller("A", nil)}})
	if !strings.Contains(res.Err, timeline.ErrHorizon.Error()) {
		t.Errorf("want a horizon error, got %q", res.Err)
	}
	synctest.Test(t, func(t *testing.T) {
		// A loop that sleeps 0 ms never lets virtual time advance.
		k := timeline.NewKernel(sim.DefaultHorizonMs)
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-k.Clock.After(0):
				case <-stop:
					return
				}
			}
		}()
		err := k.Run(func() bool { return false })
		if !errors.Is(err, timeline.ErrStandstill) {
			t.Errorf("want timeline.ErrStandstill, got %v", err)
		}
		close(stop)
	})
	synctest.Test(t, func(t *testing.T) {
		k := timeline.NewKernel(sim.DefaultHorizonMs)
		block := make(chan struct{})
		go func() { <-block }()
		err := k.Run(func() bool { return false })
		if !errors.Is(err, timeline.ErrStuck) {
			t.Errorf("want timeline.ErrStuck, got %v", err)
		}
		close(block)
	})
}
