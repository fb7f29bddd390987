package serve

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProbeStepMs is the sleep of the stall probe, in ms.
const ProbeStepMs = 5

// ProbePrefix opens the log line with which `waitsim serve --probe`
// reports at exit what its probe measured, as one JSON object (a
// ProbeReport), e.g. `waitsim serve: probe {"largestStallMs":12.5,
// "firstCallUnixMs":1796218052789.997}`.
const ProbePrefix = "waitsim serve: probe "

// ProbeReport is what `waitsim serve --probe` measured, on its ProbePrefix
// line.
type ProbeReport struct {
	// LargestStallMs is the largest stall its probe saw since the first
	// tools/call request arrived (over the whole run when none did), in ms:
	// a stall before it, while the server and its client start, delays no
	// call but the first call's arrival, which `make conformance` measures
	// as its start lag.
	LargestStallMs float64 `json:"largestStallMs"`
	// FirstCallUnixMs is the wall-clock instant the first tools/call
	// request arrived, in Unix ms (0: none did). `make conformance`
	// compares it with its client's start to measure how late the first
	// call arrived.
	FirstCallUnixMs float64 `json:"firstCallUnixMs,omitempty"`
}

// firstCall notes when the first tools/call request reached server: the
// instant the SDK handed it to the receiving middleware.
type firstCall struct {
	mu sync.Mutex
	at time.Time
}

// watchFirstCall watches server's requests for the first tools/call, and
// calls onFirst then.
func watchFirstCall(server *mcp.Server, onFirst func()) *firstCall {
	f := &firstCall{}
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				f.mu.Lock()
				first := f.at.IsZero()
				if first {
					f.at = time.Now()
				}
				f.mu.Unlock()
				if first {
					onFirst()
				}
			}
			return next(ctx, method, req)
		}
	})
	return f
}

// unixMs is the first call's instant in Unix ms, ok false before any.
func (f *firstCall) unixMs() (ms float64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.at.IsZero() {
		return 0, false
	}
	return float64(f.at.UnixMicro()) / 1000, true
}

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

// restart forgets the stalls seen so far: one under way that the probe has
// not recorded yet still counts whole when it ends, one it has recorded is
// forgotten.
func (p *Probe) restart() {
	p.mu.Lock()
	p.max = 0
	p.mu.Unlock()
}

// Stop stops the probe and returns the largest stall it saw, in ms.
func (p *Probe) Stop() float64 {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return float64(p.max.Microseconds()) / 1000
}
