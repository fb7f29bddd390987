package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowIn is the input of the slow tool of these tests.
type slowIn struct {
	Ms int `json:"ms"`
}

// slowTool registers "slow": it sleeps ms milliseconds with time.Sleep (the
// bubble's clock), sending a progress notification every 10 s when the
// call carries a token, and replies {"slept": ms}. It knows nothing of
// waitsim.
func slowTool(env *Env) error {
	mcp.AddTool(env.Server, &mcp.Tool{Name: "slow", Description: "sleeps"}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, map[string]any, error) {
		start := time.Now()
		for left := time.Duration(in.Ms) * time.Millisecond; left > 0; {
			step := min(left, 10*time.Second)
			time.Sleep(step)
			left -= step
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
					Progress: float64(time.Since(start).Milliseconds()), Total: float64(in.Ms)})
			}
		}
		return nil, map[string]any{"slept": in.Ms}, nil
	})
	return nil
}

// A tool that sleeps with package time runs in virtual time: a 90 s call is
// lost behind a 60 s request timeout, and saved by progress with the reset;
// over memory and over SSE.
func TestBubbleClockTool(t *testing.T) {
	for _, mode := range []TransportMode{ModeMemory, ModeSSE} {
		w := World{Name: "slow", Clock: ClockBubble, Tool: slowTool, Transport: &TransportSpec{Mode: mode},
			Callers: []CallerSpec{
				{Name: "ts", Args: map[string]any{"ms": 90000}, RequestTimeoutMs: 60000},
				{Name: "reset", Args: map[string]any{"ms": 90000}, RequestTimeoutMs: 60000, Progress: true, ResetOnProgress: true},
				{Name: "short", StartMs: 5, Args: map[string]any{"ms": 2500}},
			}}
		start := time.Now()
		res := RunWorld(t, w)
		if res.Err != "" {
			t.Fatalf("%s: %s\n%s", mode, res.Err, res.Timeline)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: a 90 s world took %v of wall time", mode, d)
		}
		if c := res.Call("ts", 1); !c.Lost || c.LostBy != LostByTimeout || c.EndMs != 60000 {
			t.Errorf("%s: ts: lost %v by %q at %d, want lost by the request timeout at 60000\n%s", mode, c.Lost, c.LostBy, c.EndMs, res.Timeline)
		}
		if c := res.Call("reset", 1); c.Lost || c.EndMs != 90000 || c.Raw["slept"] != float64(90000) || c.Progress != 9 {
			t.Errorf("%s: reset: lost %v at %d, reply %v, %d notes; want received at 90000 with 9 notes\n%s", mode, c.Lost, c.EndMs, c.Raw, c.Progress, res.Timeline)
		}
		if c := res.Call("short", 1); c.Lost || c.EndMs != 2505 {
			t.Errorf("%s: short: lost %v at %d, want received at 2505", mode, c.Lost, c.EndMs)
		}
		if !strings.Contains(res.Timeline, `reply slept=90000`) {
			t.Errorf("%s: the trace lacks the reply:\n%s", mode, res.Timeline)
		}
	}
}

// The same bubble-clock world gives one trace, run after run.
func TestBubbleClockDeterminism(t *testing.T) {
	w := World{Name: "slow", Clock: ClockBubble, Tool: slowTool,
		Callers: []CallerSpec{
			{Name: "a", Progress: true, Args: map[string]any{"ms": 30000}},
			{Name: "b", Progress: true, Args: map[string]any{"ms": 30000}},
			{Name: "c", StartMs: 10000, Args: map[string]any{"ms": 20000}, RequestTimeoutMs: 20000},
		}}
	first := RunWorld(t, w)
	if first.Err != "" {
		t.Fatal(first.Err)
	}
	for i := range 30 {
		if res := RunWorld(t, w); res.Hash != first.Hash {
			t.Fatalf("run %d differs:\n%s\nvs\n%s", i, first.Timeline, res.Timeline)
		}
	}
	// c's reply is built at 30000, the instant of its timeout: received.
	if c := first.Call("c", 1); c.Lost || c.EndMs != 30000 {
		t.Errorf("c: lost %v at %d; a reply at the timeout's instant is received\n%s", c.Lost, c.EndMs, first.Timeline)
	}
}

// A caller whose own timeout lies beyond the world's horizon (Claude Code's
// 27.8 h) still gets a reply the tool's own timers bring sooner: the kernel
// lets the bubble's clock run to the horizon before it gives up.
func TestBubbleClockTimeoutBeyondHorizon(t *testing.T) {
	res := RunWorld(t, World{Name: "far", Clock: ClockBubble, Tool: slowTool,
		Callers: []CallerSpec{{Name: "cc", RequestTimeoutMs: 100000000, Args: map[string]any{"ms": 5000}}}})
	if res.Err != "" {
		t.Fatalf("%s\n%s", res.Err, res.Timeline)
	}
	if c := res.Call("cc", 1); c.Lost || c.EndMs != 5000 {
		t.Errorf("lost %v at %d ms, want received at 5000", c.Lost, c.EndMs)
	}
	// With nothing due before it, the horizon still ends a world.
	res = RunWorld(t, World{Name: "stuck", Clock: ClockBubble, HorizonMs: 60000, Tool: slowTool,
		Callers: []CallerSpec{{Name: "cc", RequestTimeoutMs: 100000000, Args: map[string]any{"ms": 600000}}}})
	if !strings.Contains(res.Err, "horizon") {
		t.Errorf("a world past its horizon: err %q", res.Err)
	}
}

// Calls that start at one instant and end at another are listed by start,
// then caller, then call, on every run: they are recorded as they end, in
// the goroutines' order, which varies (the trace orders them itself, so
// its hash never showed it; the results' calls and the run table flipped).
func TestCallsOrderStable(t *testing.T) {
	w := World{Name: "ties", Clock: ClockBubble, Tool: slowTool}
	for _, name := range []string{"d", "b", "a", "c", "e", "f"} {
		w.Callers = append(w.Callers, CallerSpec{Name: name, Args: map[string]any{"ms": 1000}})
	}
	for run := range 20 {
		res := RunWorld(t, w)
		if res.Err != "" {
			t.Fatal(res.Err)
		}
		var got []string
		for _, c := range res.Calls {
			got = append(got, c.Caller)
		}
		if strings.Join(got, "") != "abcdef" {
			t.Fatalf("run %d: calls in the order %q, want abcdef", run, got)
		}
	}
}

// A world whose callers receive more bytes of replies than its bound ends
// with ErrRepliesFull (its replies are kept until its case ends); at the
// bound it runs to its end.
func TestRepliesBounded(t *testing.T) {
	one := len(`{"slept":1000}`)
	for _, c := range []struct {
		limit int
		full  bool
	}{{3 * one, false}, {3*one - 1, true}} {
		w := World{Name: "replies", Clock: ClockBubble, Tool: slowTool, ReplyBytes: c.limit}
		for i, name := range []string{"a", "b", "c"} {
			w.Callers = append(w.Callers, CallerSpec{Name: name, StartMs: int64(i) * 2000, Args: map[string]any{"ms": 1000}})
		}
		res := RunWorld(t, w)
		if full := strings.Contains(res.Err, ErrRepliesFull.Error()); full != c.full || (!c.full && res.Err != "") {
			t.Errorf("limit %d for 3 replies of %d bytes: error %q, want full %t", c.limit, one, res.Err, c.full)
		}
	}
}
