package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/sim/timeline"
)

// TransportMode is how a caller reaches the tool (contract §6).
type TransportMode string

// Transport modes. memory is the SDK's in-memory transport; the others are the
// SDK's streamable HTTP handler (mcp.NewStreamableHTTPHandler) and its client
// transport (mcp.StreamableClientTransport) over httptest's in-memory network,
// inside the world's bubble.
const (
	ModeMemory        TransportMode = "memory"         // mcp.NewInMemoryTransports (the default)
	ModeSSE           TransportMode = "sse"            // streamable HTTP, responses as SSE streams, stateful
	ModeJSON          TransportMode = "json"           // streamable HTTP, JSONResponse, stateful
	ModeStatelessSSE  TransportMode = "stateless-sse"  // streamable HTTP, SSE, Stateless
	ModeStatelessJSON TransportMode = "stateless-json" // streamable HTTP, JSONResponse, Stateless
)

// Modes lists every transport mode, memory first.
var Modes = []TransportMode{ModeMemory, ModeSSE, ModeJSON, ModeStatelessSSE, ModeStatelessJSON}

// Protocol versions a caller may ask for (contract §6). "" is the SDK's
// default (2026-07-28 for go-sdk v1.8.0).
const (
	Protocol20251125 = "2025-11-25" // streams resumable through an EventStore
	Protocol20260728 = "2026-07-28" // no resumption (SEP-2575): a dropped stream loses the request
)

// ResumeDelayMs is the SSE "retry" the wire announces on every SSE response:
// a client resumes a cut stream this long after the cut. (The SDK's own delay
// is 1 s plus random jitter; the server's retry field replaces it, which keeps
// a resumption on one virtual instant.)
const ResumeDelayMs = 1000

// TransportSpec is the transport between a caller and the tool and what sits
// between them (contract §6). Times in virtual ms; 0 means "none" for each
// timeout.
type TransportSpec struct {
	// Mode: memory (default), sse, json, stateless-sse or stateless-json.
	Mode TransportMode `json:"mode,omitempty"`
	// Protocol is the version the caller asks for: "" (the SDK's default,
	// 2026-07-28), 2025-11-25 or 2026-07-28.
	Protocol string `json:"protocol,omitempty"`
	// EventStore gives the handler an mcp.MemoryEventStore: an SSE stream cut
	// under 2025-11-25 is resumed by the client (Last-Event-ID).
	EventStore bool `json:"eventStore,omitempty"`
	// IdleTimeoutMs is a reverse proxy's idle timeout: a response from which
	// no byte came for this long is cut (before its headers: the proxy answers
	// 504). Bytes count when the server flushes them.
	IdleTimeoutMs int64 `json:"idleTimeoutMs,omitempty"`
	// WriteTimeoutMs is the server's http.Server.WriteTimeout: a write at or
	// after the request's arrival plus this fails and the connection closes
	// (the deadline is met by the next write, as in net/http).
	WriteTimeoutMs int64 `json:"writeTimeoutMs,omitempty"`
	// DropAtMs are instants at which the caller's connections drop: every
	// open response is cut.
	DropAtMs []int64 `json:"dropAtMs,omitempty"`
}

// HTTP reports whether the spec uses streamable HTTP (any mode but memory).
func (t *TransportSpec) HTTP() bool {
	return t != nil && t.Mode != "" && t.Mode != ModeMemory
}

// Validate returns an error naming the first bad field, or nil.
func (t *TransportSpec) Validate() error {
	if t == nil {
		return nil
	}
	if t.Mode != "" && !slices.Contains(Modes, t.Mode) {
		return fmt.Errorf("mode: want one of memory, sse, json, stateless-sse, stateless-json; got %q", t.Mode)
	}
	switch t.Protocol {
	case "", Protocol20251125, Protocol20260728:
	default:
		return fmt.Errorf("protocol: want %s or %s; got %q", Protocol20251125, Protocol20260728, t.Protocol)
	}
	if t.IdleTimeoutMs < 0 || t.WriteTimeoutMs < 0 {
		return errors.New("idleTimeoutMs, writeTimeoutMs: must be ≥ 0 ms (0: none)")
	}
	for _, d := range t.DropAtMs {
		if d < 0 {
			return errors.New("dropAtMs: instants must be ≥ 0 ms")
		}
	}
	if !t.HTTP() && (t.Protocol != "" || t.EventStore || t.IdleTimeoutMs != 0 || t.WriteTimeoutMs != 0 || len(t.DropAtMs) > 0) {
		return errors.New("mode: protocol, eventStore, idleTimeoutMs, writeTimeoutMs and dropAtMs need an HTTP mode (not memory)")
	}
	return nil
}

// Label is a short text for the spec: "memory", or e.g. "sse proxy=60000".
func (t *TransportSpec) Label() string {
	if !t.HTTP() {
		return string(ModeMemory)
	}
	parts := []string{string(t.Mode)}
	if t.Protocol != "" {
		parts = append(parts, "protocol="+t.Protocol)
	}
	if t.EventStore {
		parts = append(parts, "eventStore")
	}
	if t.IdleTimeoutMs > 0 {
		parts = append(parts, fmt.Sprintf("idle=%d", t.IdleTimeoutMs))
	}
	if t.WriteTimeoutMs > 0 {
		parts = append(parts, fmt.Sprintf("write=%d", t.WriteTimeoutMs))
	}
	for _, d := range t.DropAtMs {
		parts = append(parts, fmt.Sprintf("drop@%d", d))
	}
	return strings.Join(parts, " ")
}

// wireEvent names the kernel events of wireAt.
const wireEvent = "wire"

// callerHeader carries the caller's name from the wire to the server, so a
// session (stateless: one per request) is attributed to its caller.
const callerHeader = "X-Waitsim-Caller"

// wire is one caller's HTTP path to the tool: a relay in front of the SDK's
// handler that is also the proxy, the server's write deadline and the
// connection drops, all on the kernel's timeline. It records every byte the
// server flushes on a tool call's stream.
type wire struct {
	k     *timeline.Kernel
	wr    *worldRun
	name  string
	spec  TransportSpec
	inner http.Handler
	srv   *httptest.Server

	// deletes counts the DELETE handlers running beside the wire: the
	// world waits for them as it ends (a tool that ignores its context
	// sleeps on, and the session's close waits for it).
	deletes sync.WaitGroup

	mu      sync.Mutex
	n       int
	open    map[int]*wstream
	callCut cutLoss // the cut of the latest tool call's stream (why "" if none)
	held    []*wstream
	cuts    int // responses cut so far
	// gapFrom is when the call's resumable SSE stream was cut and not yet
	// resumed (-1: none); delay sums such gaps since the caller's call began.
	gapFrom int64
	delay   int64
	// resumeAt is the earliest instant (virtual ms) at which the client's
	// next resumption of the call's stream reaches the server, listenAt the
	// same for its standalone stream: the SDK's client waits on the bubble's
	// clock, which may stand behind virtual time, so its request is held
	// until then (-1: no hold). resumeFails counts the resumptions in a row
	// that failed before their response began.
	resumeAt, listenAt int64
	resumeFails        int
	maxRetries         int // the client's MaxRetries (maxRetries)
}

// The go-sdk v1.8.0 client's retries of a resumption whose request failed
// before its response began (the connection closed under it): attempt n
// (n = 2..MaxRetries) waits min(1000·1.5^(n−1), 30000) ms plus a random draw
// below that, then it gives the session up. The same MaxRetries bounds the
// reopenings of a stream cut again and again with no new event (the
// standalone stream behind an idle proxy).
const (
	goMaxRetries     = 5     // StreamableClientTransport.MaxRetries' default
	resumeBackoffMs  = 1000  // the first delay, grown 1.5× by each attempt
	resumeMaxDelayMs = 30000 // the SDK's reconnectMaxDelay
	// reopenMaxRetries is the Go client's MaxRetries for a caller whose
	// real client never gives its session up over a cut stream (the
	// TypeScript SDK 1.32.2 reopens its standalone stream after every cut:
	// its count of attempts starts again with each stream that opens; the
	// Python client the same): the Go client then reopens it as often.
	reopenMaxRetries = 1 << 20
)

// maxRetries is the Go client's MaxRetries for a caller of client kind k.
func maxRetries(k ClientKind) int {
	if k == ClientGo {
		return goMaxRetries
	}
	return reopenMaxRetries
}

// resumeRetryMs is the end of the window in which the client sends a
// resumption again after fails attempts in a row failed before their
// response began: attempt fails+1 waits min(1000·1.5^fails, 30000) ms plus
// a random draw below that. The world takes the latest instant the draw
// allows (3000 ms after the first failure), so a run does not depend on
// the draw.
func resumeRetryMs(fails int) int64 {
	d := float64(resumeBackoffMs)
	for range fails {
		d = min(d*1.5, resumeMaxDelayMs)
	}
	return int64(2 * d)
}

// abandon is the caller giving its call up (its request timeout): from this
// step on, nothing the server sends on the call's streams reaches it. It runs
// in the timeout's chain, before the client tears its request down, so what
// the server still writes there never races that teardown.
func (w *wire) abandon() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.open {
		if s.kind == kindCall || s.kind == kindResume {
			s.abandoned = true
		}
	}
}

// startCall resets the wire's account of the caller's new call.
func (w *wire) startCall() {
	w.mu.Lock()
	w.delay, w.gapFrom, w.resumeAt, w.resumeFails = 0, -1, -1, 0
	w.mu.Unlock()
}

// wireDelay is how long, in virtual ms, the call's stream was cut before a
// resumption picked it up: a reply built in such a gap reaches the caller
// at the resumption, up to this much later than it was sent.
func (w *wire) wireDelay() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.delay
}

// releaseHeld lets the held requests go on, each in a step of its own, in a
// fixed order.
func (w *wire) releaseHeld() {
	w.mu.Lock()
	var held []*wstream
	now := w.k.NowMs()
	w.held = slices.DeleteFunc(w.held, func(s *wstream) bool {
		if s.holdUntil > now {
			return false // the client's delay has not run out in virtual time
		}
		held = append(held, s)
		return true
	})
	w.mu.Unlock()
	sortStreams(held)
	for _, s := range held {
		w.k.Soon("wire "+w.name, func() {
			w.mu.Lock()
			now := w.k.NowMs()
			s.openedMs, s.lastMs = now, now
			if s.callResume && w.gapFrom >= 0 {
				w.delay += now - w.gapFrom
				w.gapFrom = -1
			}
			w.mu.Unlock()
			w.logf(s, "%s: request sent", s.label)
			w.armIdle(s)
			close(s.release)
		})
	}
}

// cutSoon cuts s in a step of its own, logging note first (if not "").
func (w *wire) cutSoon(s *wstream, why, note string) {
	w.k.Soon("cut "+w.name, func() {
		if note != "" {
			w.logf(s, "%s: %s", s.label, note)
		}
		select {
		case s.cut <- why:
		default:
		}
	})
}

// Stream kinds.
const (
	kindCall   = "call"   // POST carrying tools/call
	kindPost   = "post"   // any other POST
	kindListen = "listen" // the standalone GET stream
	kindResume = "resume" // a GET resuming a stream (Last-Event-ID)
	kindOther  = "other"  // DELETE and the rest
)

// wstream is one HTTP response in flight through the wire.
type wstream struct {
	id        int
	kind      string
	label     string
	openedMs  int64
	lastMs    int64 // virtual ms of the last byte (or the request)
	bytes     int64
	header    bool // headers forwarded
	sse       bool
	eventID   bool // an SSE event with an id was forwarded (the client can resume)
	cutSent   bool // a cut was sent
	abandoned bool // the caller gave the call up: nothing more is forwarded
	// callResume: a resumption of a tool call's stream (its Last-Event-ID
	// names a stream other than the standalone one, whose ids start "_").
	callResume bool
	holdUntil  int64         // a held request goes on no earlier than this (virtual ms)
	release    chan struct{} // a held request goes on when closed
	cut        chan string
}

// actor is the trace actor of a stream: the tool call's stream on the main
// lane, the others on their own side lanes (they run beside the causal chain).
func (w *wire) actor(s *wstream) string {
	if s.kind == kindCall {
		return "wire:" + w.name
	}
	return "wire:" + w.name + "/" + s.kind
}

func (w *wire) logf(s *wstream, format string, args ...any) {
	switch s.kind {
	case kindCall:
		w.k.Trace.Addf(w.actor(s), format, args...)
	case kindListen, kindResume:
		w.k.Trace.SideAddf(w.actor(s), format, args...)
	}
}

// lostBy tells why a call that failed with err was lost to the transport:
// its own response was cut (and whether after its headers), or the client
// gave up its session after cuts of other responses (e.g. the standalone
// stream, cut again and again by an idle proxy). Its why is "" when the wire
// cut nothing.
func (w *wire) lostBy(err error) cutLoss {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.callCut
	w.callCut = cutLoss{}
	if c.why == "" && w.cuts > 0 {
		c = cutLoss{why: LostBySession + err.Error()}
	}
	return c
}

// frame is what the inner handler flushed: headers (status ≠ 0), data, or
// both; ack is closed once the wire forwarded it (or dropped it).
type frame struct {
	status int
	header http.Header
	data   []byte
	final  bool
	ack    chan error
}

// relayWriter is the ResponseWriter the SDK's handler writes to. Bytes leave
// on Flush (and when the handler returns), as with net/http's buffered
// response writer.
type relayWriter struct {
	h       http.Header
	status  int
	sent    bool // headers handed to the wire
	buf     bytes.Buffer
	frames  chan frame
	gone    chan struct{}
	goneErr error
}

func (rw *relayWriter) Header() http.Header { return rw.h }

func (rw *relayWriter) WriteHeader(code int) {
	if rw.status == 0 && !rw.sent {
		rw.status = code
	}
}

func (rw *relayWriter) Write(p []byte) (int, error) {
	select {
	case <-rw.gone:
		return 0, rw.goneErr
	default:
	}
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	return rw.buf.Write(p)
}

func (rw *relayWriter) FlushError() error { return rw.flush(false) }
func (rw *relayWriter) Flush()            { _ = rw.flush(false) }

func (rw *relayWriter) flush(final bool) error {
	if rw.status == 0 && !final {
		rw.status = http.StatusOK
	}
	f := frame{data: bytes.Clone(rw.buf.Bytes()), final: final, ack: make(chan error, 1)}
	rw.buf.Reset()
	if !rw.sent && rw.status != 0 {
		f.status, f.header, rw.sent = rw.status, rw.h.Clone(), true
	}
	if f.status == 0 && len(f.data) == 0 && !final {
		return nil
	}
	select {
	case rw.frames <- f:
	case <-rw.gone:
		return rw.goneErr
	}
	select {
	case err := <-f.ack:
		return err
	case <-rw.gone:
		return rw.goneErr
	}
}

// errWire is what the SDK's handler sees when the wire went away under it.
var errWire = errors.New("wire: connection closed")

// ServeHTTP relays one request to the SDK's handler and its response back,
// cutting it when the proxy, the write deadline or a drop says so.
func (w *wire) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.Header.Set(callerHeader, w.name)
	if r.Method == http.MethodDelete {
		// The SDK's client sends DELETE while holding a mutex (when its
		// connection fails), and the handler's DELETE waits for the session's
		// tool calls to end, which wait on virtual time: a goroutine blocked
		// on a mutex would keep the kernel from ever reaching quiescence. So
		// the wire answers at once and the handler closes the session beside.
		r2 := r.Clone(context.WithoutCancel(r.Context()))
		r2.Body = io.NopCloser(bytes.NewReader(body))
		w.deletes.Add(1)
		go func() {
			defer w.deletes.Done()
			w.inner.ServeHTTP(httptest.NewRecorder(), r2)
		}()
		rw.WriteHeader(http.StatusNoContent)
		return
	}
	s := w.openStream(r, body)
	defer w.closeStream(s)
	if s.release != nil {
		// A stream the client reopens on the bubble's clock (a resumption,
		// the standalone stream again): held until a step of its own.
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		case <-w.wr.ctx.Done():
			return
		}
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	inner := &relayWriter{h: http.Header{}, frames: make(chan frame), gone: make(chan struct{}), goneErr: errWire}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.inner.ServeHTTP(inner, r.WithContext(ctx))
		_ = inner.flush(true)
	}()
	dead := false // the write deadline passed: nothing more is forwarded
	abort := func() {
		close(inner.gone)
		cancel()
		panic(http.ErrAbortHandler) // net/http closes the connection
	}
	for {
		select {
		case f := <-inner.frames:
			now := w.k.NowMs()
			w.mu.Lock()
			gone := s.abandoned
			w.mu.Unlock()
			if dead || gone {
				f.ack <- errWire
				continue
			}
			if wt := w.spec.WriteTimeoutMs; wt > 0 && now >= s.openedMs+wt && (f.status != 0 || len(f.data) > 0) {
				// The write fails in the tool's chain; the connection closes
				// in a step of its own (what the client does then runs beside
				// nothing else). That step is queued before the write's
				// failure is handed back: the tool's chain goes on at once
				// (a list it issues may queue its completion at this very
				// instant), and a step queued after the hand-back would race
				// with it for its place in the queue (a golden trace of
				// transport-write-timeout.yaml differed in 2 of 450 runs).
				dead = true
				w.logf(s, "%s: write at %d ms after the write deadline (%d ms) fails: connection closed", s.label, now, wt)
				w.cutSoon(s, fmt.Sprintf("server write timeout (%d ms)", wt), "")
				f.ack <- errWire
				continue
			}
			if f.status != 0 {
				for k, v := range f.header {
					rw.Header()[k] = v
				}
				s.sse = strings.HasPrefix(f.header.Get("Content-Type"), "text/event-stream")
				rw.WriteHeader(f.status)
			}
			n := int64(len(f.data))
			if f.status != 0 || n > 0 {
				w.mu.Lock()
				first := !s.header
				s.header = true
				s.bytes += n
				s.lastMs = now
				total := s.bytes
				s.eventID = s.eventID || (s.sse && hasEventID(f.data))
				w.mu.Unlock()
				what := fmt.Sprintf("%d B", n)
				if first {
					what = fmt.Sprintf("headers (%d) + %d B", f.status, n)
				}
				w.logf(s, "%s: %s (%d B so far)", s.label, what, total)
				if first && s.sse {
					fmt.Fprintf(rw, "retry: %d\n\n", ResumeDelayMs)
				}
				_, _ = rw.Write(f.data)
				http.NewResponseController(rw).Flush()
				w.armIdle(s)
			}
			f.ack <- nil
			if f.final {
				return
			}
		case why := <-s.cut:
			w.noteCut(s, why)
			if !s.header && strings.HasPrefix(why, "proxy") {
				close(inner.gone)
				cancel()
				w.logf(s, "%s: proxy answers 504", s.label)
				http.Error(rw, "upstream timed out", http.StatusGatewayTimeout)
				return
			}
			abort()
		case <-r.Context().Done():
			close(inner.gone)
			return
		}
	}
}

// noteCut records a cut of a tool call's stream (for the caller) and, for an
// SSE stream that may be resumed, opens the resumption window.
func (w *wire) noteCut(s *wstream, why string) {
	w.mu.Lock()
	w.cuts++
	now := w.k.NowMs()
	if s.kind == kindCall {
		w.callCut = cutLoss{why: why, afterHeaders: s.sse && s.header, sawEventID: s.eventID}
	}
	sse := s.sse && s.header
	callStream := s.kind == kindCall || s.callResume
	if sse && callStream {
		// The client resumes after the stream's retry field.
		w.resumeAt, w.resumeFails = now+ResumeDelayMs, 0
	}
	if sse && !callStream {
		// The standalone stream: the client opens it again after its retry field.
		w.listenAt = now + ResumeDelayMs
	}
	retry := int64(0)
	if s.callResume && !s.header && !strings.HasPrefix(why, "proxy") {
		// The resumption's request failed before its response began (the
		// connection closed under it; a proxy answers 504 instead, and the
		// client gives its session up): the client sends it again after its
		// backoff, while attempts are left.
		w.resumeFails++
		if w.resumeFails < w.maxRetries {
			retry = now + resumeRetryMs(w.resumeFails)
			w.resumeAt = retry
		}
	}
	if (sse && callStream || retry > 0) && w.gapFrom < 0 {
		w.gapFrom = now
	}
	w.mu.Unlock()
	if retry > 0 {
		w.wr.wireAt(retry)
	}
	if sse {
		// The client resumes ResumeDelayMs after it saw the cut, on the
		// bubble's clock, which only wire events move (syncBubble): it may
		// stand behind virtual time, never ahead of the instant asked for.
		w.wr.wireAtBubble(w.k.NowMs()+ResumeDelayMs, time.Now().Add(ResumeDelayMs*time.Millisecond))
	}
}

// hasEventID reports whether SSE bytes carry an event id field ("id:" at
// the start of a line).
func hasEventID(data []byte) bool {
	return bytes.HasPrefix(data, []byte("id:")) || bytes.Contains(data, []byte("\nid:"))
}

func (w *wire) openStream(r *http.Request, body []byte) *wstream {
	kind := kindOther
	switch r.Method {
	case http.MethodPost:
		kind = kindPost
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" {
			kind = kindCall
		}
	case http.MethodGet:
		kind = kindListen
		if r.Header.Get("Last-Event-ID") != "" {
			kind = kindResume
		}
	}
	callResume := kind == kindResume && !strings.HasPrefix(r.Header.Get("Last-Event-ID"), "_")
	w.mu.Lock()
	w.n++
	now := w.k.NowMs()
	s := &wstream{id: w.n, kind: kind, openedMs: now, lastMs: now, cut: make(chan string, 1), callResume: callResume}
	s.label = fmt.Sprintf("%s %s", r.Method, kind)
	if kind == kindCall {
		s.label = "POST tools/call"
	}
	if w.open == nil {
		w.open = map[int]*wstream{}
	}
	w.open[s.id] = s
	w.mu.Unlock()
	if w.k.Step() > 0 {
		if kind == kindListen || kind == kindResume {
			s.holdUntil = w.listenAt
			if callResume {
				s.holdUntil = w.resumeAt
			}
			s.release = make(chan struct{})
			w.mu.Lock()
			w.held = append(w.held, s)
			w.mu.Unlock()
			return s
		}
		w.logf(s, "%s: request sent", s.label)
	}
	w.armIdle(s)
	return s
}

func (w *wire) closeStream(s *wstream) {
	w.mu.Lock()
	delete(w.open, s.id)
	w.mu.Unlock()
}

// armIdle makes sure the proxy looks at s when it has been silent for
// idleTimeoutMs (see worldRun.wireAt).
func (w *wire) armIdle(s *wstream) {
	idle := w.spec.IdleTimeoutMs
	if idle <= 0 {
		return
	}
	w.mu.Lock()
	due := s.lastMs + idle
	w.mu.Unlock()
	w.wr.idleAt(due)
}

// checkIdle cuts every open response that has been silent for
// idleTimeoutMs, in a fixed order (by kind, then arrival).
func (w *wire) checkIdle() {
	idle := w.spec.IdleTimeoutMs
	if idle <= 0 {
		return
	}
	now := w.k.NowMs()
	w.mu.Lock()
	var due []*wstream
	for _, s := range w.open {
		if s.lastMs+idle <= now && !s.cutSent {
			s.cutSent = true
			due = append(due, s)
		}
	}
	w.mu.Unlock()
	sortStreams(due)
	for _, s := range due {
		w.cutSoon(s, fmt.Sprintf("proxy idle timeout (%d ms)", idle), fmt.Sprintf("proxy cuts it: no byte for %d ms", idle))
	}
}

// kindRank orders stream kinds for checkIdle and drop.
var kindRank = map[string]int{kindCall: 0, kindListen: 1, kindResume: 2, kindPost: 3, kindOther: 4}

func sortStreams(ss []*wstream) {
	sort.Slice(ss, func(i, j int) bool {
		if a, b := kindRank[ss[i].kind], kindRank[ss[j].kind]; a != b {
			return a < b
		}
		return ss[i].id < ss[j].id
	})
}

// wireAt makes sure one wire event runs at atMs (one per instant, whoever
// asks first). Streams beside the causal chain ask from goroutines that run
// concurrently, so the event's place among the sim events of its instant
// would depend on the scheduler: it gives way to every other sim event of the
// instant, and then brings the bubble's clock up to virtual now (net/http's
// and the SDK's own timers, e.g. a client resuming a stream, fire) and runs
// every wire's proxy, in caller order.
func (wr *worldRun) wireAt(atMs int64) { wr.wireAtBubble(atMs, time.Time{}) }

// wireAtBubble is wireAt, and the wire event brings the bubble's clock at
// least to bubble.
func (wr *worldRun) wireAtBubble(atMs int64, bubble time.Time) {
	atMs = max(atMs, wr.k.NowMs())
	wr.wmu.Lock()
	if wr.wireDue == nil {
		wr.wireDue = map[int64]time.Time{}
	}
	prev, ok := wr.wireDue[atMs]
	if bubble.After(prev) {
		wr.wireDue[atMs] = bubble
	}
	wr.wmu.Unlock()
	if ok {
		return
	}
	// Following the bubble (ClockBubble), an instant the bubble must pass
	// into (a client's delay counted from a cut 2 µs into its ms) is a late
	// event: the kernel lets the bubble run to it, and what the tools' own
	// timers set off on the way settles first, each at its own instant,
	// instead of the wire event sleeping over it.
	late := wr.k.Following() && bubble.After(wr.k.EventBubbleAt(atMs))
	var fn func()
	fn = func() {
		if at, name, evLate, ok := wr.k.PeekEvent(); !late && ok && !at.After(wr.k.Clock.Now()) && name != wireEvent && !evLate {
			wr.k.Soon(wireEvent, fn) // give way to the instant's other sim events
			return
		}
		wr.wmu.Lock()
		bubble := wr.wireDue[atMs]
		delete(wr.wireDue, atMs)
		wr.wmu.Unlock()
		wr.syncBubble(bubble)
		for _, w := range wr.wires {
			w.releaseHeld()
		}
	}
	if late {
		wr.k.AtLate(atMs, wireEvent, fn)
		return
	}
	wr.k.At(atMs, wireEvent, fn)
}

// idleAt makes sure the proxies look for silent responses at atMs (one check
// an instant). The check is a late event (timeline.Kernel.AtLate): a proxy starts its
// idle timer when it forwards the request, after the client started its
// own, so at equal timeouts the client's fires first (measured with nginx:
// the client first in 3 of 4 runs).
func (wr *worldRun) idleAt(atMs int64) {
	atMs = max(atMs, wr.k.NowMs())
	wr.wmu.Lock()
	if wr.idleDue == nil {
		wr.idleDue = map[int64]bool{}
	}
	if wr.idleDue[atMs] {
		wr.wmu.Unlock()
		return
	}
	wr.idleDue[atMs] = true
	wr.wmu.Unlock()
	wr.k.AtLate(atMs, "idle", func() {
		wr.wmu.Lock()
		delete(wr.idleDue, atMs)
		wr.wmu.Unlock()
		for _, w := range wr.wires {
			w.checkIdle()
		}
	})
}

// drop cuts every open response of the wire (a dropped connection).
func (w *wire) drop() {
	w.mu.Lock()
	ids := make([]int, 0, len(w.open))
	for id := range w.open {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var cut []*wstream
	for _, id := range ids {
		if s := w.open[id]; !s.cutSent {
			s.cutSent = true
			cut = append(cut, s)
		}
	}
	w.mu.Unlock()
	sortStreams(cut)
	w.k.Trace.Addf("wire:"+w.name, "connection dropped")
	for _, s := range cut {
		w.cutSoon(s, "connection dropped", "cut by the drop")
	}
}

// syncBubble brings the bubble's own clock (which net/http and the SDK's
// client use, e.g. for a resumption delay) up to virtual now, or atLeast
// when that is later. It runs as a
// sim event, on the kernel's goroutine, when every other goroutine is durably
// blocked: the bubble's timers due by now fire while it sleeps.
func (wr *worldRun) syncBubble(atLeast time.Time) {
	target := wr.bubble0.Add(time.Duration(wr.k.NowMs()) * time.Millisecond)
	if atLeast.After(target) {
		target = atLeast
	}
	if d := time.Until(target); d > 0 {
		time.Sleep(d)
		synctest.Wait() // what the bubble's timers set off settles first
	}
}

// connectHTTP connects caller c to server over streamable HTTP as ts says.
func (wr *worldRun) connectHTTP(tb testing.TB, ctx context.Context, server *mcp.Server, c *caller, ts TransportSpec) (*mcp.ClientSession, error) {
	if tb == nil {
		return nil, errors.New("an HTTP transport needs RunWorld (a test's bubble)")
	}
	w := &wire{k: wr.k, wr: wr, name: c.spec.Name, spec: ts, gapFrom: -1, resumeAt: -1, listenAt: -1, maxRetries: maxRetries(c.spec.Client)}
	opts := &mcp.StreamableHTTPOptions{
		Stateless:                  ts.Mode == ModeStatelessSSE || ts.Mode == ModeStatelessJSON,
		JSONResponse:               ts.Mode == ModeJSON || ts.Mode == ModeStatelessJSON,
		DisableLocalhostProtection: true,
	}
	if ts.EventStore {
		opts.EventStore = mcp.NewMemoryEventStore(nil)
	}
	w.inner = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
	w.srv = httptest.NewTestServer(tb, w)
	c.wire = w
	wr.wires = append(wr.wires, w)
	for _, at := range ts.DropAtMs {
		wr.k.At(at, "drop "+c.spec.Name, w.drop)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "caller-" + c.spec.Name, Version: "v0"},
		&mcp.ClientOptions{ProgressNotificationHandler: c.onProgress})
	tr := &mcp.StreamableClientTransport{Endpoint: w.srv.URL, HTTPClient: w.srv.Client(), MaxRetries: w.maxRetries}
	return client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: ts.Protocol})
}

// attributeSessions is a receiving middleware that maps each server session
// carrying a tool call to the caller named by the wire's header, and ends the
// call's handler when the world ends.
func (wr *worldRun) attributeSessions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ctr, ok := req.(*mcp.CallToolRequest); ok && ctr.Extra != nil && ctr.Extra.Header != nil {
			if name := ctr.Extra.Header.Get(callerHeader); name != "" {
				wr.mu.Lock()
				wr.sessions[ctr.Session] = name
				wr.mu.Unlock()
			}
			// The handler ends with the world, as over memory (where the
			// server session's context is the world's).
			hctx, cancel := context.WithCancel(ctx)
			defer cancel()
			stop := context.AfterFunc(wr.ctx, cancel)
			defer stop()
			ctx = hctx
		}
		return next(ctx, method, req)
	}
}

// FailureAction is what a caller does when the transport loses a call
// (contract §4).
type FailureAction string

// Failure actions.
const (
	// FailThrow: the call fails and the caller stops (the TS SDK throws).
	FailThrow FailureAction = "throw"
	// FailRetry: the caller calls again with what is left of the failed
	// call's budget (timeoutMs minus the time the call took), unless that is
	// below 1000 ms.
	FailRetry FailureAction = "retry"
)

// LostByTimeout is CallResult.LostBy for a reply lost to the caller's own
// request timeout; any other LostBy names what the transport did.
const LostByTimeout = "request timeout"

// transportOf is the transport of caller spec in world w (nil: memory).
func transportOf(w World, spec CallerSpec) *TransportSpec {
	if spec.Transport != nil {
		return spec.Transport
	}
	return w.Transport
}

// anyHTTP reports whether a caller of w uses streamable HTTP.
func anyHTTP(w World) bool {
	for _, c := range w.Callers {
		if transportOf(w, c).HTTP() {
			return true
		}
	}
	return false
}

// intArgOf reads an integer argument (a JSON number or a Go int) of a call.
func intArgOf(args map[string]any, name string, def int64) int64 {
	switch x := args[name].(type) {
	case float64:
		return int64(x)
	case int:
		return int64(x)
	case int64:
		return x
	}
	return def
}

// nextSessionID gives HTTP sessions ids that do not change run to run (they
// show in the SDK's error messages).
func (wr *worldRun) nextSessionID() string {
	wr.wmu.Lock()
	defer wr.wmu.Unlock()
	wr.sessionN++
	return fmt.Sprintf("session-%d", wr.sessionN)
}

// LostBySession opens CallResult.LostBy for a call that failed because the
// client gave up its session after the wire cut some of its responses.
const LostBySession = "session failed after the wire's cuts: "
