package waitagents

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/waittool"
)

// lockedLog is a log safe for the writes of the calls and the bridge at
// once, as check.Server asks.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// connectServer builds the pack's real-clock server of c and connects a
// client to it over the SDK's in-memory transports, inside the caller's
// bubble (whose clock stands in for the real one).
func connectServer(t *testing.T, p *Pack, c *scenario.Case, log *lockedLog) *mcp.ClientSession {
	t.Helper()
	server, stop, err := p.NewServer(c, log)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		stop()
	})
	return cs
}

// call calls the tool with args and returns how long it took and the reply.
func call(t *testing.T, cs *mcp.ClientSession, args map[string]any) (time.Duration, map[string]any) {
	t.Helper()
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: waittool.ToolName, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("call %v: %v %v", args, err, res)
	}
	return time.Since(start), res.StructuredContent.(map[string]any)
}

const serveSrc = `# protects: nothing
name: s
bridge:
  list: [300]
agents:
  - {id: c, state: running, messages: [one]}
changes:
  - {atMs: 1100, op: state, id: c, state: completed}
callers:
  - name: A
    args: {timeoutMs: 5000, pollIntervalMs: 1000}
`

// The real-clock server of a case: the scenario's bridge latency and roster
// change, counted from the first tool call, give the reply the simulation
// predicts for it: done at 1600 ms (lists at 0 and 1300, each 300 ms); the
// log has the bridge's requests and the tool's steps.
func TestNewServerServesCase(t *testing.T) {
	_, cases, problems := loadSrc(t, serveSrc)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	synctest.Test(t, func(t *testing.T) {
		var log lockedLog
		cs := connectServer(t, Reference(), &cases[0], &log)
		time.Sleep(5 * time.Second) // before the first call, scenario time stands at 0
		d, rep := call(t, cs, map[string]any{"timeoutMs": 5000, "pollIntervalMs": 1000})
		if d != 1600*time.Millisecond {
			t.Errorf("resolved after %v, want 1.6s", d)
		}
		if rep["done"] != true || len(rep["outputs"].([]any)) != 1 {
			t.Errorf("reply %v: want done with c's output", rep)
		}
		for _, line := range []string{"     1100 ms  run        c -> completed\n", "     1600 ms  bridge     list #2 completed: [c=completed]\n", "     1600 ms  tool:1     reply"} {
			if !strings.Contains(log.String(), line) {
				t.Errorf("the log has no line %q:\n%s", line, log.String())
			}
		}
	})
}

// A case's cap is served: the original report's world (capMs 90000, a
// replay of the first version) holds a 100 s call for 90 s — past the 60 s
// of a TypeScript client and of the proxy the case puts in front of it,
// so a real client loses the reply there as the simulation predicts —
// while the fixed world (the contract's 30 s cap) replies at 30 s.
func TestNewServerServesCapMs(t *testing.T) {
	cases, err := loadRef([]string{"../../scenarios/table/transport-original-report.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*scenario.Case{}
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	for id, want := range map[string]time.Duration{"transport-original-report": 90 * time.Second, "transport-original-report-fixed": 30 * time.Second} {
		c := byID[id]
		if c == nil {
			t.Fatalf("no case %s", id)
		}
		synctest.Test(t, func(t *testing.T) {
			cs := connectServer(t, Reference(), c, &lockedLog{})
			if d, rep := call(t, cs, map[string]any{"timeoutMs": 100000, "pollIntervalMs": 1000}); d != want || rep["done"] != false {
				t.Errorf("%s: replied after %v (%v), want %v, not done", id, d, rep, want)
			}
		})
	}
}

// Another implementation is served with its own registration, its tool
// reading the case's bridge; a case of another cap than its own does not
// apply to it: an error, nothing started.
func TestNewServerImpl(t *testing.T) {
	impl := Impl{Name: "mine", Register: func(s *mcp.Server, b waittool.Bridge) {
		mcp.AddTool(s, &mcp.Tool{Name: waittool.ToolName}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]any, error) {
			agents, err := b.ListAgents(ctx, "")
			return nil, map[string]any{"agents": len(agents)}, err
		})
	}}
	_, cases, problems := loadSrc(t, serveSrc)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	synctest.Test(t, func(t *testing.T) {
		cs := connectServer(t, New(impl), &cases[0], &lockedLog{})
		if d, rep := call(t, cs, nil); d != 300*time.Millisecond || rep["agents"] != float64(1) {
			t.Errorf("replied after %v with %v; want one agent after the bridge's 300 ms", d, rep)
		}
	})
	capped, err := loadRef([]string{"../../scenarios/table/transport-original-report.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := New(impl).NewServer(&capped[0], &lockedLog{}); err == nil || !strings.Contains(err.Error(), "capMs 90000") {
		t.Errorf("a case of another cap: got %v, want an error naming it", err)
	}
}
