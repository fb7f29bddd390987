package waittool

import (
	"time"

	"github.com/benbjohnson/clock"
)

// Machine measures the one delay of the machine that the tool's clock alone
// cannot tell from the bridge's time (contract §2 step 12): a delay that
// falls inside a read, after its goroutine began the bridge call and before
// the result was in hand. On a real clock such a delay is the Go runtime's
// or the kernel's (a read's goroutine blocked by a garbage collection that
// cannot finish while the process waits for a CPU, or descheduled), and an
// instant bridge then looks like one that took hundreds of ms.
//
// Options.Machine is nil on an exact clock (the simulation): nothing delays
// a read there, and the tool measures no such delay (ExactMachine). The
// real clock's Machine is package machine's (machine.Twin), kept out of this
// package so that the tool depends on nothing but its clock, its bridge and
// what it is given.
type Machine interface {
	// Read is called by a read's goroutine as it begins its bridge call,
	// at start on clk; the Meter measures the machine beside that read.
	Read(clk clock.Clock, start time.Time) Meter
}

// Meter measures the machine's delay beside one read (Machine.Read).
type Meter interface {
	// Bridge returns the bridge's share of d, the time from the read's
	// start to its result: d less the machine's delay measured meanwhile
	// (contract §2 step 2's cost and step 12's plan count only this).
	Bridge(d time.Duration) time.Duration
	// Race returns the timer the read is raced with, due at limit (now is
	// the instant the race starts): it fires at limit, or later by the
	// machine's delay measured beside the read (step 12), so that the
	// machine's delay never makes the read lose its race.
	Race(clk clock.Clock, limit, now time.Time) Race
}

// Race is the timer a read is raced with: C fires when the read has lost;
// Stop releases it.
type Race struct {
	C    <-chan time.Time
	Stop func() bool
}

// ExactMachine is the Machine of an exact clock, and of a tool given none:
// it measures no delay. A read's bridge time is all of its time, and its
// race timer is the clock's own timer, due at limit.
type ExactMachine struct{}

// Read returns the exact Meter.
func (ExactMachine) Read(clock.Clock, time.Time) Meter { return exactMeter{} }

type exactMeter struct{}

func (exactMeter) Bridge(d time.Duration) time.Duration { return d }

func (exactMeter) Race(clk clock.Clock, limit, now time.Time) Race {
	t := clk.Timer(limit.Sub(now))
	return Race{C: t.C, Stop: t.Stop}
}
