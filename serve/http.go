package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of `waitsim serve --http`. Each bounds what one peer can hold of
// the server; none cuts a long call short (a call's SSE stream may stay open
// for as long as the tool takes, and a session's idle clock stops while one
// of its requests runs).
const (
	// HeaderTimeout bounds reading a request's headers.
	HeaderTimeout = 10 * time.Second
	// BodyTimeout bounds reading a request's headers and body
	// (http.Server.ReadTimeout). net/http clears the connection's read
	// deadline once the body is read, so a reply's stream may last as long
	// as the call (TestLongCallOutlivesServerTimeouts).
	BodyTimeout = 30 * time.Second
	// IdleTimeout closes a kept-alive connection with no request for so long.
	IdleTimeout = 2 * time.Minute
	// DefaultSessionIdle closes a session that has had no request for so
	// long (mcp.StreamableHTTPOptions.SessionTimeout); its client gets 404
	// and must initialize again, as the transport spec says.
	DefaultSessionIdle = 10 * time.Minute
	// DefaultMaxSessions is how many sessions may be open at once; one more
	// initialize is answered 503 (each session holds about 17 KB: 10,000
	// initializes grew the process from 16 to 184 MB).
	DefaultMaxSessions = 1000
)

// httpHandler is the streamable HTTP handler of server with serve's
// protections around it.
func httpHandler(server *mcp.Server, opts Options) http.Handler {
	idle := opts.SessionIdle
	if idle == 0 {
		idle = DefaultSessionIdle
	} else if idle < 0 {
		idle = 0 // never
	}
	max := opts.MaxSessions
	if max == 0 {
		max = DefaultMaxSessions
	}
	hopts := &mcp.StreamableHTTPOptions{JSONResponse: opts.JSONResponse, Stateless: opts.Stateless, SessionTimeout: idle}
	if !opts.Stateless && !opts.NoEventStore {
		hopts.EventStore = mcp.NewMemoryEventStore(nil)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, hopts)
	door := &sessionDoor{server: server, max: max, stateless: opts.Stateless}
	maxCalls := opts.maxCalls()
	posts := make(chan struct{}, maxCalls)
	allowed := map[string]bool{}
	for _, o := range opts.AllowOrigins {
		allowed[strings.ToLower(strings.TrimRight(o, "/"))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, allowed) {
			// The transport spec: servers MUST validate Origin and answer
			// 403 to an invalid one (DNS rebinding from a web page).
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed (loopback origins are; waitsim serve --allow-origin adds others)", o), http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost {
			// A POST's body is read whole before it takes a place (within
			// the SDK's bound on a body and the server's BodyTimeout): a
			// client that sends its body slowly, or never, holds none
			// (before, a few half-sent bodies shut every new client out
			// until their body timeout).
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					writeRPCError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", tooBig.Limit))
				} else {
					writeRPCError(w, http.StatusBadRequest, "reading the request body: "+err.Error())
				}
				return
			}
			if why := badID(body); why != "" {
				writeRPCError(w, http.StatusBadRequest, "Invalid Request: "+why)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			// At most maxCalls POSTs are handled at once, their replies'
			// writing included: guard's bound on calls ends when a handler
			// returns, before its reply is written, so a client that read
			// no reply could have any number held (1000 unread POSTs held
			// 2.2 GB).
			select {
			case posts <- struct{}{}:
				defer func() { <-posts }()
			default:
				writeRPCError(w, http.StatusServiceUnavailable, fmt.Sprintf("too many requests in handling (at most %d, their replies' writing included): try again when one has ended", maxCalls))
				return
			}
		}
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			// A POST without a session opens one (stateless: one for the
			// request alone), once its body is in.
			if !door.enter() {
				writeRPCError(w, http.StatusServiceUnavailable, fmt.Sprintf("too many sessions open or opening (at most %d); close one or wait for one to expire", max))
				return
			}
			defer door.leave()
			afterAdmission()
		}
		h.ServeHTTP(w, r)
	})
}

// afterAdmission runs when a request that opens a session has passed the
// door, before the SDK registers its session (a test pauses there, so that
// a burst of requests is in that window at once).
var afterAdmission = func() {}

// newHTTPServer is the http.Server of serve: header and body timeouts, an
// idle timeout, and no write timeout (a call's SSE stream is as long as the
// call).
func newHTTPServer(h http.Handler, logw io.Writer) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: HeaderTimeout,
		ReadTimeout:       BodyTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          newStdLogger(logw),
	}
}

// sessionDoor admits the requests that open a session while fewer than max
// are open or being opened. Counting the registered sessions alone is not
// enough: the SDK registers a request's session only after the count was
// taken, so requests arriving together all saw room for themselves (1000
// initializes at once opened up to 108 sessions past a cap of 100). The
// door counts the requests it let in until they end as well, under one lock
// with the check: at most max sessions are ever open. While such a request
// runs its session is counted twice (registered, and entering), which can
// refuse an initialize that races another one for the last free places;
// the client may try again. Stateless, the requests are the sessions (each
// has one for its duration), so only they are counted.
type sessionDoor struct {
	server    *mcp.Server
	max       int
	stateless bool

	mu       sync.Mutex
	entering int
}

// enter takes a place for a request that opens a session, or reports that
// there is none.
func (d *sessionDoor) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	open := d.entering
	if !d.stateless {
		open += sessions(d.server)
	}
	if open >= d.max {
		return false
	}
	d.entering++
	return true
}

// leave ends a request enter let in (its session, if it opened one, is
// registered with the server by then).
func (d *sessionDoor) leave() {
	d.mu.Lock()
	d.entering--
	d.mu.Unlock()
}

// sessions counts the server's open sessions.
func sessions(server *mcp.Server) int {
	n := 0
	for range server.Sessions() {
		n++
	}
	return n
}

// originAllowed: an Origin is allowed when its host is a loopback name or
// address, or when it is one of allowed (scheme://host[:port], lower case).
func originAllowed(origin string, allowed map[string]bool) bool {
	if allowed[strings.ToLower(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// writeRPCError answers with a JSON-RPC error object (id null) and status.
func writeRPCError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32000, "message": msg},
	})
}

// ValidAddr checks a --http address (host:port, the port a number, the host
// empty, a name or an IP) before anything is served: a malformed one is a
// usage error.
func ValidAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: --http %q: want HOST:PORT (e.g. 127.0.0.1:8080): %v", ErrUsage, addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil || strings.ContainsAny(port, " \t") {
		return fmt.Errorf("%w: --http %q: bad port %q", ErrUsage, addr, port)
	}
	if strings.ContainsAny(host, " \t/") {
		return fmt.Errorf("%w: --http %q: bad host %q", ErrUsage, addr, host)
	}
	return nil
}

// newStdLogger is net/http's error log (a handler's panic, a bad TLS
// handshake) on logw.
func newStdLogger(logw io.Writer) *log.Logger {
	return log.New(logw, "waitsim serve: http: ", 0)
}
