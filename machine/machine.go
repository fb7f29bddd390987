package machine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/waitsim/waitsim/waittool"
)

// Twin returns the Machine that measures each read with a twin.
func Twin() waittool.Machine { return twin{work: emptyRead} }

// twin's work is what its twin goroutines do: emptyRead, or in this
// package's tests a stand-in that the virtual clock can delay.
type twin struct{ work func(start time.Time) }

// sink keeps the twin's allocation from being optimised away.
var sink atomic.Pointer[[4]uintptr]

// emptyRead does what an instant read does: one small allocation.
func emptyRead(time.Time) { sink.Store(new([4]uintptr)) }

// Read starts the twin of a read that begins at start.
func (tw twin) Read(clk clock.Clock, start time.Time) waittool.Meter {
	m := &meter{start: start, ran: make(chan struct{})}
	go func() {
		tw.work(start)
		m.at = clk.Now()
		close(m.ran)
	}()
	return m
}

// meter is one read's twin: ran is closed once it has run, at at.
type meter struct {
	start time.Time
	at    time.Time
	ran   chan struct{}
}

// delay is the machine's delay beside the read from its start to end: the
// twin's time once it has run by end, else all of it.
func (m *meter) delay(end time.Time) time.Duration {
	select {
	case <-m.ran:
		if m.at.Before(end) {
			return m.at.Sub(m.start)
		}
	default:
	}
	return end.Sub(m.start)
}

// Bridge is d less the machine's delay beside the read meanwhile.
func (m *meter) Bridge(d time.Duration) time.Duration {
	return max(d-m.delay(m.start.Add(d)), 0)
}

// Race fires at limit if the twin has run by then, else once it has, and
// then not before limit plus the twin's time.
func (m *meter) Race(clk clock.Clock, limit, now time.Time) waittool.Race {
	c := make(chan time.Time, 1)
	stop := make(chan struct{})
	t := clk.Timer(limit.Sub(now))
	go func() {
		select {
		case <-t.C:
		case <-stop:
			return
		}
		select {
		case <-m.ran:
		case <-stop:
			return
		}
		if due := limit.Add(m.at.Sub(m.start)); due.After(clk.Now()) {
			t2 := clk.Timer(due.Sub(clk.Now()))
			defer t2.Stop()
			select {
			case <-t2.C:
			case <-stop:
				return
			}
		}
		c <- clk.Now()
	}()
	var once sync.Once
	return waittool.Race{C: c, Stop: func() bool {
		once.Do(func() { close(stop) })
		return t.Stop()
	}}
}
