package check

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// Pack is what a kind of tool brings to the generic layer: the server side
// of its worlds, the loader's knowledge of its tools and keys, and its
// checks on top of the generic ones. The runner (waitsim.Run) runs every
// case through one.
type Pack interface {
	// Name names the pack in results (results.CaseResult.Pack).
	Name() string
	// LoadOptions tell the loader the pack's tools (their published input
	// schemas) and which keys of the format it gives meaning to.
	LoadOptions() (scenario.Options, error)
	// Run runs case c in a fresh synctest bubble under t (sim.RunWorld) and
	// checks it: the verdict is in the result; t is not failed.
	Run(t *testing.T, c *scenario.Case) results.CaseResult
}

// Generic is the pack of any tool registered on an mcp.Server: the tool
// runs in virtual time as it is (its time.Sleep and timers are the
// bubble's: sim.ClockBubble), behind every transport, proxy and client
// profile, with the generic checks alone.
type Generic struct {
	// Register registers the tools under test on s. It runs once per world
	// inside the world's bubble, and once outside one to list the tools.
	Register func(s *mcp.Server)
}

// Name implements Pack.
func (Generic) Name() string { return scenario.PackGeneric }

// LoadOptions implements Pack: the input schema of every tool Register
// registers, as a server lists them.
func (g Generic) LoadOptions() (scenario.Options, error) {
	tools, err := ListTools(g.Register)
	if err != nil {
		return scenario.Options{}, err
	}
	opts := scenario.Options{Pack: scenario.PackGeneric, Tools: map[string]*jsonschema.Schema{}, Outputs: map[string]*jsonschema.Schema{}}
	for _, t := range tools {
		s, err := InputSchema(t)
		if err != nil {
			return opts, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		opts.Tools[t.Name] = s
		if t.OutputSchema != nil {
			o, err := asSchema(t.OutputSchema)
			if err != nil {
				return opts, fmt.Errorf("tool %s: output schema: %w", t.Name, err)
			}
			opts.Outputs[t.Name] = o
		}
	}
	return opts, nil
}

// Run implements Pack.
func (g Generic) Run(t *testing.T, c *scenario.Case) results.CaseResult {
	t.Helper()
	start := time.Now()
	w := c.World()
	w.Clock = sim.ClockBubble
	w.Tool = func(env *sim.Env) error {
		g.Register(env.Server)
		return nil
	}
	res := sim.RunWorld(t, w)
	out := Summarize(c, res, g.Name())
	if out.Verdict != results.VerdictError {
		out.Failures = Expectations(c, res, out.Calls)
		out.Violation = GenericInvariants(c, res, out.Calls)
		Verdict(&out)
	}
	out.WallMs = WallMs(start)
	return out
}

// ListTools registers tools with register on a server of its own and lists
// them over an in-memory session, outside any bubble (on the real clock:
// listing runs no tool).
func ListTools(register func(*mcp.Server)) ([]*mcp.Tool, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server := mcp.NewServer(&mcp.Implementation{Name: "waitsim", Version: "v0"}, nil)
	register(server)
	tools, err := sim.ListTools(ctx, server)
	if err != nil {
		return nil, err
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return tools, nil
}

// InputSchema is tool t's published input schema as a *jsonschema.Schema
// (a client sees it as JSON).
func InputSchema(t *mcp.Tool) (*jsonschema.Schema, error) { return asSchema(t.InputSchema) }

// asSchema is a tool's published schema (a *jsonschema.Schema, or its JSON)
// as a *jsonschema.Schema.
func asSchema(v any) (*jsonschema.Schema, error) {
	if s, ok := v.(*jsonschema.Schema); ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
