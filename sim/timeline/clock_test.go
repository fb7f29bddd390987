package timeline

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
)

// TestClockGate pins the gated clock's rules: at one instant, sim events
// first, then tool timers in creation order, then caller timers; a timer
// stopped before virtual time reaches it never fires; one stopped after it
// fired (by an earlier release of the same instant) is still delivered, and
// its Stop reports false, as a real timer's does once it expired.
func TestClockGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := NewKernel(3600000) // an hour: the test ends at 2000 ms
		c := k.Clock
		var mu sync.Mutex
		var got []string
		rec := func(s string) {
			mu.Lock()
			got = append(got, fmt.Sprintf("%d %s", k.NowMs(), s))
			mu.Unlock()
		}
		ct := c.CallerTimer(time.Second)
		go func() { <-ct.C; rec("caller") }()
		c.AfterFunc(time.Second, func() { rec("tool A") })
		ch := c.Timer(time.Second)
		go func() { <-ch.C; rec("tool B") }()
		k.At(1000, "event", func() { rec("event") })
		stopped := c.AfterFunc(500*time.Millisecond, func() { rec("stopped") })
		if !stopped.Stop() {
			t.Error("Stop of a pending timer reported false")
		}
		var stopLate bool
		var s2 *clock.Timer
		c.AfterFunc(2*time.Second, func() { stopLate = s2.Stop(); rec("first at 2000") })
		s2 = c.AfterFunc(2*time.Second, func() { rec("second at 2000") })
		if err := k.Run(func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 6 }); err != nil {
			t.Fatal(err)
		}
		want := []string{"1000 event", "1000 tool A", "1000 tool B", "1000 caller", "2000 first at 2000", "2000 second at 2000"}
		if !slices.Equal(got, want) {
			t.Errorf("releases:\n got %q\nwant %q", got, want)
		}
		if stopLate {
			t.Error("Stop of a timer that fired reported true")
		}
	})
}
