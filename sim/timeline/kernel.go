package timeline

import (
	"container/heap"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"
)

// Errors returned by Kernel.Run, wrapped with where the world was.
var (
	// ErrHorizon: the next event lies beyond the virtual horizon (time running
	// away, e.g. a loop that never ends).
	ErrHorizon = errors.New("virtual horizon exceeded")
	// ErrStuck: nothing is scheduled, yet the world has not finished (a
	// goroutine waits for something that will never happen).
	ErrStuck = errors.New("world stuck: no pending event")
	// ErrStandstill: Kernel.StandstillLimit actions ran at one virtual instant
	// (e.g. a poll loop that sleeps 0 ms): virtual time does not advance.
	ErrStandstill = errors.New("virtual time stands still")
	// ErrTraceFull: the world's trace reached MaxTraceEntries (a world that
	// does more virtual work than waitsim holds in memory).
	ErrTraceFull = errors.New("the world's trace is full")
)

// MaxTraceEntries is the most entries one world's trace holds; the entry
// past it ends the world with ErrTraceFull, so that no scenario can make a
// run's memory grow without bound (a trace is kept whole, for its hash and
// the reports). Measured 3 December 2026 with the wait_agents pack at its
// load limits (scenario.md, "Limits"): 100 callers following chains of 5
// calls at the 250 ms minimum poll made 246,312 entries (1.06 GB peak in
// `waitsim run`), 367,100 without the list cache and 487,100 with progress
// notifications as well (3.35 GB); the table's largest case makes 3,910.
// 250,000 keeps the first and stops the heavier two.
const MaxTraceEntries = 250_000

// ActionsPerInstantPerCaller sizes Kernel.StandstillLimit: a followed chain
// of 50 calls that each reply at once takes a few hundred actions.
const ActionsPerInstantPerCaller = 500

type event struct {
	at   time.Time
	seq  uint64
	name string
	fn   func()
	late bool // runs after the timers due at its instant (AtLate)
}

type eventHeap []*event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	if h[i].late != h[j].late {
		return !h[i].late
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(*event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// Kernel owns one virtual timeline: the Clock the tool sees plus the sim's own
// events, ordered by (virtual time, class, sequence number).
type Kernel struct {
	Clock *Clock
	Trace *Trace
	// HorizonMs is the virtual time (ms since Epoch) past which Run fails with
	// ErrHorizon.
	HorizonMs int64
	// StandstillLimit is how many actions may run at one virtual instant
	// before Run fails with ErrStandstill.
	StandstillLimit int

	mu     sync.Mutex
	err    error // set by fail
	events eventHeap
	seq    uint64
	step   atomic.Uint64
	nowMs  atomic.Int64 // for the wall-clock watchdog, which lives outside the bubble

	// wake is the tool timer released by the current step, if any: the bridge
	// stamps the requests that step issues with its lateness (Request.WakeLateMs).
	wake struct {
		sync.Mutex
		step   uint64
		lateMs int64
	}

	// bubble0, when not zero, is the bubble's clock at virtual time 0: the
	// kernel follows the bubble's clock (FollowBubble), and poke wakes it
	// when something is scheduled while it waits on the bubble.
	bubble0 time.Time
	poke    chan struct{}
}

// FollowBubble makes the kernel follow the clock of the synctest bubble it
// runs in (a world's ClockBubble), from now as virtual time 0: the tools'
// own timers are the bubble's, and virtual time is the bubble's time since
// then, in whole ms (truncated, as time.Duration.Milliseconds). The kernel
// waits on the bubble's clock for its next action's instant T; the tools'
// timers due by T fire on the way, and what they set off settles before the
// kernel acts. So at one instant the tools' own timers come first, then sim
// events, then the gated timers (callers' request timeouts, 1 µs into the
// instant's ms): a result a sim event delivers at the instant of a tool's
// own deadline timer comes after it (a tool on a real clock meets such ties
// as races, and must settle them itself, e.g. with a deadline timer 1 ns
// later). Call it before Run.
func (k *Kernel) FollowBubble() {
	k.bubble0 = time.Now()
	k.poke = make(chan struct{}, 1)
	k.Clock.mu.Lock()
	k.Clock.bubble0 = k.bubble0
	k.Clock.mu.Unlock()
	k.Clock.setOnTimer(k.WakeUp)
	k.Trace.byActor = true
}

// WakeUp wakes the kernel if it waits on the bubble's clock (FollowBubble);
// otherwise it does nothing.
func (k *Kernel) WakeUp() {
	if k.poke == nil {
		return
	}
	select {
	case k.poke <- struct{}{}:
	default:
	}
}

// waitBubble lets the bubble's clock run until the instant at, or until
// something is scheduled (WakeUp): the tools' timers due before then fire on
// the way. It reports whether the bubble reached at.
func (k *Kernel) waitBubble(at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-k.poke:
		return !time.Now().Before(at)
	}
}

// Kinds of the kernel's next action, in their order at one instant.
const (
	actEvent = iota // a sim event
	actTimer        // a gated timer (tools', then callers')
	actLate         // a late sim event (AtLate)
)

// bubbleAt is the bubble's instant at which an action of kind due at
// virtual time t runs (FollowBubble): a sim event at t itself; a gated timer
// (a caller's request timeout) 1 µs after t, so that what a tool does within
// the instant's ms (a reply 1 ns after its deadline timer, say) comes first,
// as virtual time counts whole ms; a late event 2 µs after t, after them.
func (k *Kernel) bubbleAt(t time.Time, kind int) time.Time {
	return k.bubble0.Add(t.Sub(Epoch)).Add(time.Duration(kind) * time.Microsecond)
}

// EventBubbleAt is the bubble's instant at which a sim event due at atMs
// (virtual ms since Epoch) runs when the kernel follows the bubble's clock
// (FollowBubble).
func (k *Kernel) EventBubbleAt(atMs int64) time.Time {
	return k.bubbleAt(Epoch.Add(time.Duration(atMs)*time.Millisecond), actEvent)
}

// Following reports whether the kernel follows the bubble's clock
// (a world's ClockBubble).
func (k *Kernel) Following() bool { return !k.bubble0.IsZero() }

// MaxTimerLateMs is the largest lateness in ms given to any tool timer so far
// (0 with exact timers).
func (k *Kernel) MaxTimerLateMs() int64 { return k.Clock.MaxLate().Milliseconds() }

// Fail ends the world: Run returns err (the first one given) at its next
// step, wrapped with the virtual time. A simulated service calls it when the
// world breaks one of its rules (e.g. the wait_agents pack's poll storm).
func (k *Kernel) Fail(err error) { k.fail(err) }

// fail is Fail.
func (k *Kernel) fail(err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err == nil {
		k.err = fmt.Errorf("%w at %d ms", err, k.NowMs())
	}
}

func (k *Kernel) failed() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// WakeLate returns the lateness in ms of the tool timer released by the
// current step, and whether the current step released one: a simulated
// service stamps the requests that step issues with it.
func (k *Kernel) WakeLate() (int64, bool) {
	k.wake.Lock()
	defer k.wake.Unlock()
	return k.wake.lateMs, k.wake.step != 0 && k.wake.step == k.Step()
}

// NewKernel returns a kernel at Epoch with the given horizon in ms.
func NewKernel(horizonMs int64) *Kernel {
	k := &Kernel{Clock: NewClock(), HorizonMs: horizonMs, StandstillLimit: 2 * ActionsPerInstantPerCaller}
	k.Trace = &Trace{k: k}
	return k
}

// At schedules fn as a sim event at virtual time atMs (ms since Epoch); a time
// in the past means now. name is for diagnostics.
func (k *Kernel) At(atMs int64, name string, fn func()) { k.at(atMs, name, fn, false) }

// AtLate schedules fn as a sim event at virtual time atMs that runs after
// every timer due at that instant, the callers' request timeouts included:
// a world's own timer that starts after a client's (a proxy's idle timeout
// starts when it forwards the request) loses a tie to it.
func (k *Kernel) AtLate(atMs int64, name string, fn func()) { k.at(atMs, name, fn, true) }

func (k *Kernel) at(atMs int64, name string, fn func(), late bool) {
	// An event's instant is a whole ms: "now" is the current instant,
	// however far into its ms the bubble's clock stands (ClockBubble: a
	// caller's timeout runs 1 µs into it), so that at one instant every sim
	// event still runs before the late ones.
	atMs = max(atMs, k.Clock.NowMs())
	at := Epoch.Add(time.Duration(atMs) * time.Millisecond)
	k.mu.Lock()
	k.seq++
	heap.Push(&k.events, &event{at: at, seq: k.seq, name: name, fn: fn, late: late})
	k.mu.Unlock()
	k.WakeUp()
}

// Soon schedules fn as a sim event at the current instant, after the sim
// events already scheduled for it.
func (k *Kernel) Soon(name string, fn func()) { k.At(k.Clock.NowMs(), name, fn) }

// NowMs is the current virtual time in ms since Epoch.
func (k *Kernel) NowMs() int64 { return k.Clock.NowMs() }

// Step is the number of actions the kernel has run so far.
func (k *Kernel) Step() uint64 { return k.step.Load() }

// PeekEvent describes the next sim event without running it: its instant,
// its name (At's) and whether it is late (AtLate); ok is false when none is
// scheduled.
func (k *Kernel) PeekEvent() (at time.Time, name string, late bool, ok bool) {
	ev, ok := k.peekEvent()
	if !ok {
		return time.Time{}, "", false, false
	}
	return ev.at, ev.name, ev.late, true
}

// WatchdogNowMs is the virtual time in ms as of the kernel's latest step,
// safe to read from outside the bubble (a wall-clock watchdog).
func (k *Kernel) WatchdogNowMs() int64 { return k.nowMs.Load() }

func (k *Kernel) peekEvent() (*event, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.events) == 0 {
		return nil, false
	}
	return k.events[0], true
}

func (k *Kernel) popEvent() *event {
	k.mu.Lock()
	defer k.mu.Unlock()
	return heap.Pop(&k.events).(*event)
}

// Run drives the world until finished returns true (checked at quiescence).
// It must be called inside a synctest bubble, by the bubble's root goroutine.
// It returns ErrHorizon, ErrStuck or ErrStandstill (wrapped with the virtual
// time) on failure.
func (k *Kernel) Run(finished func() bool) error {
	var lastAt time.Time
	atInstant := 0
	for {
		synctest.Wait()
		if err := k.failed(); err != nil {
			return err
		}
		if finished() {
			return nil
		}
		now := k.Clock.Now()
		ev, okE := k.peekEvent()
		tT, okT := k.Clock.nextPending()
		if !okE && !okT {
			if k.Following() {
				// The tools' own timers may still be due: let the bubble
				// run until something is scheduled, or the horizon.
				horizon := Epoch.Add(time.Duration(k.HorizonMs+1) * time.Millisecond)
				if k.waitBubble(k.bubbleAt(horizon, actEvent)) {
					return fmt.Errorf("%w: nothing scheduled and nothing done by the tools up to the horizon (%d ms)", ErrStuck, k.HorizonMs)
				}
				continue
			}
			return fmt.Errorf("%w at %d ms", ErrStuck, ms(now))
		}
		t := tT
		kind := actTimer
		if okE && (!okT || ev.at.Before(tT) || (!ev.late && ev.at.Equal(tT))) {
			t, kind = ev.at, actEvent
			if ev.late {
				kind = actLate
			}
		}
		if t.Before(now) {
			t = now
		}
		if ms(t) > k.HorizonMs {
			if k.Following() {
				// The tools' own timers may still be due before the
				// horizon: let the bubble run to it first.
				horizon := Epoch.Add(time.Duration(k.HorizonMs+1) * time.Millisecond)
				if !k.waitBubble(k.bubbleAt(horizon, actEvent)) {
					continue
				}
			}
			return fmt.Errorf("%w: next event at %d ms, horizon %d ms", ErrHorizon, ms(t), k.HorizonMs)
		}
		if at := k.bubbleAt(t, kind); k.Following() && time.Now().Before(at) {
			// Let the bubble's clock run to t (the tools' timers due by then
			// fire on the way), or until something is scheduled; then look
			// again once what woke has settled.
			k.waitBubble(at)
			continue
		}
		if t.Equal(lastAt) {
			atInstant++
			if atInstant > k.StandstillLimit {
				return fmt.Errorf("%w: %d actions at %d ms", ErrStandstill, atInstant, ms(t))
			}
		} else {
			lastAt, atInstant = t, 0
		}
		if t.After(now) || k.Clock.unfiredBy(t) {
			// Firing wakes no goroutine (the timers fired are released one
			// at a time below), so no quiescence is needed after it.
			k.Clock.advance(t)
			k.nowMs.Store(ms(t))
		}
		// Sim events due now come before any timer due at the same instant;
		// late ones after every timer due by then.
		if ev, ok := k.peekEvent(); ok && !ev.at.After(t) {
			if g, ok := k.Clock.peekDue(); !ok || ev.at.Before(g.at) || (!ev.late && !g.at.Before(ev.at)) {
				k.popEvent()
				k.step.Add(1)
				ev.fn()
				continue
			}
		}
		if g := k.Clock.popDue(); g != nil {
			step := k.step.Add(1)
			if g.class == classTool {
				late := g.late.Milliseconds()
				k.wake.Lock()
				k.wake.step, k.wake.lateMs = step, late
				k.wake.Unlock()
				if late > 0 {
					k.Trace.Addf("clock", "tool timer fired %d ms late (due at %d ms)", late, ms(g.at.Add(-g.late)))
				}
			}
			g.deliver(k.Clock.Now())
		}
	}
}
