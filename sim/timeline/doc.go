// Package timeline is sim's virtual timeline: the Kernel that orders every
// event of a world on one virtual clock, the gated Clock the tools under
// test read, the Trace (the unit of determinism), timer lateness drawn from
// a seed (TimerScript, Draw), and the Scheduler interface a simulated
// service (a pack's bridge) runs on, whichever timeline it is.
//
// The kernel loop is: wait for quiescence (every goroutine of the synctest
// bubble durably blocked), then take the single earliest action — a sim
// event or a timer — and run it, then wait again. Nothing on a timeline
// sleeps on the wall clock.
//
// Same-instant rules, held by construction, depend on the tool's clock:
//   - the gated Clock (a tool on an injected clock.Clock): at one virtual
//     instant t, sim events (At, Soon) run before the tool's timers due at
//     t, and those before callers' timers (Clock.CallerTimer); a late event
//     (Kernel.AtLate) runs after both.
//   - following the bubble (Kernel.FollowBubble, a tool on package time):
//     the tool's own timers fire first, then sim events; callers' timers
//     run 1µs after t and late events 2µs after, so a reply built at t is
//     still received.
//
// Within each class, actions run in the order they were scheduled.
//
// Rules:
//   - It imports nothing of waitsim's: no world, caller, transport, pack or
//     scenario format; sim builds worlds on it.
//   - Everything it orders is a function of what was scheduled and when:
//     the same schedule gives the byte-identical Trace on every run, at any
//     GOMAXPROCS, with and without -race.
//   - Only the kernel's goroutine advances virtual time.
package timeline
