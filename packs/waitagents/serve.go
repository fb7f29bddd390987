package waitagents

import (
	"context"
	"fmt"
	"io"

	"github.com/benbjohnson/clock"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/check"
	"github.com/waitsim/waitsim/machine"
	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim/wall"
	"github.com/waitsim/waitsim/waittool"
)

var _ check.Server = (*Pack)(nil)

// NewServer implements check.Server: the pack's implementation on the real
// clock (clock.New(), or package time for one that reads it), with case
// c's bridge — its script, agents and roster changes, the simulation's own
// model of the reference bridge (NewWorldBridge) — on a wall.Scheduler
// whose origin is the server's first tools/call, and c's cap (capMs: a
// replay of an earlier version) for the reference tool. One bridge serves
// every session. The case's callers, transport and expectations are the
// clients' business; its modelled timer lateness (timers:) is not served
// (real timers are late by themselves). log receives every bridge request
// and, for the reference tool, every step of a call. A case that does not
// apply to the implementation (another cap than its own) is an error.
func (p *Pack) NewServer(c *scenario.Case, log io.Writer) (*mcp.Server, func(), error) {
	w := p.World(c)
	impl := p.impl
	k := impl.Contract.withDefaults()
	if impl != ReferenceImpl {
		if w.CapMs > 0 && w.CapMs != k.CapMs {
			return nil, nil, fmt.Errorf("case %s: capMs %d is a replay of another cap; %s caps at %d ms", c.ID, w.CapMs, impl.Name, k.CapMs)
		}
		if impl.RegisterGated == nil && impl.Register == nil {
			return nil, nil, fmt.Errorf("implementation %q has neither Register nor RegisterGated", impl.Name)
		}
	}
	sched := wall.New(log)
	var br *bridge.Bridge
	var b waittool.Bridge
	if !w.NoBridge {
		br = NewWorldBridge(sched, w)
		b = br
	}
	server := mcp.NewServer(check.ServerImplementation(), nil)
	// Scenario time starts with the first call.
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				sched.SetOrigin()
			}
			return next(ctx, method, req)
		}
	})
	switch {
	case impl == ReferenceImpl:
		waittool.Register(server, waittool.Options{Clock: clock.New(), Machine: machine.Twin(), Bridge: b, CapMs: w.CapMs, Observer: func(e waittool.Event) {
			sched.Logf(fmt.Sprintf("tool:%d", e.Call.ID), "%s %s (cost %d ms)", e.Kind, e.Detail, e.CostMs)
		}})
	case impl.RegisterGated != nil:
		impl.RegisterGated(server, b, clock.New())
	default:
		impl.Register(server, b)
	}
	stop := func() {
		sched.Stop()
		if br != nil {
			br.Shutdown() // wakes every reader still waiting
		}
	}
	return server, stop, nil
}
