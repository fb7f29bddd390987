package conformance

import (
	"context"
	"sync"
	"time"
)

// barrier starts the clients of a batch: each connects and warms up, then
// arrives; when all have arrived (or left after a failure), onRelease runs
// and every arrived client starts its callers, each after its ticket's
// offset (Options.StaggerMs apart).
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

// ticket is one client's place at a barrier: it starts offset after the
// release (or at once when ctx ends first).
type ticket struct {
	b      *barrier
	ctx    context.Context
	offset time.Duration
	once   sync.Once
}

// arrive marks the client ready and waits for the release and its offset.
func (t *ticket) arrive() {
	t.once.Do(t.b.wg.Done)
	<-t.b.release
	if t.offset <= 0 {
		return
	}
	tm := time.NewTimer(t.offset)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-t.ctx.Done():
	}
}

// leave gives up the place without waiting (a client that failed first).
func (t *ticket) leave() { t.once.Do(t.b.wg.Done) }
