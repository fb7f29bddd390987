package serve

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/synctest"

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
		guard(server, io.Discard)
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
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom"})
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
