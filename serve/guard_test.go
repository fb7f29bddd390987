package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioSession starts Run of testServer over stdio pipes inside the
// caller's bubble and returns a raw line-oriented peer: send writes one
// JSON-RPC message, recv reads the next one the server writes.
func stdioSession(t *testing.T) (send func(string), recv func() map[string]any, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cin, sout := io.Pipe()
	sin, cout := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, testServer(), Options{Name: "test", Stdin: sin, Stdout: sout, Log: io.Discard})
		sout.Close()
	}()
	dec := json.NewDecoder(cin)
	send = func(msg string) {
		if _, err := io.WriteString(cout, msg+"\n"); err != nil {
			t.Fatalf("send %s: %v", msg, err)
		}
	}
	recv = func() map[string]any {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("recv: %v", err)
		}
		return m
	}
	stop = func() error {
		cout.Close()
		cancel()
		return <-done
	}
	return send, recv, stop
}

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// A tools/call whose arguments are null is the call with no arguments (the
// tool's defaults), not a crash of the server: before the guard, go-sdk's
// schema step panicked on it ("assignment to entry in nil map") and the
// process exited 2.
func TestNullArgumentsDoNotCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		send, recv, stop := stdioSession(t)
		send(initMsg)
		recv()
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + workTool + `","arguments":null}}`)
		m := recv()
		if m["id"] != float64(2) || m["error"] != nil {
			t.Fatalf("null arguments: got %v, want the tool's reply", m)
		}
		res, _ := m["result"].(map[string]any)
		if sc, _ := res["structuredContent"].(map[string]any); res == nil || res["isError"] == true || sc["sleptMs"] != float64(1000) {
			t.Fatalf("null arguments: got %v, want the defaults' reply (sleptMs 1000)", m)
		}
		// The server still answers.
		send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		if m := recv(); m["id"] != float64(3) || m["error"] != nil {
			t.Fatalf("ping after the call: %v", m)
		}
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// A panic inside a request's handling answers that request with a JSON-RPC
// internal error and leaves the server serving.
func TestPanicAnswersInternalError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
			panic("boom")
		})
		guard(server, io.Discard, 0)
		ctx := context.Background()
		ss, cs := connect(t, server)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom"})
		if err == nil || !strings.Contains(err.Error(), "internal error") {
			t.Errorf("a panicking tool: got %v, want a JSON-RPC internal error", err)
		}
		if err := cs.Ping(ctx, nil); err != nil {
			t.Errorf("ping after the panic: %v", err)
		}
		cs.Close()
		ss.Wait()
	})
}

// A line on stdin that is no JSON-RPC message gets a JSON-RPC error (id
// null: parse error, or invalid request for a batch or a non-message) and
// the server goes on, a call in flight included: before, the SDK's stdio
// transport ended the session at the first such line ("invalid character
// 'g' looking for beginning of value", exit 1) and the call never got its
// reply.
func TestBadStdioLinesAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		send, recv, stop := stdioSession(t)
		send(initMsg)
		recv()
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + workTool + `","arguments":{"ms":3000}}}`)
		for _, tc := range []struct {
			line string
			code float64
		}{
			{"garbage", -32700},
			{`{"jsonrpc":"2.0","id":9,"method":`, -32700},
			{`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, -32600},
			{`{"foo":1}`, -32600},
			{`42`, -32600},
			// ids the SDK would answer with another (1.5 as 1, a huge one
			// as -2^63): refused, so no answer carries a wrong id.
			{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
			{`{"jsonrpc":"2.0","id":99999999999999999999999999,"method":"ping"}`, -32600},
			{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600},
			{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, -32600},
		} {
			send(tc.line)
			m := recv()
			e, _ := m["error"].(map[string]any)
			if _, hasID := m["id"]; !hasID || m["id"] != nil || e == nil || e["code"] != tc.code {
				t.Errorf("%s: got %v, want an error with code %v and id null", tc.line, m, tc.code)
			}
		}
		// A tools/call whose id is in flight: refused (the SDK dropped it
		// without a word).
		send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + workTool + `","arguments":{"ms":10}}}`)
		if m := recv(); m["id"] != nil || m["error"] == nil || !strings.Contains(fmt.Sprint(m["error"]), "already in flight") {
			t.Errorf("a second call with id 2 in flight: got %v, want an invalid request", m)
		}
		if m := recv(); m["id"] != float64(2) || m["error"] != nil {
			t.Fatalf("the call in flight: got %v, want its reply", m)
		}
		send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		if m := recv(); m["id"] != float64(3) || m["error"] != nil {
			t.Fatalf("ping after the bad lines: %v", m)
		}
		send(`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`)
		if m := recv(); m["id"] != float64(-9007199254740992) || m["error"] != nil {
			t.Fatalf("ping with the least id that is exact: %v", m)
		}
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// A line longer than the transport's limit is answered and skipped without
// being held whole; the next line is served.
func TestOverlongStdioLineSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		send, recv, stop := stdioSession(t)
		send(initMsg)
		recv()
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(`{"x":"` + strings.Repeat("a", mcp.DefaultMaxLineLength) + `"}`)
		if m := recv(); m["id"] != nil || m["error"] == nil {
			t.Fatalf("an overlong line: got %v, want an error with id null", m)
		}
		send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		if m := recv(); m["id"] != float64(3) || m["error"] != nil {
			t.Fatalf("ping after the overlong line: %v", m)
		}
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// At most maxCalls tools/call are in flight at once: one more is refused at
// once with CodeTooManyCalls, and once one ends another is taken.
func TestCallsInFlightBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		release := make(chan struct{})
		mcp.AddTool(server, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{}, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{}, struct{}{}, nil
		})
		guard(server, io.Discard, 2)
		ctx := context.Background()
		ss, cs := connect(t, server)
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait"}); err != nil {
					t.Errorf("a call within the bound: %v", err)
				}
			})
		}
		synctest.Wait()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait"})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != CodeTooManyCalls {
			t.Errorf("a third call at once: %v, want a JSON-RPC error %d", err, CodeTooManyCalls)
		}
		close(release)
		wg.Wait()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait"}); err != nil {
			t.Errorf("a call once the others ended: %v", err)
		}
		cs.Close()
		ss.Wait()
	})
}

// connect connects a client to server over in-memory transports.
func connect(t *testing.T, server *mcp.Server) (*mcp.ServerSession, *mcp.ClientSession) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ss, cs
}
