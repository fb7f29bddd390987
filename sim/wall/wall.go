package wall

import (
	"container/heap"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/waitsim/waitsim/sim/timeline"
)

// Scheduler is timeline.Scheduler on the wall clock: a world's services (a
// pack's bridge model) running in real time for real clients (`waitsim
// serve`); nothing of it is virtual. Its origin is set by
// SetOrigin (a server calls it at the first tool call); until then NowMs is
// 0 and nothing scheduled runs. One goroutine runs scheduled functions one
// at a time, in (time, order of scheduling), as the kernel does for sim
// events, until Stop.
type Scheduler struct {
	log io.Writer

	mu      sync.Mutex
	started bool
	origin  time.Time
	seq     uint64
	events  eventHeap
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	stopped sync.Once
}

var _ timeline.Scheduler = (*Scheduler)(nil)

// New starts a wall-clock scheduler whose Logf writes one line
// per call to log.
func New(log io.Writer) *Scheduler {
	s := &Scheduler{log: log, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

type event struct {
	atMs int64
	seq  uint64
	fn   func()
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].atMs != h[j].atMs {
		return h[i].atMs < h[j].atMs
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// SetOrigin sets the origin (time 0) to now, once; later calls do nothing.
func (s *Scheduler) SetOrigin() {
	s.mu.Lock()
	if !s.started {
		s.started, s.origin = true, time.Now()
	}
	s.mu.Unlock()
	s.poke()
}

// Stop ends the scheduler's goroutine and waits for it (a function running
// then finishes first); what is still scheduled never runs. Later calls do
// nothing.
func (s *Scheduler) Stop() {
	s.stopped.Do(func() { close(s.stop) })
	<-s.done
}

func (s *Scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// NowMs implements timeline.Scheduler: wall ms since the origin (0 before SetOrigin).
func (s *Scheduler) NowMs() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nowLocked()
}

func (s *Scheduler) nowLocked() int64 {
	if !s.started {
		return 0
	}
	return time.Since(s.origin).Milliseconds()
}

// At implements timeline.Scheduler.
func (s *Scheduler) At(atMs int64, _ string, fn func()) {
	s.mu.Lock()
	if now := s.nowLocked(); atMs < now {
		atMs = now
	}
	s.seq++
	heap.Push(&s.events, event{atMs: atMs, seq: s.seq, fn: fn})
	s.mu.Unlock()
	s.poke()
}

// Soon implements timeline.Scheduler.
func (s *Scheduler) Soon(name string, fn func()) { s.At(s.NowMs(), name, fn) }

// Logf implements timeline.Scheduler: one line on the log, "<ms> ms  <actor> <text>",
// in one Write.
func (s *Scheduler) Logf(actor, format string, args ...any) {
	_, _ = io.WriteString(s.log, fmt.Sprintf("%9d ms  %-10s %s\n", s.NowMs(), actor, fmt.Sprintf(format, args...)))
}

// loop runs due events until Stop.
func (s *Scheduler) loop() {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.mu.Lock()
		wait := time.Hour
		if s.started && len(s.events) > 0 {
			due := s.origin.Add(time.Duration(s.events[0].atMs) * time.Millisecond)
			if wait = time.Until(due); wait <= 0 {
				ev := heap.Pop(&s.events).(event)
				s.mu.Unlock()
				ev.fn()
				select {
				case <-s.stop:
					return
				default:
				}
				continue
			}
		}
		s.mu.Unlock()
		timer.Reset(wait)
		select {
		case <-s.stop:
			return
		case <-s.wake:
		case <-timer.C:
		}
	}
}
