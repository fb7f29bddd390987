package sim

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// Epoch is virtual time 0 of every world: the instant the mock clock starts at.
var Epoch = time.Unix(0, 0).UTC()

// Timer classes order timers due at the same virtual instant (the same-instant
// rule, see Kernel): sim events first, then tool timers, then caller timeouts,
// so a reply resolved at the instant of the caller's timeout is received.
const (
	classTool   = 1
	classCaller = 2
)

// gated is one timer handed out by Clock. The mock fires it (moves it to due);
// the kernel releases it, one at a time, in (at, class, seq) order.
type gated struct {
	at       time.Time
	class    int
	seq      uint64
	ch       chan time.Time // channel timers
	fn       func()         // AfterFunc timers
	fired    bool           // the mock has fired it
	released bool
	late     time.Duration // lateness given to a tool timer (TimerScript)
}

// Clock is the virtual clock the tool sees: a clock.Clock built on
// github.com/benbjohnson/clock's Mock. Timers it hands out are Mock timers,
// but their firing is gated: the kernel delivers them one by one, in
// (virtual time, class, creation order), after quiescence, so that the order of
// events at one instant never depends on the Go scheduler.
//
// Tickers are not supported (the tool does not use them): Ticker and Tick panic.
type Clock struct {
	mock *clock.Mock

	mu      sync.Mutex
	seq     uint64
	pending []*gated // handed out, not yet released nor known stopped

	// late gives the n-th tool timer (n from 1, in creation order) its
	// lateness; nil means every tool timer fires exactly on time.
	late    func(n uint64) time.Duration
	toolN   uint64
	maxLate time.Duration // the largest lateness given to a tool timer
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
func NewClock() *Clock {
	m := clock.NewMock()
	m.Set(Epoch)
	return &Clock{mock: m}
}

// Mock returns the underlying mock clock. Moving it by hand bypasses the kernel.
func (c *Clock) Mock() *clock.Mock { return c.mock }

// Now returns the current virtual time.
func (c *Clock) Now() time.Time { return c.mock.Now() }

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
	c.mu.Lock()
	c.seq++
	var late time.Duration
	if class == classTool && c.late != nil {
		c.toolN++
		late = max(c.late(c.toolN), 0)
		c.maxLate = max(c.maxLate, late)
		d += late
	}
	g := &gated{at: c.mock.Now().Add(d), class: class, seq: c.seq, fn: fn, late: late}
	if fn == nil {
		g.ch = make(chan time.Time, 1)
	}
	// A timer due now needs no trip through the mock: it is due at once (and
	// still released after the sim events of this instant).
	g.fired = d <= 0
	c.pending = append(c.pending, g)
	c.mu.Unlock()
	t := c.mock.AfterFunc(d, func() {
		c.mu.Lock()
		g.fired = true
		c.mu.Unlock()
	})
	if g.ch != nil {
		t.C = g.ch
	}
	return t
}

// Timer returns a timer that fires after d of virtual time.
func (c *Clock) Timer(d time.Duration) *clock.Timer { return c.newTimer(d, classTool, nil) }

// callerTimer is a timer of the caller class: released after every other
// timer due at the same instant.
func (c *Clock) callerTimer(d time.Duration) *clock.Timer { return c.newTimer(d, classCaller, nil) }

// After returns a channel that receives the virtual time after d.
func (c *Clock) After(d time.Duration) <-chan time.Time { return c.Timer(d).C }

// AfterFunc calls f in its own goroutine after d of virtual time.
func (c *Clock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	return c.newTimer(d, classTool, f)
}

// Sleep blocks for d of virtual time.
func (c *Clock) Sleep(d time.Duration) { <-c.After(d) }

// Tick is not supported; it panics.
func (c *Clock) Tick(time.Duration) <-chan time.Time { panic("sim.Clock: tickers are not supported") }

// Ticker is not supported; it panics.
func (c *Clock) Ticker(time.Duration) *clock.Ticker { panic("sim.Clock: tickers are not supported") }

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

// nextPending returns the earliest due time of a live timer.
func (c *Clock) nextPending() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best time.Time
	ok := false
	for _, g := range c.pending {
		if !ok || g.at.Before(best) {
			best, ok = g.at, true
		}
	}
	return best, ok
}

// unfiredBy reports whether a live timer due by t has not fired yet.
func (c *Clock) unfiredBy(t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, g := range c.pending {
		if !g.fired && !g.at.After(t) {
			return true
		}
	}
	return false
}

// advance moves the mock to t (t ≥ now), firing every timer due by then into
// the gate. The caller must reach quiescence afterwards.
func (c *Clock) advance(t time.Time) { c.mock.Set(t) }

// popDue removes and returns the first fired timer in (at, class, seq) order,
// dropping timers due by now that the mock did not fire (they were stopped).
func (c *Clock) popDue() *gated {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.mock.Now()
	live := c.pending[:0]
	var due []*gated
	for _, g := range c.pending {
		switch {
		case g.fired:
			due = append(due, g)
			live = append(live, g)
		case !g.at.After(now):
			// stopped before it fired: forget it
		default:
			live = append(live, g)
		}
	}
	c.pending = live
	if len(due) == 0 {
		return nil
	}
	sort.Slice(due, func(i, j int) bool {
		a, b := due[i], due[j]
		if !a.at.Equal(b.at) {
			return a.at.Before(b.at)
		}
		if a.class != b.class {
			return a.class < b.class
		}
		return a.seq < b.seq
	})
	g := due[0]
	for i, p := range c.pending {
		if p == g {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			break
		}
	}
	g.released = true
	return g
}

// hasDueAt reports the earliest (at, class) of a fired timer, if any.
func (c *Clock) peekDue() (*gated, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *gated
	for _, g := range c.pending {
		if !g.fired {
			continue
		}
		if best == nil || g.at.Before(best.at) || (g.at.Equal(best.at) && (g.class < best.class || (g.class == best.class && g.seq < best.seq))) {
			best = g
		}
	}
	return best, best != nil
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
