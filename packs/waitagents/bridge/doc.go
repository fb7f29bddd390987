// Package bridge is the simulated bridge of the wait_agents contract
// (docs/contract.md §3): a waittool.Bridge on a timeline.Scheduler — the
// kernel's virtual timeline in a world, the wall clock under `waitsim
// serve` — with one dispatch slot, an untimed FIFO queue, a timeout that
// starts at dispatch, a cache that shares identical reads, congestion from
// other requesters, a roster that changes on schedule, and a record of
// every request (Request) for the pack's invariants and reports.
//
// Rules:
//   - Dependencies: bridge → sim (CallIDFrom), sim/timeline, waittool;
//     packs/waitagents builds it from a World (NewWorldBridge) and it
//     imports nothing of the pack.
//   - It runs scheduled work only through its Scheduler and draws its
//     jitter from the world's seed: the same script and seed give the same
//     trace.
//   - A request made after Shutdown ends at once: no goroutine outlives
//     the world.
package bridge
