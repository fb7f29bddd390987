package conformance

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Every client starts after the release, the i-th i × the stagger after it,
// and an ended context cuts the wait short.
func TestBarrierStagger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const n, stagger = 3, 150 * time.Millisecond
		var released time.Time
		bar := newBarrier(n, func() { released = time.Now() })
		started := make([]time.Duration, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(10*(n-i)) * time.Millisecond) // warm-ups of different lengths
				tk := &ticket{b: bar, ctx: ctx, offset: time.Duration(i) * stagger}
				tk.arrive()
				started[i] = time.Since(released)
			}()
		}
		wg.Wait()
		for i, d := range started {
			if want := time.Duration(i) * stagger; d != want {
				t.Errorf("client %d started %v after the release, want %v", i, d, want)
			}
		}

		bar = newBarrier(1, func() {})
		tk := &ticket{b: bar, ctx: ctx, offset: time.Hour}
		cancel()
		t0 := time.Now()
		tk.arrive()
		if d := time.Since(t0); d != 0 {
			t.Errorf("an ended context: the start waited %v, want none", d)
		}
	})
}
