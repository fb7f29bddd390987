package conformance

import "sync"

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
