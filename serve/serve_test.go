package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server over stdio pipes in a synctest bubble: a call gets its reply
// when the tool returns, the client's closing its end is a clean end (nil),
// and the probe logs its largest stall and its first call's instant at the
// end.
func TestServeOverStdio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		cin, sout := io.Pipe()
		sin, cout := io.Pipe()
		done := make(chan error, 1)
		var log strings.Builder
		go func() {
			done <- Run(ctx, testServer(), Options{Name: "case x", Stdin: sin, Stdout: sout, Log: &log, Probe: true})
			sout.Close()
		}()
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cin, Writer: cout}, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: workTool, Arguments: map[string]any{"ms": 1600}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %v", err, res)
		}
		if d := time.Since(start); d != 1600*time.Millisecond || res.StructuredContent.(map[string]any)["sleptMs"] != float64(1600) {
			t.Errorf("resolved after %v with %v, want sleptMs 1600 after 1.6s", d, res.StructuredContent)
		}
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("Run ended with %v, want nil (a clean end)", err)
		}
		// In the bubble every wake is on time: the probe saw no stall; the
		// call arrived at the instant it was sent (no time passes in the
		// bubble but by sleeping).
		want, _ := json.Marshal(ProbeReport{FirstCallUnixMs: float64(start.UnixMicro()) / 1000})
		if !strings.Contains(log.String(), "waitsim serve: case x over stdio\n") || !strings.Contains(log.String(), "\n"+ProbePrefix+string(want)+"\n") {
			t.Errorf("the log has no stdio line or no probe line %q:\n%s", ProbePrefix+string(want), log.String())
		}
	})
}

// The server's probe counts the stalls from the first tool call on: one
// before it (a start on a loaded machine) delays no call.
func TestProbeRestartsAtFirstCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := StartProbe()
		p.mu.Lock()
		p.max = 2 * time.Second // a stall while the server started
		p.mu.Unlock()
		server := testServer()
		first := watchFirstCall(server, p.restart)
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if _, ok := first.unixMs(); ok {
			t.Error("a first call before any tools/call")
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if p.mu.Lock(); p.max != 2*time.Second {
			t.Errorf("tools/list restarted the probe (max %v)", p.max)
		}
		p.mu.Unlock()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: workTool, Arguments: map[string]any{"ms": 10}}); err != nil {
			t.Fatal(err)
		}
		if got := p.Stop(); got != 0 {
			t.Errorf("after the first call the probe reports %v ms, want 0 (the earlier stall forgotten)", got)
		}
		if _, ok := first.unixMs(); !ok {
			t.Error("no first call after a tools/call")
		}
	})
}

// Over stdio at most MaxCalls tools/call requests are passed on while their
// replies are not written: a client that sends calls and does not read
// stdout gets no more started (stdin is not read further), so the replies
// held in memory are bounded; once it reads, every call is answered. (Not
// in a synctest bubble: writers queued on the SDK's mutex are not durably
// blocked. Nothing here waits on time: the test waits for the window to be
// full, or for a fourth call, which would mean there is no window.)
func TestStdioRepliesUnreadBounded(t *testing.T) {
	full := make(chan struct{}, 1)
	windowFull = func() {
		select {
		case full <- struct{}{}:
		default:
		}
	}
	defer func() { windowFull = func() {} }()
	var started atomic.Int32
	fourth := make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "count"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, map[string]any, error) {
		if started.Add(1) == 4 {
			close(fourth)
		}
		return nil, map[string]any{"big": strings.Repeat("x", 1000)}, nil
	})
	cin, sout := io.Pipe()
	sin, cout := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, s, Options{Name: "x", Stdin: sin, Stdout: sout, Log: io.Discard, MaxCalls: 3})
	}()
	out := bufio.NewReader(cin)
	io.WriteString(cout, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	go func() {
		io.WriteString(cout, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		for id := 1; id <= 8; id++ {
			io.WriteString(cout, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{}}}`+"\n", id))
		}
	}()
	select {
	case <-full:
		if n := started.Load(); n > 3 {
			t.Errorf("stdout unread: %d calls started, want at most 3 (MaxCalls)", n)
		}
	case <-fourth:
		t.Fatal("stdout unread: a fourth call started while three replies were not written")
	}
	ids := map[float64]bool{}
	for len(ids) < 8 {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     float64         `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Result == nil {
			t.Fatalf("not a result: %s", line)
		}
		ids[m.ID] = true
	}
	if n := started.Load(); n != 8 {
		t.Errorf("stdout read: %d calls started, want 8", n)
	}
	cout.Close()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
