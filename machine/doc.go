// Package machine is the real clock's waittool.Machine (contract §2 step
// 12): it measures the machine's delay beside each bridge read with a twin,
// an empty read started with it.
//
// A read's goroutine can be kept from running while it is inside its bridge
// call, and the clock alone cannot tell that from the bridge's time. Traced
// on the project's 2-core machine under load (runtime/trace, make realclock's
// loaded run): the goroutine of an instant in-process bridge read sat 350 ms
// in the Go runtime, its one allocation drawn into a garbage collection's
// mark termination (runtime.gcMarkDone) that could not finish while the
// process's threads waited for a CPU. The Go runtime accounts such waits to
// no goroutine: /sched/latencies counts only a sample of waits for a P and
// only once they end, and the kernel's per-thread run-queue time
// (/proc/self/task/TID/schedstat) sees neither a goroutine blocked in the
// runtime nor one waiting for a P. So the delay is measured by example: when
// a read's goroutine begins its bridge call, Twin starts a second goroutine
// beside it that does what an instant read does and nothing else — one small
// allocation — and notes on the clock when it is done. Started together, the
// two meet the same collection and the same scheduler, and the twin's time is
// the machine's delay beside the read:
//
//   - the read's bridge time is its time less the twin's (while the twin has
//     not run, all of it: the machine has not yet run an empty read);
//   - the read's race, due at its limit, waits until the twin has run, and
//     then runs on for the twin's time past the limit.
//
// What the twin cannot tell: a remote bridge that was truly busy while the
// process was stalled has that stall taken off its time (at most the twin's
// time), and a read whose goroutine alone was kept from a CPU while the twin
// ran elsewhere keeps that wait as the bridge's.
//
// The package is not waittool's: the tool is given its Machine, as it is
// given its clock (waittool.Options.Machine; nil is waittool.ExactMachine,
// an exact clock's). That keeps the twin out of the mutation gate's target
// too, whose operator mutants run against the exact-clock table, where every
// twin measures 0 and none of this code could be told from its mutants; the
// rule is tested here instead, on synctest's virtual clock with a machine
// that holds a read and its twin (machine_test.go), each test seen failing
// with the rule removed.
//
// Rules:
//   - It measures; it never decides: the tool judges with what Meter gives.
//   - Only the real clock uses it (waitsim serve, make realclock); the
//     simulation and the gate's table run on waittool.ExactMachine.
//   - Every rule it adds rests on a measurement named in contract §2 step 12,
//     and each test of it fails with the rule removed.
package machine
