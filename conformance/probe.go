package conformance

import (
	"sync"
	"time"
)

// ProbeStepMs is the sleep of the stall probe, in ms.
const ProbeStepMs = 5

// probe measures how late this machine wakes a sleeping goroutine while a
// case runs: every ProbeStepMs it sleeps and records by how much the wake
// overshot. On a 2-core machine shared with other builds, stalls of hundreds
// of ms come and go; the tolerance of a case grows with the largest one seen
// while it ran (see Run), since a real call is delayed by them and the
// simulation cannot know them.
type probe struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	max  time.Duration
}

func startProbe() *probe {
	p := &probe{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		step := ProbeStepMs * time.Millisecond
		for {
			t := time.Now()
			select {
			case <-p.stop:
				return
			case <-time.After(step):
			}
			if late := time.Since(t) - step; late > 0 {
				p.mu.Lock()
				p.max = max(p.max, late)
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// end stops the probe and returns the largest lateness seen, in ms.
func (p *probe) end() float64 {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return float64(p.max.Microseconds()) / 1000
}

// barrier starts the clients of a case together: each connects and warms up,
// then arrives; when all have arrived (or left after a failure), onRelease
// runs and every arrived client starts its callers.
type barrier struct {
	wg      sync.WaitGroup
	release chan struct{}
}

func newBarrier(n int, onRelease func()) *barrier {
	b := &barrier{release: make(chan struct{})}
	b.wg.Add(n)
	go func() {
		b.wg.Wait()
		onRelease()
		close(b.release)
	}()
	return b
}

// ticket is one client's place at a barrier.
type ticket struct {
	b    *barrier
	once sync.Once
}

// arrive marks the client ready and waits for the release.
func (t *ticket) arrive() {
	t.once.Do(t.b.wg.Done)
	<-t.b.release
}

// leave gives up the place without waiting (a client that failed first).
func (t *ticket) leave() { t.once.Do(t.b.wg.Done) }
