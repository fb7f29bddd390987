package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure Run.
type Options struct {
	// Name says what is served, for the log (e.g. "case slow-bridge").
	Name string
	// HTTP, when not "", serves streamable HTTP on this address (host:port;
	// port 0 picks a free one) instead of stdio.
	HTTP string
	// JSONResponse: HTTP answers a call with one application/json body
	// instead of an SSE stream (mcp.StreamableHTTPOptions.JSONResponse).
	JSONResponse bool
	// Stateless: HTTP without sessions (mcp.StreamableHTTPOptions.Stateless).
	Stateless bool
	// NoEventStore: stateful HTTP keeps no event store. By default it keeps
	// one (mcp.NewMemoryEventStore, at most 10 MiB of events), so that its
	// SSE events carry ids and a client resumes a stream a proxy cut
	// (Last-Event-ID); without one, a client that sees no event id cannot
	// (the TypeScript SDK's client then waits for its own request timeout).
	// Stateless HTTP has no sessions to resume and never keeps one.
	NoEventStore bool
	// Stdin and Stdout carry the stdio transport (os.Stdin, os.Stdout when nil).
	Stdin  io.Reader
	Stdout io.Writer
	// Log receives the log: what the server was built to write (the
	// server's log writer) and the HTTP address (os.Stderr when nil).
	Log io.Writer
	// Ready, when not nil, is called with the URL once HTTP listens.
	Ready func(url string)
	// Probe runs a stall probe (Probe) while serving and logs at the end,
	// on a line that starts with ProbePrefix, a ProbeReport: the largest
	// stall since the first tools/call and the instant that call arrived.
	Probe bool
	// AllowOrigins are the Origin header values (scheme://host[:port]) HTTP
	// accepts beside loopback ones; any other Origin gets 403.
	AllowOrigins []string
	// SessionIdle closes an HTTP session with no request for so long
	// (0: DefaultSessionIdle; negative: never).
	SessionIdle time.Duration
	// MaxSessions bounds the open HTTP sessions (0: DefaultMaxSessions).
	MaxSessions int
	// MaxCalls bounds the tools/call requests in flight at once, over all
	// sessions (0: DefaultMaxCalls); one more is answered with a JSON-RPC
	// error at once. A call is in flight until its reply is written: over
	// stdio, stdin is not read further while MaxCalls replies wait to be
	// written; over HTTP, at most MaxCalls POSTs are handled at once (one
	// more gets 503).
	MaxCalls int
}

// maxCalls is MaxCalls, or its default.
func (o Options) maxCalls() int {
	if o.MaxCalls <= 0 {
		return DefaultMaxCalls
	}
	return o.MaxCalls
}

// DefaultMaxCalls is Options.MaxCalls' default: a bound, not a measurement
// of need. Each call in flight holds about 56–70 KB (15,000 calls at once on
// one session grew the test binary to 1.03 GB, 3 December 2026), so the
// bound holds them to about 70 MB.
const DefaultMaxCalls = 1000

// ListeningPrefix opens the log line that gives the HTTP URL, e.g.
// "waitsim serve: listening on http://127.0.0.1:41234/mcp".
const ListeningPrefix = "waitsim serve: listening on "

// ErrUsage wraps errors in Options (e.g. a bad HTTP address).
var ErrUsage = errors.New("usage")

// Run serves server until ctx is done or, over stdio, until the client
// closes its end. It makes server safe to expose first (guard: call Run
// after every AddReceivingMiddleware of the server's builder). It returns
// nil on such a clean end; an ErrUsage error (a bad HTTP address) before
// serving; any other error from the transport. Its log never blocks it:
// opts.Log is wrapped in a Log unless it is one.
func Run(ctx context.Context, server *mcp.Server, opts Options) error {
	if opts.HTTP != "" {
		if err := ValidAddr(opts.HTTP); err != nil {
			return err
		}
	}
	var logw io.Writer = os.Stderr
	if opts.Log != nil {
		logw = opts.Log
	}
	if l, ok := logw.(*Log); !ok {
		// Writes never block the server (a stderr nobody reads fills up).
		l = NewLog(logw)
		defer l.Close(time.Second)
		logw = l
	}
	if opts.Probe {
		p := StartProbe()
		first := watchFirstCall(server, p.restart)
		defer func() {
			rep := ProbeReport{LargestStallMs: p.Stop()}
			rep.FirstCallUnixMs, _ = first.unixMs()
			b, _ := json.Marshal(rep)
			fmt.Fprintf(logw, "%s%s\n", ProbePrefix, b)
		}()
	}
	maxCalls := opts.maxCalls()
	guard(server, logw, maxCalls) // the last middleware: the outermost
	if opts.HTTP == "" {
		in, out := opts.Stdin, opts.Stdout
		if in == nil {
			in = os.Stdin
		}
		if out == nil {
			out = os.Stdout
		}
		fmt.Fprintf(logw, "waitsim serve: %s over stdio\n", opts.Name)
		err := server.Run(ctx, stdioTransport(ctx, in, out, logw, maxCalls))
		if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || ctx.Err() != nil {
			return nil
		}
		return err
	}
	return serveHTTP(ctx, server, opts, logw)
}

func serveHTTP(ctx context.Context, server *mcp.Server, opts Options, logw io.Writer) error {
	ln, err := net.Listen("tcp", opts.HTTP)
	if err != nil {
		return err
	}
	srv := newHTTPServer(httpHandler(server, opts), logw)
	mode := "SSE responses"
	if opts.JSONResponse {
		mode = "JSON responses"
	}
	if opts.Stateless {
		mode += ", stateless"
	} else if opts.NoEventStore {
		mode += ", no event store"
	} else {
		mode += ", event store"
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(logw, "waitsim serve: %s\n%s%s (streamable HTTP, %s)\n", opts.Name, ListeningPrefix, url, mode)
	if opts.Ready != nil {
		opts.Ready(url)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Open SSE streams never end by themselves: give them a moment, then close.
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return nil
}
