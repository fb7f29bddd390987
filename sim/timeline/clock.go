package timeline

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// Epoch is virtual time 0 of every world: the instant the clock starts at.
var Epoch = time.Unix(0, 0).UTC()

// Timer classes order timers due at the same virtual instant (the same-instant
// rule, see Kernel): sim events first, then tool timers, then caller timeouts,
// so a reply resolved at the instant of the caller's timeout is received.
const (
	classTool   = 1
	classCaller = 2
)

// gated is one timer handed out by Clock. The clock fires it (moves it from
// waiting to due) when virtual time reaches it; the kernel releases it, one at
// a time, in (at, class, seq) order.
type gated struct {
	at       time.Time
	class    int
	seq      uint64
	ch       chan time.Time // channel timers
	fn       func()         // AfterFunc timers
	handle   *clock.Timer   // what the owner holds: its Stop before the firing cancels the timer
	fired    bool           // virtual time reached it before it was stopped
	released bool
	late     time.Duration // lateness given to a tool timer (TimerScript)
}

// before is the release order: (virtual time, class, creation order).
func (g *gated) before(o *gated) bool {
	if !g.at.Equal(o.at) {
		return g.at.Before(o.at)
	}
	if g.class != o.class {
		return g.class < o.class
	}
	return g.seq < o.seq
}

// timerHeap is a min-heap of timers in release order.
type timerHeap []*gated

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].before(h[j]) }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(*gated)) }
func (h *timerHeap) Pop() any {
	old := *h
	g := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return g
}

// Clock is the virtual clock the tool sees: a clock.Clock whose timers are
// gated. Virtual time moves only when the kernel advances it; a timer due by
// then fires (unless its owner stopped it first), and the kernel delivers the
// fired timers one by one, in (virtual time, class, creation order), after
// quiescence, so that the order of events at one instant never depends on the
// Go scheduler.
//
// The *clock.Timer a caller gets is a github.com/benbjohnson/clock Mock timer
// of its own (one Mock per timer, never moved), so that its Stop works as the
// clock.Clock interface promises: a timer stopped before virtual time reaches
// it never fires; one stopped after it fired but before the kernel released
// it is still delivered (Stop then reports false). Reset is not supported (it
// would not move the gated time), nor are tickers: Ticker and Tick panic.
//
// Cost: O(log n) per timer created, fired or released (n live timers), with
// no goroutine and no scheduler round trip per firing.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	seq     uint64
	waiting timerHeap // handed out, not fired yet (possibly stopped: known when time reaches them)
	due     timerHeap // fired, not yet released

	// late gives the n-th tool timer (n from 1, in creation order) its
	// lateness; nil means every tool timer fires exactly on time.
	late    func(n uint64) time.Duration
	toolN   uint64
	maxLate time.Duration // the largest lateness given to a tool timer

	// bubble0, when not zero, is the bubble's clock at virtual time 0: the
	// clock follows the bubble's (a world's ClockBubble), reading virtual
	// now as the bubble's time since bubble0 in whole ms.
	bubble0 time.Time
	onTimer func()
}

// MaxLate is the largest lateness given to any tool timer so far, whether it
// fired or was stopped: a stopped race timer's lateness still decided which
// result was in time.
func (c *Clock) MaxLate() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxLate
}

var _ clock.Clock = (*Clock)(nil)

// NewClock returns a Clock at Epoch.
func NewClock() *Clock { return &Clock{now: Epoch} }

// Now returns the current virtual time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() time.Time {
	if !c.bubble0.IsZero() {
		return Epoch.Add(time.Since(c.bubble0).Truncate(time.Millisecond))
	}
	return c.now
}

// onTimer, when set, is called (without the lock) each time a timer is
// created: the kernel wakes to consider it (FollowBubble).
func (c *Clock) setOnTimer(fn func()) {
	c.mu.Lock()
	c.onTimer = fn
	c.mu.Unlock()
}

// Since returns the virtual time elapsed since t.
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Until returns the virtual time until t.
func (c *Clock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// ms returns virtual time t in ms since Epoch.
func ms(t time.Time) int64 { return t.Sub(Epoch).Milliseconds() }

// NowMs returns the current virtual time in ms since Epoch.
func (c *Clock) NowMs() int64 { return ms(c.Now()) }

// SetLateness makes the tool's timers fire late (contract §2 step 12): the
// n-th timer the tool creates (n from 1, in creation order, which the kernel's
// one-chain-per-step order makes deterministic) fires late(n) after its due
// time. Caller timers and sim events stay exact. Call it before the world runs.
func (c *Clock) SetLateness(late func(n uint64) time.Duration) {
	c.mu.Lock()
	c.late = late
	c.mu.Unlock()
}

func (c *Clock) newTimer(d time.Duration, class int, fn func()) *clock.Timer {
	// The handle: a Mock timer that is never fired by its Mock; only its
	// stopped state is used (see fire).
	t := clock.NewMock().AfterFunc(d, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	var late time.Duration
	if class == classTool && c.late != nil {
		c.toolN++
		late = max(c.late(c.toolN), 0)
		c.maxLate = max(c.maxLate, late)
		d += late
	}
	g := &gated{at: c.nowLocked().Add(d), class: class, seq: c.seq, fn: fn, late: late, handle: t}
	if c.onTimer != nil {
		defer c.onTimer()
	}
	if fn == nil {
		g.ch = make(chan time.Time, 1)
		t.C = g.ch
	}
	if d <= 0 {
		// A timer due now is due at once, whatever its owner does next (and
		// still released after the sim events of this instant).
		g.fired = true
		heap.Push(&c.due, g)
	} else {
		heap.Push(&c.waiting, g)
	}
	return t
}

// Timer returns a timer that fires after d of virtual time.
func (c *Clock) Timer(d time.Duration) *clock.Timer { return c.newTimer(d, classTool, nil) }

// CallerTimer is a timer of the caller class: released after every other
// timer due at the same instant.
func (c *Clock) CallerTimer(d time.Duration) *clock.Timer { return c.newTimer(d, classCaller, nil) }

// After returns a channel that receives the virtual time after d.
func (c *Clock) After(d time.Duration) <-chan time.Time { return c.Timer(d).C }

// AfterFunc calls f in its own goroutine after d of virtual time.
func (c *Clock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	return c.newTimer(d, classTool, f)
}

// Sleep blocks for d of virtual time.
func (c *Clock) Sleep(d time.Duration) { <-c.After(d) }

// Tick is not supported; it panics.
func (c *Clock) Tick(time.Duration) <-chan time.Time {
	panic("timeline.Clock: tickers are not supported")
}

// Ticker is not supported; it panics.
func (c *Clock) Ticker(time.Duration) *clock.Ticker {
	panic("timeline.Clock: tickers are not supported")
}

// WithDeadline returns a context cancelled at virtual time d.
func (c *Clock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	t := c.AfterFunc(c.Until(d), func() { cancel(context.DeadlineExceeded) })
	return ctx, func() { t.Stop(); cancel(context.Canceled) }
}

// WithTimeout returns a context cancelled after d of virtual time.
func (c *Clock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return c.WithDeadline(parent, c.Now().Add(d))
}

// nextPending returns the earliest due time of a timer not yet released
// (one stopped but not yet reached by virtual time included).
func (c *Clock) nextPending() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case len(c.waiting) == 0 && len(c.due) == 0:
		return time.Time{}, false
	case len(c.waiting) == 0:
		return c.due[0].at, true
	case len(c.due) == 0 || c.waiting[0].at.Before(c.due[0].at):
		return c.waiting[0].at, true
	default:
		return c.due[0].at, true
	}
}

// unfiredBy reports whether a timer due by t has not fired yet.
func (c *Clock) unfiredBy(t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiting) > 0 && !c.waiting[0].at.After(t)
}

// advance moves virtual time to t (t ≥ now) and fires every timer due by
// then that its owner has not stopped; a stopped one is forgotten. Firing
// wakes nobody: the kernel releases fired timers one at a time (popDue).
func (c *Clock) advance(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	for len(c.waiting) > 0 && !c.waiting[0].at.After(t) {
		g := heap.Pop(&c.waiting).(*gated)
		// Stop reports whether the owner had not stopped it: from now on the
		// owner's Stop reports false, as for a timer that fired.
		if g.handle.Stop() {
			g.fired = true
			heap.Push(&c.due, g)
		}
	}
}

// popDue removes and returns the first fired timer in (at, class, seq) order,
// or nil.
func (c *Clock) popDue() *gated {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.due) == 0 {
		return nil
	}
	g := heap.Pop(&c.due).(*gated)
	g.released = true
	return g
}

// peekDue returns the first fired timer in (at, class, seq) order, if any.
func (c *Clock) peekDue() (*gated, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.due) == 0 {
		return nil, false
	}
	return c.due[0], true
}

// deliver hands a released timer to its owner.
func (g *gated) deliver(now time.Time) {
	if g.fn != nil {
		go g.fn()
		return
	}
	select {
	case g.ch <- now:
	default:
	}
}
