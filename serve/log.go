package serve

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// LogQueue is how many writes a Log holds for its writer before it drops new
// ones; LogBytes bounds the bytes they hold, and LogWriteMax one write's
// (the rest of a longer one is cut, and said so): a log line may quote what
// a client sent, up to a whole request, so a count alone did not bound it
// (4096 refused lines of 16 MiB each).
const (
	LogQueue    = 4096
	LogBytes    = 1 << 20
	LogWriteMax = 4 << 10
)

// Log is a writer that never blocks its callers: each Write is queued and a
// goroutine of its own copies the queue to the underlying writer. When the
// underlying writer stops taking bytes (a stderr pipe that nobody reads
// fills after about 64 KiB), the queue fills and further writes are dropped
// and counted, so the server goes on answering and still stops on SIGTERM.
type Log struct {
	mu      sync.Mutex
	closed  bool
	queue   chan []byte
	drained chan struct{}
	dropped int
	queued  int // bytes in the queue
	w       io.Writer
}

// NewLog starts a Log that writes to w.
func NewLog(w io.Writer) *Log {
	l := &Log{queue: make(chan []byte, LogQueue), drained: make(chan struct{}), w: w}
	go func() {
		defer close(l.drained)
		for p := range l.queue {
			l.mu.Lock()
			l.queued -= len(p)
			l.mu.Unlock()
			if _, err := l.w.Write(p); err != nil {
				// A writer that fails stays failed (a closed pipe): drop
				// the rest rather than retry.
				for range l.queue {
				}
				return
			}
		}
	}()
	return l
}

// Write queues a copy of p (its first LogWriteMax bytes, and a note of how
// many more there were) and returns len(p), nil at once; after Close, or
// when the queue is full (LogQueue writes or LogBytes bytes), p is dropped
// (and counted).
func (l *Log) Write(p []byte) (int, error) {
	n := len(p)
	q := append([]byte(nil), p[:min(len(p), LogWriteMax)]...)
	if len(p) > LogWriteMax {
		q = append(q, fmt.Sprintf("… (%d more bytes not logged)\n", len(p)-LogWriteMax)...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return n, nil
	}
	if l.queued+len(q) > LogBytes {
		l.dropped++
		return n, nil
	}
	select {
	case l.queue <- q:
		l.queued += len(q)
	default:
		l.dropped++
	}
	return n, nil
}

// Close queues a last line counting the dropped writes (if any), stops
// taking writes, and waits at most wait for the queue to reach the
// underlying writer. It reports whether it did.
func (l *Log) Close(wait time.Duration) bool {
	l.mu.Lock()
	if !l.closed {
		if l.dropped > 0 {
			select {
			case l.queue <- []byte(fmt.Sprintf("waitsim serve: %d log writes dropped (the log's reader was too slow)\n", l.dropped)):
			default:
			}
		}
		l.closed = true
		close(l.queue)
	}
	l.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-l.drained:
		return true
	case <-t.C:
		return false
	}
}
