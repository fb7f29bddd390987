package serve

import (
	"context"
	"errors"
	"fmt"
	"github.com/waitsim/waitsim/scenario"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/waittool"
)

// Options configure Run.
type Options struct {
	// File is the scenario file (the format of `waitsim run`).
	File string
	// Case is the id of the case to serve; "" when the file holds one case.
	Case string
	// HTTP, when not "", serves streamable HTTP on this address (host:port;
	// port 0 picks a free one) instead of stdio.
	HTTP string
	// JSONResponse: HTTP answers a call with one application/json body
	// instead of an SSE stream (mcp.StreamableHTTPOptions.JSONResponse).
	JSONResponse bool
	// Stateless: HTTP without sessions (mcp.StreamableHTTPOptions.Stateless).
	Stateless bool
	// Stdin and Stdout carry the stdio transport (os.Stdin, os.Stdout when nil).
	Stdin  io.Reader
	Stdout io.Writer
	// Log receives the log: the bridge's and the tool's steps in ms since the
	// first call, and the HTTP address (os.Stderr when nil).
	Log io.Writer
	// Ready, when not nil, is called with the URL once HTTP listens.
	Ready func(url string)
	// Probe runs a stall probe (Probe) while serving and logs the largest
	// stall at the end, on a line that starts with StallPrefix.
	Probe bool
	// AllowOrigins are the Origin header values (scheme://host[:port]) HTTP
	// accepts beside loopback ones; any other Origin gets 403.
	AllowOrigins []string
	// SessionIdle closes an HTTP session with no request for so long
	// (0: DefaultSessionIdle; negative: never).
	SessionIdle time.Duration
	// MaxSessions bounds the open HTTP sessions (0: DefaultMaxSessions).
	MaxSessions int
}

// ListeningPrefix opens the log line that gives the HTTP URL, e.g.
// "waitsim serve: listening on http://127.0.0.1:41234/mcp".
const ListeningPrefix = "waitsim serve: listening on "

// ErrUsage wraps errors in Options (e.g. an unknown case id).
var ErrUsage = errors.New("usage")

// Select loads file with the scenario loader (as the reference tool's table
// loads it) and returns the case with id
// (or the only case when id is ""). A file problem is a *results.FileError
// with the same "file:line:column: field: message" lines as `waitsim run`;
// a missing or ambiguous case id wraps ErrUsage.
func Select(file, id string) (*scenario.Case, error) {
	opts, err := waitagents.Reference().LoadOptions()
	if err != nil {
		return nil, err
	}
	cases, err := scenario.Load([]string{file}, opts)
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := range cases {
		if cases[i].ID == id || (id == "" && len(cases) == 1) {
			return &cases[i], nil
		}
		ids = append(ids, cases[i].ID)
	}
	sort.Strings(ids)
	if id == "" {
		return nil, fmt.Errorf("%w: %s holds %d cases; choose one with --case: %s", ErrUsage, file, len(ids), strings.Join(ids, ", "))
	}
	return nil, fmt.Errorf("%w: %s has no case %q; its cases: %s", ErrUsage, file, id, strings.Join(ids, ", "))
}

// Run serves the case until ctx is done or, over stdio, until the client
// closes its end. It returns nil on such a clean end; a *results.FileError
// or an ErrUsage error (a bad case id or --http address) before serving; any
// other error from the transport. Its log never blocks it: opts.Log is
// wrapped in a Log unless it is one.
func Run(ctx context.Context, opts Options) error {
	c, err := Select(opts.File, opts.Case)
	if err != nil {
		return err
	}
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
	server, stop := newServer(c, logw)
	defer stop()
	if opts.Probe {
		p := StartProbe()
		defer func() { fmt.Fprintf(logw, "%s%.1f ms\n", StallPrefix, p.Stop()) }()
	}
	if opts.HTTP == "" {
		in, out := opts.Stdin, opts.Stdout
		if in == nil {
			in = os.Stdin
		}
		if out == nil {
			out = os.Stdout
		}
		fmt.Fprintf(logw, "waitsim serve: case %s over stdio\n", c.ID)
		err := server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
		if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || ctx.Err() != nil {
			return nil
		}
		return err
	}
	return serveHTTP(ctx, server, c.ID, opts, logw)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// newServer builds the MCP server of case c: the tool on the real clock with
// c's bridge on a wall-clock scheduler started by the first tools/call.
func newServer(c *scenario.Case, logw io.Writer) (*mcp.Server, func()) {
	w := waitagents.Reference().World(c)
	sched := newWallScheduler(logw)
	done := make(chan struct{})
	go sched.loop(done)
	// The case's cap (capMs: a replay of an earlier version) is served too.
	opts := waittool.Options{Clock: clock.New(), CapMs: w.CapMs, Observer: func(e waittool.Event) {
		sched.Logf(fmt.Sprintf("tool:%d", e.Call.ID), "%s %s (cost %d ms)", e.Kind, e.Detail, e.CostMs)
	}}
	if !w.NoBridge {
		opts.Bridge = waitagents.NewWorldBridge(sched, w)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "waitsim", Version: "serve"}, nil)
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				sched.start()
			}
			return next(ctx, method, req)
		}
	})
	waittool.Register(server, opts)
	guard(server, logw)
	return server, func() { close(done) }
}

func serveHTTP(ctx context.Context, server *mcp.Server, id string, opts Options, logw io.Writer) error {
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
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(logw, "waitsim serve: case %s\n%s%s (streamable HTTP, %s)\n", id, ListeningPrefix, url, mode)
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
