package waittool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/packs/waitagents/bridge"

	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/waittool"
)

// These tests drive the real tool over the SDK's in-memory transport with a
// real mcp.Client, inside a synctest bubble, on sim's virtual clock (a gated
// clock.Mock). Every figure is read at the instant CallTool returned.

func running(ids ...string) []waitagents.AgentSpec {
	out := make([]waitagents.AgentSpec, len(ids))
	for i, id := range ids {
		out[i] = waitagents.AgentSpec{ID: id, State: "running", Messages: []string{"hello from " + id}}
	}
	return out
}

func lat(ms ...int64) []bridge.Step {
	out := make([]bridge.Step, len(ms))
	for i, m := range ms {
		out[i] = bridge.Step{LatencyMs: m}
	}
	return out
}

func one(args map[string]any) []sim.CallerSpec {
	return []sim.CallerSpec{{Name: "A", Args: args}}
}

func run(t *testing.T, w waitagents.World) *waitagents.Result {
	t.Helper()
	res := waitagents.RunWorld(t, w)
	if res.Err != "" {
		t.Fatalf("world %s: %s\n%s", w.Name, res.Err, res.Timeline)
	}
	return res
}

func count(res *waitagents.Result, op string, callID uint64) int {
	n := 0
	for _, r := range res.Requests {
		if r.Op == op && (callID == 0 || r.CallID == callID) {
			n++
		}
	}
	return n
}

// want is what a row expects of the first call's reply; nil pointers mean
// "not checked", and absent lists fields that must not be in the JSON.
type want struct {
	at        int64
	done      bool
	remaining *int // nil: must be absent
	lists     int  // -1: not checked
	reads     int  // output reads issued; -1: not checked (0 is checked)
	agents    int
	absent    []string
	present   []string
}

func ip(v int) *int { return &v }

func check(t *testing.T, res *waitagents.Result, w want) {
	t.Helper()
	c := res.Call("A", 1)
	if c == nil || waitagents.ReplyOf(c) == nil {
		t.Fatalf("no reply: %+v\n%s", c, res.Timeline)
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\nreply: %v\n%s", append(args, c.Raw, res.Timeline)...)
	}
	if c.EndMs != w.at {
		fail("resolved at %d ms, want %d ms", c.EndMs, w.at)
	}
	if waitagents.ReplyOf(c).Done != w.done {
		fail("done = %v, want %v", waitagents.ReplyOf(c).Done, w.done)
	}
	switch {
	case w.remaining == nil && waitagents.ReplyOf(c).RemainingMs != nil:
		fail("remainingMs = %d, want absent", *waitagents.ReplyOf(c).RemainingMs)
	case w.remaining != nil && (waitagents.ReplyOf(c).RemainingMs == nil || *waitagents.ReplyOf(c).RemainingMs != *w.remaining):
		fail("remainingMs = %v, want %d", c.Raw["remainingMs"], *w.remaining)
	}
	if w.lists >= 0 {
		if n := count(res, "list", c.CallID); n != w.lists {
			fail("%d lists, want %d", n, w.lists)
		}
	}
	if w.reads >= 0 {
		if n := count(res, "read", c.CallID); n != w.reads {
			fail("%d output reads issued, want %d", n, w.reads)
		}
	}
	if len(waitagents.ReplyOf(c).Agents) != w.agents {
		fail("%d agents, want %d", len(waitagents.ReplyOf(c).Agents), w.agents)
	}
	for _, f := range w.absent {
		if _, ok := c.Raw[f]; ok {
			fail("field %s present, want absent", f)
		}
	}
	for _, f := range w.present {
		if v, ok := c.Raw[f]; !ok || v == false {
			fail("field %s absent or false, want true/present", f)
		}
	}
}

// TestOracle holds the tool to every oracle row of contract §2.
func TestOracle(t *testing.T) {
	rows := []struct {
		name   string
		bridge bridge.Script
		agents []waitagents.AgentSpec
		args   map[string]any
		want   want
	}{
		{"list5000-poll250", bridge.Script{List: lat(5000)}, running("c"),
			map[string]any{"timeoutMs": 600000, "pollIntervalMs": 250},
			want{reads: 1, at: 20750, remaining: ip(579250), lists: 4, agents: 1, absent: []string{"outputsUnavailable", "agentsUnavailable"}, present: []string{"outputs"}}},
		{"fast-then-stall", bridge.Script{List: lat(0, 0, 0, 45000)}, running("c"),
			map[string]any{"timeoutMs": 600000, "pollIntervalMs": 250},
			want{reads: 0, at: 30000, remaining: ip(570000), lists: 4, agents: 1, present: []string{"outputsUnavailable"}, absent: []string{"agentsUnavailable"}}},
		{"list40000", bridge.Script{List: lat(40000), TimeoutMs: -1}, running("c"),
			map[string]any{"timeoutMs": 600000},
			want{reads: 0, at: 30000, remaining: ip(570000), lists: 1, agents: 0, present: []string{"agentsUnavailable"}, absent: []string{"outputsUnavailable"}}},
		{"read20000", bridge.Script{Read: lat(20000)}, running("c"),
			map[string]any{"timeoutMs": 600000, "pollIntervalMs": 1000},
			want{reads: 1, at: 30000, remaining: ip(570000), lists: 31, agents: 1, present: []string{"outputsUnavailable"}}},
		{"completed-read5000", bridge.Script{Read: lat(5000)}, []waitagents.AgentSpec{{ID: "c", State: "completed", Messages: []string{"done"}}},
			map[string]any{"timeoutMs": 600000},
			want{reads: 1, at: 5000, done: true, lists: 1, agents: 1, absent: []string{"remainingMs", "outputsUnavailable"}}},
		{"instant-poll1000", bridge.Script{}, running("c"),
			map[string]any{"timeoutMs": 600000, "pollIntervalMs": 1000},
			want{reads: 1, at: 30000, remaining: ip(570000), lists: 31, agents: 1}},
		{"timeout30000", bridge.Script{}, running("c"), map[string]any{"timeoutMs": 30000}, want{reads: 1, at: 30000, lists: 31, agents: 1, absent: []string{"remainingMs"}}},
		{"timeout30001", bridge.Script{}, running("c"), map[string]any{"timeoutMs": 30001}, want{reads: 1, at: 30000, lists: 31, agents: 1, absent: []string{"remainingMs"}}},
		{"timeout30500", bridge.Script{}, running("c"), map[string]any{"timeoutMs": 30500}, want{reads: 1, at: 30000, lists: 31, agents: 1, absent: []string{"remainingMs"}}},
		{"timeout31000", bridge.Script{}, running("c"), map[string]any{"timeoutMs": 31000}, want{reads: 1, at: 30000, remaining: ip(1000), lists: 31, agents: 1}},
		{"timeout100000", bridge.Script{}, running("c"), map[string]any{"timeoutMs": 100000}, want{reads: 1, at: 30000, remaining: ip(70000), lists: 31, agents: 1}},
		// Not oracle rows, but the same class: a short wait is not capped.
		{"timeout5000", bridge.Script{}, running("c"), map[string]any{"timeoutMs": 5000}, want{reads: 1, at: 5000, lists: 6, agents: 1, absent: []string{"remainingMs"}}},
		// A list landing at the deadline: in time, but no final read can be
		// predicted to fit, so none is issued (contract §2 step 4).
		{"list30000", bridge.Script{List: lat(30000), TimeoutMs: -1}, running("c"),
			map[string]any{"timeoutMs": 600000},
			want{reads: 0, at: 30000, remaining: ip(570000), lists: 1, agents: 1, present: []string{"outputsUnavailable"}}},
		// One 8 s list sets the reserve for the rest of the call: the cost is
		// the longest read, not the last (contract §2 step 2).
		{"reserve-longest", bridge.Script{List: lat(0, 8000, 0)}, running("c"),
			map[string]any{"timeoutMs": 600000},
			want{reads: 1, at: 14000, remaining: ip(586000), lists: 7, agents: 1}},
		// A 5 ms bridge must keep its outputs at the cap (the last sleep stops at deadline − 2·cost).
		{"bridge5ms", bridge.Script{List: lat(5), Read: lat(5)}, running("c"),
			map[string]any{"timeoutMs": 600000, "pollIntervalMs": 1000},
			want{reads: 1, at: 30000, remaining: ip(570000), lists: -1, agents: 1, absent: []string{"outputsUnavailable"}}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			res := run(t, waitagents.World{Name: r.name, Bridge: r.bridge, Agents: r.agents, Callers: one(r.args)})
			check(t, res, r.want)
		})
	}
}

// TestActiveStates: "", created, prompt_sent, running and waiting are active
// (the wait goes on to the cap); other states are terminal (contract §2).
func TestActiveStates(t *testing.T) {
	for state, active := range map[string]bool{"": true, "created": true, "prompt_sent": true, "running": true, "waiting": true,
		"completed": false, "failed": false, "cancelled": false, "archived": false} {
		res := run(t, waitagents.World{Name: "state-" + state, Agents: []waitagents.AgentSpec{{ID: "c", State: state}},
			Callers: one(map[string]any{"timeoutMs": 600000})})
		c := res.Call("A", 1)
		if waitagents.ReplyOf(c).Done == active || (c.EndMs == 30000) != active {
			t.Errorf("state %q: done %v at %d ms; active should be %v", state, waitagents.ReplyOf(c).Done, c.EndMs, active)
		}
	}
}

// TestRecoveryChain: 60500 → 30500 → stop, each call resolving at its cap.
func TestRecoveryChain(t *testing.T) {
	res := run(t, waitagents.World{Name: "recovery", Agents: running("c"),
		Callers: []sim.CallerSpec{{Name: "A", Follow: true, Args: map[string]any{"timeoutMs": 60500}}}})
	if len(res.Calls) != 2 {
		t.Fatalf("%d calls, want 2\n%s", len(res.Calls), res.Timeline)
	}
	c1, c2 := &res.Calls[0], &res.Calls[1]
	if c1.EndMs != 30000 || waitagents.ReplyOf(c1).RemainingMs == nil || *waitagents.ReplyOf(c1).RemainingMs != 30500 {
		t.Errorf("call 1: end %d, reply %v", c1.EndMs, c1.Raw)
	}
	if c2.StartMs != 30000 || c2.EndMs != 60000 || waitagents.ReplyOf(c2).RemainingMs != nil || c2.Args["timeoutMs"] != 30500 {
		t.Errorf("call 2: start %d end %d args %v reply %v", c2.StartMs, c2.EndMs, c2.Args, c2.Raw)
	}
}

// TestMembershipChange: a named child completes at 2 s while a newcomer joins;
// the scoped wait returns done with only the named child (contract §2 step 7).
func TestMembershipChange(t *testing.T) {
	res := run(t, waitagents.World{Name: "membership", Agents: running("a", "b"),
		Changes: []waitagents.Change{
			{AtMs: 2000, Op: waitagents.OpState, ID: "a", State: "completed"},
			{AtMs: 2000, Op: waitagents.OpJoin, ID: "n", State: "running"},
		},
		Callers: one(map[string]any{"sessionIds": []any{"a"}, "timeoutMs": 600000})})
	c := res.Call("A", 1)
	if c.EndMs != 2000 || !waitagents.ReplyOf(c).Done || len(waitagents.ReplyOf(c).Agents) != 1 || waitagents.ReplyOf(c).Agents[0].SessionID != "a" ||
		len(waitagents.ReplyOf(c).Outputs) != 1 || waitagents.ReplyOf(c).Outputs[0].SessionID != "a" {
		t.Fatalf("end %d reply %v\n%s", c.EndMs, c.Raw, res.Timeline)
	}
}

// TestScopeEveryList: a child in the scope leaves, an unscoped one stays
// running, a scoped newcomer joins completed; the scope is applied to every
// list, so the wait ends at 3 s with a and y.
func TestScopeEveryList(t *testing.T) {
	res := run(t, waitagents.World{Name: "scope-leave", Agents: running("a", "b", "x"),
		Changes: []waitagents.Change{
			{AtMs: 3000, Op: waitagents.OpState, ID: "a", State: "failed"},
			{AtMs: 3000, Op: waitagents.OpLeave, ID: "b"},
			{AtMs: 3000, Op: waitagents.OpJoin, ID: "y", State: "completed"},
		},
		Callers: one(map[string]any{"sessionIds": []any{"a", "b", "y"}, "timeoutMs": 600000})})
	c := res.Call("A", 1)
	if c.EndMs != 3000 || !waitagents.ReplyOf(c).Done || len(waitagents.ReplyOf(c).Agents) != 2 {
		t.Fatalf("end %d reply %v\n%s", c.EndMs, c.Raw, res.Timeline)
	}
}

// TestBridgeErrors: an error on the first list, and on a poll, is a reply field.
func TestBridgeErrors(t *testing.T) {
	t.Run("first-list", func(t *testing.T) {
		res := run(t, waitagents.World{Name: "err-first", Bridge: bridge.Script{List: []bridge.Step{{LatencyMs: 100, Err: "boom"}}},
			Agents: running("c"), Callers: one(map[string]any{"timeoutMs": 600000})})
		c := res.Call("A", 1)
		// The failed first list is retried every second (cost 100 ms) until
		// no list and final read fit: the last fails at 29800.
		if c.IsError || c.EndMs != 29800 || waitagents.ReplyOf(c).BridgeError != "boom" || !waitagents.ReplyOf(c).AgentsUnavailable || waitagents.ReplyOf(c).Done ||
			waitagents.ReplyOf(c).RemainingMs == nil || *waitagents.ReplyOf(c).RemainingMs != 570200 || len(res.Requests) != 28 {
			t.Fatalf("end %d reply %v err %q\n%s", c.EndMs, c.Raw, c.ErrorText, res.Timeline)
		}
	})
	t.Run("reject-at-once-chain-ends", func(t *testing.T) {
		// A bridge that rejects every read at once must not make a caller who
		// follows remainingMs call again for ever at the same instant.
		res := run(t, waitagents.World{Name: "reject-chain", Bridge: bridge.Script{List: []bridge.Step{{Reject: true}}},
			Agents: running("c"), Callers: []sim.CallerSpec{{Name: "A", Follow: true, Args: map[string]any{"timeoutMs": 600000}}}})
		if n := len(res.Calls); n != 20 || res.Calls[n-1].EndMs != 600000 {
			t.Fatalf("%d calls, the last ending at %d ms; want 20 calls ending at 600000 ms", n, res.Calls[n-1].EndMs)
		}
	})
	t.Run("poll", func(t *testing.T) {
		res := run(t, waitagents.World{Name: "err-poll",
			Bridge:  bridge.Script{List: []bridge.Step{{}, {Err: "flaky"}, {}}},
			Agents:  running("c"),
			Changes: []waitagents.Change{{AtMs: 2500, Op: waitagents.OpState, ID: "c", State: "completed"}},
			Callers: one(map[string]any{"timeoutMs": 600000})})
		c := res.Call("A", 1)
		if c.IsError || c.EndMs != 3000 || waitagents.ReplyOf(c).BridgeError != "flaky" || !waitagents.ReplyOf(c).Done || len(waitagents.ReplyOf(c).Agents) != 1 {
			t.Fatalf("end %d reply %v\n%s", c.EndMs, c.Raw, res.Timeline)
		}
	})
	t.Run("read", func(t *testing.T) {
		res := run(t, waitagents.World{Name: "err-read", Bridge: bridge.Script{Read: []bridge.Step{{LatencyMs: 10, Err: "nope"}}},
			Agents: []waitagents.AgentSpec{{ID: "c", State: "completed"}}, Callers: one(map[string]any{})})
		c := res.Call("A", 1)
		if c.IsError || c.EndMs != 10 || waitagents.ReplyOf(c).BridgeError != "nope" || !waitagents.ReplyOf(c).Done || len(waitagents.ReplyOf(c).Outputs) != 0 {
			t.Fatalf("end %d reply %v\n%s", c.EndMs, c.Raw, res.Timeline)
		}
	})
}

type panicky struct{ waittool.Bridge }

func (panicky) ListAgents(context.Context, string) ([]waittool.Agent, error) { panic("kaboom") }

// TestBridgePanic: a panicking bridge is an error field, not a crash.
func TestBridgePanic(t *testing.T) {
	res := run(t, waitagents.World{Name: "panic", Agents: running("c"),
		WrapBridge: func(b waittool.Bridge) waittool.Bridge { return panicky{b} },
		Callers:    one(map[string]any{"timeoutMs": 600000})})
	c := res.Call("A", 1)
	if c.IsError || waitagents.ReplyOf(c) == nil || waitagents.ReplyOf(c).BridgeError != "bridge panic: kaboom" || !waitagents.ReplyOf(c).AgentsUnavailable {
		t.Fatalf("reply %v err %q rpc %q", c.Raw, c.ErrorText, c.RPCError)
	}
}

// TestCallerTimeoutShorterThanWait: a client whose request timeout (20 s) is
// shorter than the call's cap loses the reply at 20 s; with 60 s it does not.
func TestCallerTimeoutShorterThanWait(t *testing.T) {
	res := run(t, waitagents.World{Name: "short-client", Agents: running("c"),
		Callers: []sim.CallerSpec{
			{Name: "A", RequestTimeoutMs: 20000, Args: map[string]any{"timeoutMs": 600000}},
			{Name: "B", Args: map[string]any{"timeoutMs": 600000}},
		}})
	a, b := res.Call("A", 1), res.Call("B", 1)
	if !a.Lost || a.EndMs != 20000 {
		t.Errorf("A: lost %v at %d, want lost at 20000", a.Lost, a.EndMs)
	}
	if b.Lost || b.EndMs != 30000 {
		t.Errorf("B: lost %v at %d, want received at 30000\n%s", b.Lost, b.EndMs, res.Timeline)
	}
}

// TestProgress: one progress notification per poll, progress = elapsed ms,
// total = capped ms; a caller that sends a progress token and resets its
// timer on progress survives a 6 s request timeout, and one that does not
// reset loses the reply at 6 s (contract §4: a caller restarts its timeout
// on progress only when it sends a progress token).
func TestProgress(t *testing.T) {
	res := run(t, waitagents.World{Name: "progress", Agents: running("c"),
		Callers: []sim.CallerSpec{
			{Name: "A", Progress: true, Args: map[string]any{"timeoutMs": 600000, "pollIntervalMs": 5000}},
			{Name: "B", Progress: true, ResetOnProgress: true, RequestTimeoutMs: 6000, Args: map[string]any{"timeoutMs": 600000, "pollIntervalMs": 5000}},
			{Name: "C", RequestTimeoutMs: 6000, Args: map[string]any{"timeoutMs": 600000, "pollIntervalMs": 5000}},
		}})
	a, b, c := res.Call("A", 1), res.Call("B", 1), res.Call("C", 1)
	if a.Progress != 6 {
		t.Errorf("A got %d progress notifications, want 6 (one per poll)", a.Progress)
	}
	if !strings.Contains(res.Timeline, "caller:A   progress 5000/30000 ms") {
		t.Errorf("no 'progress 5000/30000' in\n%s", res.Timeline)
	}
	if b.Lost || b.EndMs != 30000 {
		t.Errorf("B (resets on progress) lost=%v at %d", b.Lost, b.EndMs)
	}
	if !c.Lost || c.EndMs != 6000 {
		t.Errorf("C (no reset) lost=%v at %d, want lost at 6000", c.Lost, c.EndMs)
	}
}

// TestNoBridge: without a bridge the reply is ok=false, orchestration_unavailable.
func TestNoBridge(t *testing.T) {
	res := run(t, waitagents.World{Name: "nobridge", NoBridge: true, Callers: one(nil)})
	c := res.Call("A", 1)
	if waitagents.ReplyOf(c) == nil || waitagents.ReplyOf(c).OK || waitagents.ReplyOf(c).Error != "orchestration_unavailable" || waitagents.ReplyOf(c).Done || c.EndMs != 0 {
		t.Fatalf("reply %v", c.Raw)
	}
}

// TestBudgets: every char budget cuts, and truncated is set.
func TestBudgets(t *testing.T) {
	long := strings.Repeat("x", 300)
	var msgs []string
	for i := range 30 {
		msgs = append(msgs, fmt.Sprintf("m%02d-%s", i, long))
	}
	agents := []waitagents.AgentSpec{{ID: "a", State: "completed", Messages: msgs}, {ID: "b", State: "completed", Messages: msgs}, {ID: "c", State: "completed", Messages: []string{"short"}}}
	cases := []struct {
		name  string
		args  map[string]any
		check func(o []waittool.AgentOutput) string
		trunc bool
	}{
		{"defaults-fit", map[string]any{}, func(o []waittool.AgentOutput) string {
			if len(o) != 3 || len(o[0].Messages) != 20 || o[0].Messages[0][:3] != "m10" {
				return "want the 20 most recent messages of a"
			}
			return ""
		}, true},
		{"per-message", map[string]any{"maxCharsPerMessage": 50, "maxMessagesPerAgent": 100}, func(o []waittool.AgentOutput) string {
			if len(o[0].Messages) != 30 || len([]rune(o[0].Messages[5])) != 50 {
				return "want 30 messages of 50 chars"
			}
			return ""
		}, true},
		{"per-agent", map[string]any{"maxCharsPerAgent": 1000, "maxMessagesPerAgent": 100}, func(o []waittool.AgentOutput) string {
			n := 0
			for _, m := range o[0].Messages {
				n += len([]rune(m))
			}
			if n != 1000 || o[2].Messages[0] != "short" {
				return fmt.Sprintf("want 1000 chars for a, got %d", n)
			}
			return ""
		}, true},
		{"total", map[string]any{"maxTotalChars": 1000, "maxMessagesPerAgent": 100}, func(o []waittool.AgentOutput) string {
			n := 0
			for _, a := range o {
				for _, m := range a.Messages {
					n += len([]rune(m))
				}
			}
			if n != 1000 {
				return fmt.Sprintf("want 1000 chars in all, got %d", n)
			}
			return ""
		}, true},
		{"nothing-cut", map[string]any{"sessionIds": []any{"c"}}, func(o []waittool.AgentOutput) string {
			if len(o) != 1 || o[0].Messages[0] != "short" {
				return "want c's one message"
			}
			return ""
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, waitagents.World{Name: tc.name, Agents: agents, Callers: one(tc.args)})
			c := res.Call("A", 1)
			if msg := tc.check(waitagents.ReplyOf(c).Outputs); msg != "" {
				b, _ := json.Marshal(waitagents.ReplyOf(c).Outputs)
				t.Errorf("%s: %.300s", msg, b)
			}
			if waitagents.ReplyOf(c).Truncated != tc.trunc {
				t.Errorf("truncated = %v, want %v", waitagents.ReplyOf(c).Truncated, tc.trunc)
			}
		})
	}
}
