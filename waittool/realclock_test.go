//go:build realclock

package waittool_test

// The tool on the REAL clock (contract §2 step 12): the one place where wall
// time is the point, kept out of the deterministic suite by the realclock
// build tag. `make realclock` runs it (about 35 s of wall time):
//
//	go test -tags realclock -count=1 -v -run '^TestRealClock' ./waittool/
//
// It serves the tool on clock.New() with an instant in-process bridge over the
// SDK's in-memory transport, and counts the replies that lose their outputs
// and the progress notifications above total.

import (
	"context"
	"encoding/json"
	"fmt"
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
func realServer(rt *realTally) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "waitsim-real", Version: "v0"}, nil)
	waittool.Register(server, waittool.Options{Clock: clock.New(), Bridge: instantBridge{}, Observer: rt.observe})
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
	rt.maxOverMs = max(rt.maxOverMs, over)
	rt.mu.Unlock()
	return rep
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
	server := realServer(rt)
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
	rt.report(t, "one-second calls")
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
