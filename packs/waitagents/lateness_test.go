package waitagents

import (
	"context"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/sim/timeline"

	"github.com/waitsim/waitsim/waittool"
)

// TestLateTimers: with lateMs 3 a one-second call's sleeps each fire 3 ms
// late, the trace says so, and the poll list a late wake issues carries the
// wake's lateness; caller timeouts stay exact.
func TestLateTimers(t *testing.T) {
	w := world("late", bridge.Script{}, []AgentSpec{{ID: "c", State: "running", Messages: []string{"m"}}},
		sim.CallerSpec{Name: "A", RequestTimeoutMs: 500, Args: map[string]any{"timeoutMs": 1000, "pollIntervalMs": 250}})
	w.Timers = timeline.TimerScript{LateMs: 3}
	res := mustRun(t, w)
	if !strings.Contains(res.Timeline, "tool timer fired 3 ms late (due at 250 ms)") {
		t.Errorf("the trace does not record the first sleep's lateness:\n%s", res.Timeline)
	}
	if c := res.Call("A", 1); !c.Lost || c.EndMs != 500 {
		t.Errorf("the caller's 500 ms timeout must stay exact: lost %v at %d ms", c.Lost, c.EndMs)
	}
	if r := req(t, res, "list", 1); r.WakeLateMs != nil {
		t.Errorf("the first list follows no wake, yet carries WakeLateMs %d", *r.WakeLateMs)
	}
	r := req(t, res, "list", 2)
	if r.IssuedMs != 253 || r.WakeLateMs == nil || *r.WakeLateMs != 3 {
		t.Errorf("second list issued at %d with WakeLateMs %v, want 253 and 3", r.IssuedMs, r.WakeLateMs)
	}
	if res.MaxTimerLateMs != 3 {
		t.Errorf("MaxTimerLateMs = %d, want 3", res.MaxTimerLateMs)
	}
}

// TestJitterIsSeeded: the same seed gives the same trace, another seed
// another one, and every wake's lateness stays within lateMs..lateMs+jitterMs.
func TestJitterIsSeeded(t *testing.T) {
	mk := func(seed uint64) World {
		w := world("jitter", bridge.Script{JitterMs: 9}, []AgentSpec{{ID: "c", State: "running"}},
			mkCaller("A", map[string]any{"timeoutMs": 5000, "pollIntervalMs": 250}))
		w.Timers, w.Seed = timeline.TimerScript{LateMs: 1, JitterMs: 4}, seed
		return w
	}
	a, b, c := mustRun(t, mk(1)), mustRun(t, mk(1)), mustRun(t, mk(2))
	if a.Hash != b.Hash {
		t.Errorf("the same seed gave two traces")
	}
	if a.Hash == c.Hash {
		t.Errorf("seeds 1 and 2 gave the same trace")
	}
	if a.MaxTimerLateMs < 1 || a.MaxTimerLateMs > 5 {
		t.Errorf("MaxTimerLateMs = %d, want 1..5", a.MaxTimerLateMs)
	}
	jittered := 0
	for _, r := range a.Requests {
		if r.JitterMs < 0 || r.JitterMs > 9 {
			t.Errorf("request #%d jitter %d out of 0..9", r.ID, r.JitterMs)
		}
		if r.JitterMs > 0 {
			jittered++
			if got := r.CompletedMs - r.DispatchedMs; got != r.JitterMs {
				t.Errorf("request #%d took %d ms, want its jitter %d", r.ID, got, r.JitterMs)
			}
		}
	}
	if jittered == 0 {
		t.Error("no request was jittered")
	}
}

// stormBridge lists n times for every list the tool asks for, as a tool
// whose poll sleeps were 0 ms would.
type stormBridge struct {
	waittool.Bridge
	n int
}

func (s stormBridge) ListAgents(ctx context.Context, runID string) ([]waittool.Agent, error) {
	for range s.n - 1 {
		if _, err := s.Bridge.ListAgents(ctx, runID); err != nil {
			return nil, err
		}
	}
	return s.Bridge.ListAgents(ctx, runID)
}

// TestPollStorm: a call capped at 1000 ms may list at most 1000/250 + 2 = 6
// times; the 7th list fails the world at once with bridge.ErrPollStorm.
func TestPollStorm(t *testing.T) {
	mk := func(n int) World {
		w := world("storm", bridge.Script{}, runningC, mkCaller("A", map[string]any{"timeoutMs": 1000, "pollIntervalMs": 10000}))
		w.WrapBridge = func(b waittool.Bridge) waittool.Bridge { return stormBridge{b, n} }
		return w
	}
	if res := RunWorld(t, mk(3)); res.Err != "" {
		t.Fatalf("6 lists in a 1000 ms call are allowed: %s", res.Err)
	}
	res := RunWorld(t, mk(4))
	if !strings.Contains(res.Err, bridge.ErrPollStorm.Error()) || !strings.Contains(res.Err, "issued 7 lists") {
		t.Fatalf("8 lists in a 1000 ms call: error %q, want a poll storm at the 7th", res.Err)
	}
}
