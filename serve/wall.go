package serve

import (
	"container/heap"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/waitsim/waitsim/sim"
)

// wallScheduler is sim.Scheduler on the wall clock: the bridge model of sim
// (contract §3) running in real time. Its origin is set by start (the first
// tool call); until then NowMs is 0 and nothing scheduled runs. One goroutine
// (loop) runs scheduled functions one at a time, in (time, order of
// scheduling), as the kernel does for sim events.
type wallScheduler struct {
	log io.Writer

	mu      sync.Mutex
	started bool
	origin  time.Time
	seq     uint64
	events  wallHeap
	wake    chan struct{}
}

var _ sim.Scheduler = (*wallScheduler)(nil)

func newWallScheduler(log io.Writer) *wallScheduler {
	return &wallScheduler{log: log, wake: make(chan struct{}, 1)}
}

type wallEvent struct {
	atMs int64
	seq  uint64
	fn   func()
}

type wallHeap []wallEvent

func (h wallHeap) Len() int { return len(h) }
func (h wallHeap) Less(i, j int) bool {
	if h[i].atMs != h[j].atMs {
		return h[i].atMs < h[j].atMs
	}
	return h[i].seq < h[j].seq
}
func (h wallHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *wallHeap) Push(x any)   { *h = append(*h, x.(wallEvent)) }
func (h *wallHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// start sets the origin to now, once; later calls do nothing.
func (s *wallScheduler) start() {
	s.mu.Lock()
	if !s.started {
		s.started, s.origin = true, time.Now()
	}
	s.mu.Unlock()
	s.poke()
}

func (s *wallScheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// NowMs implements sim.Scheduler: wall ms since the origin (0 before start).
func (s *wallScheduler) NowMs() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nowLocked()
}

func (s *wallScheduler) nowLocked() int64 {
	if !s.started {
		return 0
	}
	return time.Since(s.origin).Milliseconds()
}

// At implements sim.Scheduler.
func (s *wallScheduler) At(atMs int64, _ string, fn func()) {
	s.mu.Lock()
	if now := s.nowLocked(); atMs < now {
		atMs = now
	}
	s.seq++
	heap.Push(&s.events, wallEvent{atMs: atMs, seq: s.seq, fn: fn})
	s.mu.Unlock()
	s.poke()
}

// Soon implements sim.Scheduler.
func (s *wallScheduler) Soon(name string, fn func()) { s.At(s.NowMs(), name, fn) }

// Logf implements sim.Scheduler: one line on the log, "<ms> ms  <actor> <text>",
// in one Write.
func (s *wallScheduler) Logf(actor, format string, args ...any) {
	_, _ = io.WriteString(s.log, fmt.Sprintf("%9d ms  %-10s %s\n", s.NowMs(), actor, fmt.Sprintf(format, args...)))
}

// loop runs due events until stop is closed.
func (s *wallScheduler) loop(stop <-chan struct{}) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.mu.Lock()
		wait := time.Hour
		if s.started && len(s.events) > 0 {
			due := s.origin.Add(time.Duration(s.events[0].atMs) * time.Millisecond)
			if wait = time.Until(due); wait <= 0 {
				ev := heap.Pop(&s.events).(wallEvent)
				s.mu.Unlock()
				ev.fn()
				continue
			}
		}
		s.mu.Unlock()
		timer.Reset(wait)
		select {
		case <-stop:
			return
		case <-s.wake:
		case <-timer.C:
		}
	}
}
