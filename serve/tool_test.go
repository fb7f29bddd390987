package serve

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// workTool is the tool the tests serve: any MCP tool would do; this one
// sleeps ms (1000 by default, a default in its published schema) and
// replies with how long it slept.
const workTool = "work"

type workIn struct {
	Ms int `json:"ms,omitempty"`
}

// testServer is a server with workTool registered, as a pack builds one
// (check.Server): serve serves any server.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	in, err := jsonschema.For[workIn](nil)
	if err != nil {
		panic(err)
	}
	in.Properties["ms"].Default = json.RawMessage("1000")
	mcp.AddTool(s, &mcp.Tool{Name: workTool, InputSchema: in}, func(ctx context.Context, _ *mcp.CallToolRequest, in workIn) (*mcp.CallToolResult, map[string]any, error) {
		t := time.NewTimer(time.Duration(in.Ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return nil, map[string]any{"sleptMs": in.Ms}, nil
	})
	return s
}

// callMsg is a tools/call of workTool for ms, with JSON-RPC id id.
func callMsg(id, ms int) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": workTool, "arguments": map[string]any{"ms": ms}}})
	return string(b)
}
