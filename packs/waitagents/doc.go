// Package waitagents is the contract pack for orchestration_wait_agents
// (docs/contract.md): on top of sim's generic world and check's generic
// invariants it adds the simulated bridge of contract §3 (the subpackage
// bridge, built from a World by NewWorldBridge), the scenario keys of the contract (roster, bridge, per-call args), the
// contract's invariants (invariants.go), its reference model (model.go),
// the transport rules a reply must survive (transport.go), and the server
// of a case on the real clock for `waitsim serve` (serve.go: check.Server,
// the bridge model on wall.Scheduler). Its world generator is the
// subpackage gen (gen.Check runs it through a Pack).
//
// A maintainer of their own implementation checks it with
//
//	waitsim.Run(t, waitsim.Params{Pack: waitagents.New(waitagents.Impl{
//		Name:     "mytool",
//		Register: func(s *mcp.Server, b waittool.Bridge) { mytool.Register(s, b) },
//	})})
//
// (examples/waitagents is such a module); the reference tool (waittool) is
// Reference().
//
// Rules:
//   - Dependencies: waitagents → sim (sim/timeline, sim/wall), check,
//     machine, scenario, results, waittool, and its subpackage bridge;
//     nothing below it imports it, nor do its subpackages bridge and gen
//     (gen's tests do).
//   - The model and the invariants read only a case's trace and its
//     scenario, never the implementation's internals; a case whose premise
//     needs what an implementation does not offer is a
//     skip with its reason (Impl.RegisterGated for late timers, Contract for
//     another cap), never a pass.
package waitagents
