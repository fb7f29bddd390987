package check_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/waitsim/waitsim/check"
)

// The generic layer's load options carry each tool's published output
// schema, by name, beside its input schema: replyFields are checked
// against it; a tool without one has none.
func TestGenericOutputSchemas(t *testing.T) {
	type out struct {
		Done bool `json:"done"`
	}
	g := check.Generic{Register: func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "typed"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
			return nil, out{}, nil
		})
		s.AddTool(&mcp.Tool{Name: "raw", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}}
	opts, err := g.LoadOptions()
	if err != nil {
		t.Fatal(err)
	}
	if o := opts.Outputs["typed"]; o == nil || o.Properties["done"] == nil || opts.Outputs["raw"] != nil || opts.Tools["raw"] == nil {
		t.Errorf("outputs %+v, tools %v: want typed's output schema with done, none for raw", opts.Outputs, opts.Tools)
	}
}
