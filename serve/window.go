package serve

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// replyWindow bounds the tools/call requests over stdio whose reply has not
// been written yet. guard's bound (Options.MaxCalls) ends when a handler
// returns, before the SDK writes its reply: a client that sent calls and
// never read stdout had every reply held in memory while more calls came
// in (1500 calls of a 2 MB reply each, stdout unread: 2.8 GB, then out of
// memory under a 4 GB limit). stdioLines takes a place for each tools/call
// before passing it on, waiting while max are taken, so that stdin is not
// read further; lockedWriter gives the place back once the reply is
// written, as does a notifications/cancelled for it (a cancelled request
// may get no reply). Places are keyed by the request id as the SDK decodes
// it (jsonrpc.ID.Raw), so a reply's id always finds its request's.
type replyWindow struct {
	mu      sync.Mutex
	cond    sync.Cond
	max     int
	n       int
	pending map[any]int
	closed  bool
}

func newReplyWindow(max int) *replyWindow {
	w := &replyWindow{max: max, pending: map[any]int{}}
	w.cond.L = &w.mu
	return w
}

// take waits for a place for the call with id, and takes it; false when
// the window was closed (stdout failed) first.
func (w *replyWindow) take(id any) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n >= w.max && !w.closed {
		windowFull()
	}
	for w.n >= w.max && !w.closed {
		w.cond.Wait()
	}
	if w.closed {
		return false
	}
	w.n++
	w.pending[id]++
	return true
}

// windowFull runs when a take starts to wait (a test learns there that
// the window is full).
var windowFull = func() {}

// done gives back the place of the call with id, if one is taken.
func (w *replyWindow) done(id any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending[id] == 0 {
		return
	}
	if w.pending[id]--; w.pending[id] == 0 {
		delete(w.pending, id)
	}
	w.n--
	w.cond.Broadcast()
}

// close wakes every take for good: nothing more can be written.
func (w *replyWindow) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cond.Broadcast()
}

// inFlight is how many places are taken.
func (w *replyWindow) inFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// inFlightID reports whether a tools/call with id has a place taken (its
// reply not written yet).
func (w *replyWindow) inFlightID(id any) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending[id] > 0
}

// read takes what a message read from stdin asks of the window: a place
// for a tools/call (false when the window is closed); a cancelled call's
// place back.
func (w *replyWindow) read(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return true
	}
	switch {
	case req.Method == "tools/call" && req.ID.IsValid():
		return w.take(req.ID.Raw())
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil && p.RequestID != nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				w.done(id.Raw())
			}
		}
	}
	return true
}

// written gives back the place of the call a message written to stdout
// answers.
func (w *replyWindow) written(p []byte) {
	if w.inFlight() == 0 {
		return
	}
	msg, err := jsonrpc.DecodeMessage(p)
	if err != nil {
		return
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		w.done(resp.ID.Raw())
	}
}
