package serve

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testHTTP serves testServer as `waitsim serve --http` does (the same
// handler and http.Server limits), over httptest's in-memory network inside
// the caller's bubble.
func testHTTP(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	return testHTTPWith(t, opts, newHTTPServer(nil, io.Discard))
}

// testHTTPWith is testHTTP with the http.Server timeouts of cfg.
func testHTTPWith(t *testing.T, opts Options, cfg *http.Server) *httptest.Server {
	t.Helper()
	server := testServer()
	guard(server, io.Discard, 0)
	ts := httptest.NewTestServer(t, httpHandler(server, opts))
	ts.Config.ReadHeaderTimeout, ts.Config.ReadTimeout, ts.Config.IdleTimeout = cfg.ReadHeaderTimeout, cfg.ReadTimeout, cfg.IdleTimeout
	ts.Client() // starts it on the in-memory network
	t.Cleanup(func() {
		for ss := range server.Sessions() {
			ss.Close()
		}
		ts.Close()
	})
	return ts
}

// post sends one JSON-RPC message and returns the status and session id.
func post(t *testing.T, ts *httptest.Server, origin, session, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// Origin is validated (transport spec: servers MUST, 403 otherwise):
// loopback origins and --allow-origin ones pass, any other gets 403 and no
// session; a request without Origin (not from a browser) passes.
func TestOriginChecked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := testHTTP(t, Options{AllowOrigins: []string{"https://app.example:8443"}})
		for _, tc := range []struct {
			origin string
			want   int
		}{
			{"", 200},
			{"http://localhost:6274", 200},
			{"http://127.0.0.1", 200},
			{"http://[::1]:3000", 200},
			{"https://app.example:8443", 200},
			{"http://evil.example", 403},
			{"https://app.example", 403},
			{"http://localhost.evil.example", 403},
			{"null", 403},
			{"file://", 403},
		} {
			code, sid := post(t, ts, tc.origin, "", initMsg)
			if code != tc.want || (tc.want == 403) != (sid == "") {
				t.Errorf("Origin %q: status %d, session %q; want %d", tc.origin, code, sid, tc.want)
			}
		}
	})
}

// Sessions expire after SessionIdle with no request (404 afterwards), and no
// more than MaxSessions are open at once (503 for one more initialize, until
// one expires).
func TestSessionsExpireAndAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := testHTTP(t, Options{MaxSessions: 2, SessionIdle: time.Minute})
		_, s1 := post(t, ts, "", "", initMsg)
		time.Sleep(30 * time.Second)
		_, s2 := post(t, ts, "", "", initMsg)
		if s1 == "" || s2 == "" {
			t.Fatalf("sessions %q %q", s1, s2)
		}
		if code, _ := post(t, ts, "", "", initMsg); code != http.StatusServiceUnavailable {
			t.Errorf("a third session of 2 at most: status %d, want 503", code)
		}
		time.Sleep(29 * time.Second) // s1 idle 59 s: still open
		ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
		if code, _ := post(t, ts, "", s2, ping); code != 200 {
			t.Errorf("ping on s2: %d", code)
		}
		time.Sleep(2 * time.Second) // s1 idle 61 s: closed
		synctest.Wait()
		if code, _ := post(t, ts, "", s1, ping); code != http.StatusNotFound {
			t.Errorf("ping on s1 after a minute idle: status %d, want 404", code)
		}
		if code, s3 := post(t, ts, "", "", initMsg); code != 200 || s3 == "" {
			t.Errorf("a new session once s1 expired: status %d", code)
		}
	})
}

// The session cap holds under concurrency: of many initializes at once, no
// more than MaxSessions open a session, and once they are over the cap is
// still reachable exactly. Each request pauses a millisecond between passing
// the cap and the SDK's registering its session, so that all of them are in
// that window together: the cap used to count registered sessions only and
// let all 200 in (a flood of 1000 plain initializes at once against the
// binary opened 101-108 sessions past a cap of 100).
func TestSessionCapHoldsUnderConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const max, burst = 10, 200
		ts := testHTTP(t, Options{MaxSessions: max})
		afterAdmission = func() { time.Sleep(time.Millisecond) }
		defer func() { afterAdmission = func() {} }()
		var mu sync.Mutex
		opened := map[string]bool{}
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for range burst {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(initMsg))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				code, sid := -1, ""
				if resp, err := ts.Client().Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					code, sid = resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
				}
				mu.Lock()
				defer mu.Unlock()
				statuses[code]++
				if sid != "" {
					opened[sid] = true
				}
			})
		}
		wg.Wait()
		if len(opened) > max || statuses[http.StatusOK]+statuses[http.StatusServiceUnavailable] != burst {
			t.Fatalf("%d initializes at once with a cap of %d: statuses %v, %d sessions opened", burst, max, statuses, len(opened))
		}
		// The cap is reachable once the burst is over, and not passable.
		for range max - len(opened) {
			if code, sid := post(t, ts, "", "", initMsg); code != http.StatusOK || sid == "" {
				t.Fatalf("after the burst (%d sessions of %d): status %d", len(opened), max, code)
			}
		}
		if code, _ := post(t, ts, "", "", initMsg); code != http.StatusServiceUnavailable {
			t.Errorf("past the cap after the burst: status %d, want 503", code)
		}
	})
}

// Stateless, every request has a session of its own for its duration, so
// the cap bounds the requests in flight, each counted once: with a cap of 2,
// two long calls run together and a third request meanwhile gets 503.
func TestStatelessCapCountsRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := testHTTP(t, Options{Stateless: true, MaxSessions: 2})
		call := callMsg(1, 5000)
		ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		codes := make(chan int, 2)
		for i := range 2 {
			go func() {
				time.Sleep(time.Duration(i) * 100 * time.Millisecond)
				code, _ := post(t, ts, "", "", call)
				codes <- code
			}()
		}
		time.Sleep(200 * time.Millisecond)
		if code, _ := post(t, ts, "", "", ping); code != http.StatusServiceUnavailable {
			t.Errorf("a third request while two calls run, cap 2: status %d, want 503", code)
		}
		for range 2 {
			if code := <-codes; code != http.StatusOK {
				t.Errorf("a call of two in flight, cap 2: status %d, want 200", code)
			}
		}
		if code, _ := post(t, ts, "", "", ping); code != http.StatusOK {
			t.Errorf("a request once the calls ended: status %d, want 200", code)
		}
	})
}

// A call whose SSE reply lasts far longer than the server's read timeout
// gets its reply: no write timeout, and the read timeout bounds only the
// request. The timeouts are 5 s here so that a 30 s call outlives them six
// times over.
func TestLongCallOutlivesServerTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := newHTTPServer(nil, io.Discard)
		cfg.ReadHeaderTimeout, cfg.ReadTimeout, cfg.IdleTimeout = 5*time.Second, 5*time.Second, 5*time.Second
		ts := testHTTPWith(t, Options{}, cfg)
		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: workTool, Arguments: map[string]any{"ms": 30000}})
		if err != nil || res.IsError {
			t.Fatalf("a %v call: %v %v", time.Since(start), err, res)
		}
		if d := time.Since(start); d != 30*time.Second {
			t.Errorf("replied after %v, want the reply at 30 s", d)
		}
	})
}

// A peer that sends its headers and then never finishes its body is cut off
// after BodyTimeout, so slow uploads cannot hold connections for ever.
func TestSlowBodyCutOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := testHTTP(t, Options{})
		conn, err := ts.Client().Transport.(*http.Transport).DialContext(context.Background(), "tcp", "example.com:80")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		io.WriteString(conn, "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			_, err = conn.Read(make([]byte, 1))
		}
		if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && err == nil {
			t.Fatalf("read: %v", err)
		}
		if d := time.Since(start); d != BodyTimeout {
			t.Errorf("connection held %v, want BodyTimeout (%v)", d, BodyTimeout)
		}
	})
}

// blockingWriter takes no bytes until released, like a full pipe nobody reads.
type blockingWriter struct{ release chan struct{} }

func (b blockingWriter) Write(p []byte) (int, error) { <-b.release; return len(p), nil }

// The log never blocks its writers: with its reader stuck, writes return at
// once and are dropped past LogQueue, and Close gives up after its wait.
func TestLogNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bw := blockingWriter{release: make(chan struct{})}
		l := NewLog(bw)
		start := time.Now()
		for i := 0; i < 3*LogQueue; i++ {
			io.WriteString(l, "a line of log\n")
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("writes took %v of bubble time", d)
		}
		if l.Close(time.Second) {
			t.Error("Close reported a drained queue while the writer was stuck")
		}
		close(bw.release)
		synctest.Wait()
	})
}

func TestValidAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:0": true, ":8080": true, "localhost:http": true, "[::1]:9": true,
		"127.0.0.1": false, "127.0.0.1:99999": false, "a b:80": false, "": false, "::1:80": false,
	} {
		if err := ValidAddr(addr); (err == nil) != ok || (err != nil && !errors.Is(err, ErrUsage)) {
			t.Errorf("ValidAddr(%q) = %v", addr, err)
		}
	}
}

// sseEvent reads the next SSE event of r: its id ("" when it has none) and
// its data.
func sseEvent(t *testing.T, r *bufio.Reader) (id, data string) {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the SSE stream: %v (event so far: id %q, data %q)", err, id, data)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && (id != "" || data != ""):
			return id, data
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		}
	}
}

// Stateful SSE keeps an event store by default: a call's stream carries
// event ids (a priming event at once, under 2025-11-25), so that when a
// proxy cuts it the client resumes it with Last-Event-ID and gets the reply
// the tool sent meanwhile. With NoEventStore (--event-store=false) the
// stream carries no id, and a client that was cut has nothing to resume
// with: the TypeScript SDK's client then waits for its own timeout.
func TestEventStoreResumesACutStream(t *testing.T) {
	const proto = "2025-11-25"
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + proto + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	send := func(t *testing.T, ts *httptest.Server, method, session, lastID, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", proto)
		req.Header.Set("Mcp-Session-Id", session)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := ts.Client().Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", method, err, resp)
		}
		return resp
	}
	for _, noStore := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			ts := testHTTP(t, Options{NoEventStore: noStore})
			code, sid := post(t, ts, "", "", init)
			if code != http.StatusOK || sid == "" {
				t.Fatalf("initialize: %d %q", code, sid)
			}
			post(t, ts, "", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			resp := send(t, ts, http.MethodPost, sid, "", callMsg(2, 2000))
			id, data := sseEvent(t, bufio.NewReader(resp.Body))
			if noStore {
				resp.Body.Close()
				if id != "" || !strings.Contains(data, `"sleptMs":2000`) {
					t.Errorf("no event store: first event id %q, data %s; want the reply with no id", id, data)
				}
				return
			}
			resp.Body.Close() // the proxy cuts the stream after its first event
			if id == "" || data != "" {
				t.Fatalf("event store: first event id %q, data %q; want a priming event (an id, no data)", id, data)
			}
			time.Sleep(time.Second) // the stream's retry
			resp = send(t, ts, http.MethodGet, sid, id, "")
			defer resp.Body.Close()
			id2, data := sseEvent(t, bufio.NewReader(resp.Body))
			if id2 == "" || !strings.Contains(data, `"id":2`) || !strings.Contains(data, `"sleptMs":2000`) {
				t.Errorf("resumed with Last-Event-ID %s: event id %q, data %s; want the call's reply", id, id2, data)
			}
		})
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct {
	mu sync.Mutex
	n  int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += len(p)
	return len(p), nil
}

// The log's queue is bounded in bytes, not only in writes: a write is cut
// to LogWriteMax (with a note), and writes past LogBytes queued are dropped.
// Before, 4096 lines quoting a 16 MiB request each could hold 64 GiB.
func TestLogBoundedInBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bw := blockingWriter{release: make(chan struct{})}
		l := NewLog(bw)
		big := strings.Repeat("a", 1<<20)
		for range 100 {
			io.WriteString(l, big)
		}
		l.mu.Lock()
		queued, dropped := l.queued, l.dropped
		l.mu.Unlock()
		if queued > LogBytes || queued < LogWriteMax || dropped != 0 {
			t.Errorf("%d bytes queued, %d writes dropped; want each cut to about %d bytes, none dropped", queued, dropped, LogWriteMax)
		}
		for range 2 * LogBytes / LogWriteMax {
			io.WriteString(l, big)
		}
		l.mu.Lock()
		queued, dropped = l.queued, l.dropped
		l.mu.Unlock()
		if queued > LogBytes || dropped == 0 {
			t.Errorf("%d bytes queued (bound %d), %d writes dropped", queued, LogBytes, dropped)
		}
		close(bw.release)
		l.Close(time.Second)
		synctest.Wait()
	})
	var cw countingWriter
	l := NewLog(&cw)
	io.WriteString(l, strings.Repeat("b", 3*LogWriteMax))
	l.Close(10 * time.Second)
	if cw.n <= LogWriteMax || cw.n > LogWriteMax+100 {
		t.Errorf("a write of %d bytes reached the writer as %d bytes; want its first %d and a note", 3*LogWriteMax, cw.n, LogWriteMax)
	}
}

// slowBody sends "{" and then nothing until released.
type slowBody struct {
	sent    bool
	release chan struct{}
}

func (b *slowBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		p[0] = '{'
		return 1, nil
	}
	<-b.release
	return 0, io.ErrUnexpectedEOF
}

// A request that opens a session takes its place at the session door only
// once its body is in: clients that send half a body hold no place, and a
// new client gets its session (before, two half-sent bodies shut every new
// client of a server with a cap of 2 out, "too many open sessions" with
// none open, until their body timeout).
func TestHalfSentBodiesHoldNoPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := testHTTP(t, Options{MaxSessions: 2})
		release := make(chan struct{})
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodPost, ts.URL, &slowBody{release: release})
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if resp, err := ts.Client().Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
		synctest.Wait()
		if code, sid := post(t, ts, "", "", initMsg); code != http.StatusOK || sid == "" {
			t.Errorf("a new client beside two half-sent bodies: status %d, session %q; want 200 and a session", code, sid)
		}
		close(release)
		wg.Wait()
	})
}

// Over HTTP at most MaxCalls POSTs are handled at once, their replies'
// writing included: with two calls in flight under MaxCalls 2, a third POST
// (a ping, which guard's bound on calls does not count) gets 503; once the
// calls have ended, it passes.
func TestPostsInHandlingBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := testHTTP(t, Options{MaxCalls: 2, JSONResponse: true})
		_, sid := post(t, ts, "", "", initMsg)
		if sid == "" {
			t.Fatal("no session")
		}
		post(t, ts, "", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		var wg sync.WaitGroup
		for id := 1; id <= 2; id++ {
			wg.Go(func() {
				if code, _ := post(t, ts, "", sid, callMsg(id, 5000)); code != 200 {
					t.Errorf("call %d within the bound: status %d", id, code)
				}
			})
		}
		synctest.Wait()
		ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
		if code, _ := post(t, ts, "", sid, ping); code != http.StatusServiceUnavailable {
			t.Errorf("a third POST with two calls in handling of 2 at most: status %d, want 503", code)
		}
		wg.Wait()
		if code, _ := post(t, ts, "", sid, ping); code != 200 {
			t.Errorf("a POST once the calls ended: status %d, want 200", code)
		}
	})
}

// Over HTTP a request whose id the SDK would answer with another (1.5 as
// 1) gets 400 and a JSON-RPC error, as over stdio; an exact one passes.
func TestHTTPInexactIDRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := testHTTP(t, Options{JSONResponse: true})
		_, sid := post(t, ts, "", "", initMsg)
		if code, _ := post(t, ts, "", sid, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`); code != http.StatusBadRequest {
			t.Errorf("id 1.5: status %d, want 400", code)
		}
		if code, _ := post(t, ts, "", sid, `{"jsonrpc":"2.0","id":7,"method":"ping"}`); code != 200 {
			t.Errorf("id 7: status %d, want 200", code)
		}
	})
}
