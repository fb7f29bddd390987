package waitagents

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// step is one scripted request of the fake bridge: a latency in ms, and an
// error to return after it.
type step struct {
	ms  int
	err error
}

// fakeBridge is a small scripted bridge: the n-th list (or output read)
// takes the n-th step, and the last step repeats. Its agents never change.
type fakeBridge struct {
	mu      sync.Mutex
	agents  []Agent
	msgs    map[string][]string
	lists   []step
	reads   []step
	nLists  int
	nReads  int
	readIDs [][]string
}

func pick(steps []step, n int) step {
	if len(steps) == 0 {
		return step{}
	}
	return steps[min(n, len(steps)-1)]
}

func (b *fakeBridge) ListAgents(ctx context.Context, runID string) ([]Agent, error) {
	b.mu.Lock()
	s := pick(b.lists, b.nLists)
	b.nLists++
	b.mu.Unlock()
	time.Sleep(time.Duration(s.ms) * time.Millisecond)
	if s.err != nil {
		return nil, s.err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Agent(nil), b.agents...), nil
}

func (b *fakeBridge) ReadOutputs(ctx context.Context, runID string, ids []string) ([]AgentOutput, error) {
	b.mu.Lock()
	s := pick(b.reads, b.nReads)
	b.nReads++
	b.readIDs = append(b.readIDs, ids)
	b.mu.Unlock()
	time.Sleep(time.Duration(s.ms) * time.Millisecond)
	if s.err != nil {
		return nil, s.err
	}
	var out []AgentOutput
	for _, id := range ids {
		if m, ok := b.msgs[id]; ok {
			out = append(out, AgentOutput{SessionID: id, Messages: m})
		}
	}
	return out, nil
}

func (b *fakeBridge) counts() (lists, reads int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.nLists, b.nReads
}

// world is one server with the tool and one connected client, inside a bubble.
type world struct {
	cs       *mcp.ClientSession
	ss       *mcp.ServerSession
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
}

func newWorld(t *testing.T, cfg Config) *world {
	t.Helper()
	w := &world{}
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "waitagents-test", Version: "0"}, nil)
	Register(server, cfg)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			w.mu.Lock()
			w.progress = append(w.progress, req.Params)
			w.mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.cs, w.ss = cs, ss
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return w
}

// call calls the tool and returns the result, its structured reply as a map,
// and the virtual ms it took.
func (w *world) call(t *testing.T, args map[string]any, token any) (*mcp.CallToolResult, map[string]any, int64) {
	t.Helper()
	params := &mcp.CallToolParams{Name: toolName, Arguments: args}
	if token != nil {
		params.SetProgressToken(token)
	}
	start := time.Now()
	res, err := w.cs.CallTool(context.Background(), params)
	took := time.Since(start).Milliseconds()
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	var m map[string]any
	if !res.IsError {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
	}
	return res, m, took
}

func running() *fakeBridge {
	return &fakeBridge{
		agents: []Agent{{SessionID: "c", State: "running"}},
		msgs:   map[string][]string{"c": {"hello"}},
	}
}

func wantField(t *testing.T, m map[string]any, key string, want any) {
	t.Helper()
	got, ok := m[key]
	if want == nil {
		if ok {
			t.Errorf("%s = %v, want it absent", key, got)
		}
		return
	}
	if !ok {
		t.Errorf("%s absent, want %v", key, want)
		return
	}
	if g, _ := json.Marshal(got); string(g) != mustJSON(want) {
		t.Errorf("%s = %s, want %s", key, g, mustJSON(want))
	}
}

// mustJSON is v's JSON with object keys sorted, so that a struct and the map
// decoded from it compare equal.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		panic(err)
	}
	if b, err = json.Marshal(generic); err != nil {
		panic(err)
	}
	return string(b)
}

func TestCappedCallRepliesAtCapWithRemaining(t *testing.T) {
	for _, tc := range []struct {
		timeoutMs int
		remaining any
	}{
		{30000, nil}, {30001, nil}, {30999, nil}, {31000, 1000}, {100000, 70000}, {600000, 570000},
	} {
		synctest.Test(t, func(t *testing.T) {
			b := running()
			w := newWorld(t, Config{Bridge: b})
			_, m, took := w.call(t, map[string]any{"timeoutMs": tc.timeoutMs}, nil)
			if took != 30000 {
				t.Errorf("timeoutMs %d: replied at %d ms, want 30000", tc.timeoutMs, took)
			}
			wantField(t, m, "remainingMs", tc.remaining)
			wantField(t, m, "done", false)
			wantField(t, m, "outputs", []AgentOutput{{SessionID: "c", Messages: []string{"hello"}}})
			wantField(t, m, "outputsUnavailable", nil)
			if lists, reads := b.counts(); lists != 31 || reads != 1 {
				t.Errorf("timeoutMs %d: %d lists and %d output reads, want 31 and 1", tc.timeoutMs, lists, reads)
			}
		})
	}
}

func TestDoneRunRepliesAtOnceWithOutputs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &fakeBridge{
			agents: []Agent{{SessionID: "a", State: "completed"}, {SessionID: "b", State: "other:gone"}},
			msgs:   map[string][]string{"a": {"one", "two"}, "b": {"three"}},
			reads:  []step{{ms: 5000}},
		}
		w := newWorld(t, Config{Bridge: b})
		_, m, took := w.call(t, map[string]any{"timeoutMs": 600000}, nil)
		if took != 5000 {
			t.Errorf("replied at %d ms, want 5000", took)
		}
		wantField(t, m, "ok", true)
		wantField(t, m, "done", true)
		wantField(t, m, "remainingMs", nil)
		wantField(t, m, "agents", []Agent{{"a", "completed"}, {"b", "other:gone"}})
		wantField(t, m, "outputs", []AgentOutput{{"a", []string{"one", "two"}}, {"b", []string{"three"}}})
		if lists, _ := b.counts(); lists != 1 {
			t.Errorf("%d lists, want 1", lists)
		}
	})
}

func TestInvalidInputIsAnErrorResult(t *testing.T) {
	for _, tc := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"timeoutMs": 999}, "timeoutMs"},
		{map[string]any{"timeoutMs": 600001}, "timeoutMs"},
		{map[string]any{"timeoutMs": "5000"}, "timeoutMs"},
		{map[string]any{"timeoutMs": 1000.5}, "timeoutMs"},
		{map[string]any{"timeoutMS": 5000}, "timeoutMS"},
		{map[string]any{"sessionIds": []string{}}, "sessionIds"},
		{map[string]any{"pollIntervalMs": 249}, "pollIntervalMs"},
		{map[string]any{"maxTotalChars": 999}, "maxTotalChars"},
	} {
		synctest.Test(t, func(t *testing.T) {
			b := running()
			w := newWorld(t, Config{Bridge: b})
			res, _, took := w.call(t, tc.args, nil)
			if !res.IsError {
				t.Fatalf("%v: not an error result", tc.args)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !strings.Contains(text, tc.field) {
				t.Errorf("%v: error %q does not name %s", tc.args, text, tc.field)
			}
			if lists, reads := b.counts(); lists+reads != 0 || took != 0 {
				t.Errorf("%v: %d reads, %d ms", tc.args, lists+reads, took)
			}
		})
	}
}

func TestProgressWithTokenOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, Config{Bridge: running()})
		_, m, took := w.call(t, map[string]any{"timeoutMs": 5000}, "tok")
		synctest.Wait()
		if took != 5000 {
			t.Errorf("replied at %d ms, want 5000", took)
		}
		wantField(t, m, "remainingMs", nil)
		w.mu.Lock()
		got := w.progress
		w.progress = nil
		w.mu.Unlock()
		if len(got) != 5 {
			t.Fatalf("%d notifications, want 5", len(got))
		}
		for i, p := range got {
			want := float64(1000 * (i + 1))
			if p.Progress != want || p.Total != 5000 || p.ProgressToken != "tok" {
				t.Errorf("notification %d: %v/%v token %v, want %v/5000", i, p.Progress, p.Total, p.ProgressToken, want)
			}
			if wantMsg := "waiting for agents: " + mustJSON(int(want)) + " ms of 5000 ms"; p.Message != wantMsg {
				t.Errorf("notification %d: message %q, want %q", i, p.Message, wantMsg)
			}
		}

		// Capped: total is the cap, not timeoutMs.
		w.call(t, map[string]any{"timeoutMs": 100000, "pollIntervalMs": 10000}, 7)
		synctest.Wait()
		w.mu.Lock()
		got = w.progress
		w.progress = nil
		w.mu.Unlock()
		if len(got) != 3 || got[2].Progress != 30000 || got[2].Total != 30000 {
			t.Errorf("capped call: notifications %v, want 3 ending at 30000/30000", got)
		}

		w.call(t, map[string]any{"timeoutMs": 3000}, nil)
		synctest.Wait()
		if len(w.progress) != 0 {
			t.Errorf("%d notifications without a token, want none", len(w.progress))
		}
	})
}

func TestNoBridge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, Config{})
		_, m, took := w.call(t, nil, nil)
		if took != 0 {
			t.Errorf("replied at %d ms, want 0", took)
		}
		if got, want := mustJSON(m), `{"agents":[],"done":false,"error":"orchestration_unavailable","ok":false,"outputs":[]}`; got != want {
			t.Errorf("reply %s, want %s", got, want)
		}
	})
}

// The oracle rows of the contract (§2, Oracle rows).
func TestOracleRows(t *testing.T) {
	type row struct {
		name      string
		bridge    *fakeBridge
		args      map[string]any
		at        int64
		lists     int
		reads     int
		fields    map[string]any
		remaining any
	}
	stall := step{ms: 45000}
	rows := []row{
		{"list-5000", &fakeBridge{lists: []step{{ms: 5000}}}, map[string]any{"pollIntervalMs": 250}, 20750, 4, 1,
			map[string]any{"done": false}, 579250},
		{"fast-then-stall", &fakeBridge{lists: []step{{}, {}, {}, stall}}, map[string]any{"pollIntervalMs": 250}, 30000, 4, 0,
			map[string]any{"outputsUnavailable": true, "agents": []Agent{{"c", "running"}}, "outputs": []AgentOutput{}}, 570000},
		{"list-40000", &fakeBridge{lists: []step{{ms: 40000}}}, nil, 30000, 1, 0,
			map[string]any{"agentsUnavailable": true, "agents": []Agent{}, "done": false}, 570000},
		{"read-20000", &fakeBridge{reads: []step{{ms: 20000}}}, map[string]any{"pollIntervalMs": 1000}, 30000, 31, 1,
			map[string]any{"outputsUnavailable": true, "agents": []Agent{{"c", "running"}}}, 570000},
		{"first-list-fails", &fakeBridge{lists: []step{{err: errors.New("owner window is gone")}, {}}}, nil, 30000, 31, 1,
			map[string]any{"bridgeError": "owner window is gone", "agents": []Agent{{"c", "running"}}}, 570000},
	}
	for _, r := range rows {
		synctest.Test(t, func(t *testing.T) {
			r.bridge.agents = []Agent{{SessionID: "c", State: "running"}}
			r.bridge.msgs = map[string][]string{"c": {"m"}}
			args := map[string]any{"timeoutMs": 600000}
			for k, v := range r.args {
				args[k] = v
			}
			w := newWorld(t, Config{Bridge: r.bridge})
			_, m, took := w.call(t, args, nil)
			if took != r.at {
				t.Errorf("%s: replied at %d ms, want %d", r.name, took, r.at)
			}
			if lists, reads := r.bridge.counts(); lists != r.lists || reads != r.reads {
				t.Errorf("%s: %d lists, %d output reads, want %d and %d", r.name, lists, reads, r.lists, r.reads)
			}
			for k, v := range r.fields {
				wantField(t, m, k, v)
			}
			wantField(t, m, "remainingMs", r.remaining)
			// Let abandoned reads end before the bubble does.
			time.Sleep(time.Minute)
		})
	}
}

func TestRecoveryChainEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, Config{Bridge: running()})
		_, m, _ := w.call(t, map[string]any{"timeoutMs": 60500}, nil)
		wantField(t, m, "remainingMs", 30500)
		_, m, took := w.call(t, map[string]any{"timeoutMs": 30500}, nil)
		wantField(t, m, "remainingMs", nil)
		if took != 30000 {
			t.Errorf("second call replied at %d ms, want 30000", took)
		}
	})
}

func TestScopeAndCuts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		long := strings.Repeat("é", 60)
		b := &fakeBridge{
			agents: []Agent{{"x", "completed"}, {"a", "failed"}, {"b", "completed"}},
			msgs: map[string][]string{
				"a": {"old", "mid", long},
				"b": {long, long},
				"x": {"outside"},
			},
		}
		w := newWorld(t, Config{Bridge: b, CapMs: 5000})
		_, m, _ := w.call(t, map[string]any{
			"sessionIds":          []string{"b", "a", "nobody"},
			"maxMessagesPerAgent": 2,
			"maxCharsPerMessage":  50,
			"maxCharsPerAgent":    100,
			"maxTotalChars":       1000,
		}, nil)
		wantField(t, m, "done", true)
		wantField(t, m, "agents", []Agent{{"a", "failed"}, {"b", "completed"}})
		wantField(t, m, "truncated", true)
		cut := strings.Repeat("é", 50)
		wantField(t, m, "outputs", []AgentOutput{{"a", []string{"mid", cut}}, {"b", []string{cut, cut}}})

		outs, truncated := cutOutputs(
			[]Agent{{"a", "completed"}, {"b", "completed"}},
			[]AgentOutput{{"a", []string{strings.Repeat("x", 700)}}, {"b", []string{"y"}}, {"a", []string{"dup"}}},
			input{MaxMessagesPerAgent: 20, MaxCharsPerMessage: 4000, MaxCharsPerAgent: 600, MaxTotalChars: 600})
		if !truncated || mustJSON(outs) != mustJSON([]AgentOutput{{"a", []string{strings.Repeat("x", 600)}}, {"b", []string{}}}) {
			t.Errorf("total budget: %s truncated=%v", mustJSON(outs), truncated)
		}
	})
}

func TestDescriptionsStateTheCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, Config{Bridge: running()})
		res, err := w.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		tl := res.Tools[0]
		if want := "Waits until the child agents of a run are no longer active, then returns their outputs. One call waits at most 30 seconds (30000 ms), whatever timeoutMs asks. If the wait is cut short, the reply carries remainingMs: call this tool again with timeoutMs set to remainingMs to keep waiting."; tl.Description != want {
			t.Errorf("tool description %q", tl.Description)
		}
		schema := mustJSON(tl.InputSchema)
		for _, want := range []string{
			`"description":"Total time to wait in ms, across calls (1000 to 600000, default 30000). One call waits at most 30 seconds; a reply that was cut short carries remainingMs: call again with timeoutMs set to it."`,
			`"additionalProperties":false`, `"minItems":1`, `"maximum":600000`, `"default":30000`,
		} {
			if !strings.Contains(schema, want) {
				t.Errorf("input schema lacks %s: %s", want, schema)
			}
		}
		if got := toolDescription(2500); !strings.Contains(got, "2.5 seconds (2500 ms)") {
			t.Errorf("2500 ms cap: %q", got)
		}
	})
}

// A result ready exactly at the deadline is in time (same-instant rule).
func TestSameInstantResultIsInTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := running()
		b.lists = []step{{ms: 30000}}
		w := newWorld(t, Config{Bridge: b})
		_, m, took := w.call(t, map[string]any{"timeoutMs": 600000}, nil)
		if took != 30000 {
			t.Errorf("replied at %d ms, want 30000", took)
		}
		wantField(t, m, "agentsUnavailable", nil)
		wantField(t, m, "outputsUnavailable", true)
	})
}

// panicBridge panics on every list; its output reads fail.
type panicBridge struct{ fakeBridge }

func (b *panicBridge) ListAgents(ctx context.Context, runID string) ([]Agent, error) {
	b.fakeBridge.ListAgents(ctx, runID)
	panic("boom")
}

func TestBridgeFailuresAreFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, Config{Bridge: &panicBridge{}})
		res, m, took := w.call(t, map[string]any{"timeoutMs": 2000, "pollIntervalMs": 500}, nil)
		if res.IsError || took != 2000 {
			t.Fatalf("error result %v, replied at %d ms", res.IsError, took)
		}
		wantField(t, m, "bridgeError", "bridge panic: boom")
		wantField(t, m, "agentsUnavailable", true)
		wantField(t, m, "done", false)
		wantField(t, m, "remainingMs", nil)

		b := running()
		b.agents[0].State = "completed"
		b.reads = []step{{ms: 100, err: errors.New("bridge timeout after 30000 ms")}}
		w = newWorld(t, Config{Bridge: b})
		_, m, took = w.call(t, map[string]any{"timeoutMs": 40000}, nil)
		if took != 100 {
			t.Errorf("replied at %d ms, want 100", took)
		}
		wantField(t, m, "done", true)
		wantField(t, m, "bridgeError", "bridge timeout after 30000 ms")
		wantField(t, m, "outputs", []AgentOutput{})
		wantField(t, m, "outputsUnavailable", nil)
		wantField(t, m, "remainingMs", nil)
	})
}

func TestCallerGoneStopsTheHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := running()
		w := newWorld(t, Config{Bridge: b})
		ctx, cancel := context.WithTimeout(context.Background(), 5500*time.Millisecond)
		defer cancel()
		_, err := w.cs.CallTool(ctx, &mcp.CallToolParams{Name: toolName, Arguments: map[string]any{"timeoutMs": 30000}})
		if err == nil {
			t.Fatal("CallTool succeeded after the caller's timeout")
		}
		time.Sleep(time.Minute)
		if lists, reads := b.counts(); lists != 6 || reads != 0 {
			t.Errorf("%d lists and %d output reads, want 6 and 0 (the handler stops at its next wait)", lists, reads)
		}
	})
}

func TestMachineDelay(t *testing.T) {
	c := &call{}
	if c.machine() != 0 {
		t.Errorf("exact clock: machine %v, want 0", c.machine())
	}
	c.late = 3 * time.Millisecond
	if c.machine() != 20*time.Millisecond {
		t.Errorf("3 ms measured: machine %v, want the 20 ms floor", c.machine())
	}
	c.late, c.inherited = time.Millisecond, 45*time.Millisecond
	if c.machine() != 45*time.Millisecond {
		t.Errorf("45 ms inherited: machine %v, want 45 ms", c.machine())
	}
}

// A read that loses the race is given up one nanosecond after its limit (the
// same-instant rule's grace), so the reply after it resolves then.
func TestLostRaceVerdictInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := running()
		b.lists = []step{{ms: 40000}}
		w := newWorld(t, Config{Bridge: b})
		start := time.Now()
		_, m, _ := w.call(t, map[string]any{"timeoutMs": 600000}, nil)
		if took := time.Since(start); took != 30*time.Second+time.Nanosecond {
			t.Errorf("replied after %v, want 30s+1ns", took)
		}
		wantField(t, m, "agentsUnavailable", true)
		time.Sleep(time.Minute)
	})
}

// Null arguments are no arguments: the defaults apply (timeoutMs 30000).
func TestNullArguments(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, Config{Bridge: running()})
		res, m, took := w.call(t, nil, nil)
		if res.IsError || took != 30000 {
			t.Fatalf("error result %v, replied at %d ms", res.IsError, took)
		}
		wantField(t, m, "remainingMs", nil)
		wantField(t, m, "done", false)
	})
}
