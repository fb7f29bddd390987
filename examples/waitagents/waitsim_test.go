package waitagents_test

import (
	"context"
	"testing"

	"example.com/waitagents"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim"
	contract "github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/scenarios"
	"github.com/waitsim/waitsim/waittool"
)

// impl is this implementation as the wait_agents contract pack runs it: it
// reads package time (virtual in waitsim's worlds) and the pack's simulated
// bridge, through an adapter to its own Bridge.
var impl = contract.Impl{
	Name: "example.com/waitagents",
	Register: func(s *mcp.Server, b waittool.Bridge) {
		cfg := waitagents.Config{}
		if b != nil {
			cfg.Bridge = bridge{b}
		}
		waitagents.Register(s, cfg)
	},
}

// TestContract runs the whole contract table (waitsim's own, scenarios.Table)
// against this implementation: every expectation, the generic and the
// contract's invariants, and the reference model. Cases that need a tool on
// a gated clock (late timers) or another cap are skipped, saying why.
func TestContract(t *testing.T) {
	waitsim.Run(t, waitsim.Params{FS: scenarios.Table, Dir: "table", Pack: contract.New(impl), Known: known})
}

// known are the contract table's cases this implementation is known to
// fail, each with the reason: none.
var known = map[string]string{}

// bridge is the pack's bridge as this implementation's Bridge.
type bridge struct{ b waittool.Bridge }

func (a bridge) ListAgents(ctx context.Context, runID string) ([]waitagents.Agent, error) {
	as, err := a.b.ListAgents(ctx, runID)
	out := make([]waitagents.Agent, len(as))
	for i, x := range as {
		out[i] = waitagents.Agent{SessionID: x.SessionID, State: x.State}
	}
	return out, err
}

func (a bridge) ReadOutputs(ctx context.Context, runID string, ids []string) ([]waitagents.AgentOutput, error) {
	os, err := a.b.ReadOutputs(ctx, runID, ids)
	out := make([]waitagents.AgentOutput, len(os))
	for i, x := range os {
		out[i] = waitagents.AgentOutput{SessionID: x.SessionID, Messages: x.Messages}
	}
	return out, err
}
