package serve

import (
	"sync"
	"time"
)

// ProbeStepMs is the sleep of the stall probe, in ms.
const ProbeStepMs = 5

// StallPrefix opens the log line with which `waitsim serve --probe` reports
// at exit the largest stall its probe saw, e.g.
// "waitsim serve: largest stall 12.5 ms".
const StallPrefix = "waitsim serve: largest stall "

// Probe measures how late this process wakes a sleeping goroutine: every
// ProbeStepMs it sleeps and records by how much the wake overshot (a
// stall: the machine or the process did not run it). On a loaded machine
// stalls of hundreds of ms come and go, and every real timer of the tool
// suffers them; `make conformance` scales its tolerance by them.
type Probe struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	max  time.Duration
}

// StartProbe starts a probe.
func StartProbe() *Probe {
	p := &Probe{stop: make(chan struct{}), done: make(chan struct{})}
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

// Stop stops the probe and returns the largest stall it saw, in ms.
func (p *Probe) Stop() float64 {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return float64(p.max.Microseconds()) / 1000
}
