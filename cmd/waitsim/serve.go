package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/waitsim/waitsim/results"

	"github.com/waitsim/waitsim/serve"
)

const serveUsage = `usage: waitsim serve FILE.yaml [--case ID] [--http ADDR [--json-response] [--stateless] [--allow-origin ORIGIN]… [--session-idle D] [--max-sessions N]]`

// runServe implements `waitsim serve`. Exit codes: 0 stopped (SIGINT, SIGTERM,
// or the stdio client closed its end), 1 a server error (e.g. the address is
// taken), 2 usage or file errors (nothing served).
func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	id := fs.String("case", "", "the case id to serve (needed when the file holds several cases)")
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080; port 0 picks one) instead of stdio")
	jsonResp := fs.Bool("json-response", false, "with --http: answer calls with one JSON body instead of an SSE stream")
	probe := fs.Bool("probe", false, "log the largest scheduling stall of this process at exit (make conformance scales its tolerance by it)")
	stateless := fs.Bool("stateless", false, "with --http: no sessions (progress cannot reach the client with --json-response)")
	var origins []string
	fs.Func("allow-origin", "with --http: also accept this `ORIGIN` (scheme://host[:port]; repeatable); loopback origins are always accepted, any other gets 403", func(v string) error {
		origins = append(origins, v)
		return nil
	})
	idle := fs.Duration("session-idle", serve.DefaultSessionIdle, "with --http: close a session after this long with no request (0: never)")
	maxSessions := fs.Int("max-sessions", serve.DefaultMaxSessions, "with --http: how many sessions may be open at once (one more initialize gets 503)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), serveUsage)
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "Scenario times count from the first tool call. Logs go to stderr.")
		fmt.Fprintln(fs.Output(), "exit codes: 0 stopped (Ctrl-C, SIGTERM, or the stdio client closed its end), 1 server error, 2 usage or file errors")
	}
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintln(os.Stderr, serveUsage)
		return 2
	}
	if *addr == "" && (*jsonResp || *stateless || len(origins) > 0) {
		fmt.Fprintln(os.Stderr, "waitsim serve: --json-response, --stateless and --allow-origin need --http")
		return 2
	}
	if *addr != "" {
		if err := serve.ValidAddr(*addr); err != nil {
			fmt.Fprintln(os.Stderr, "waitsim serve:", err)
			return 2
		}
	}
	if *maxSessions < 1 || *idle < 0 {
		fmt.Fprintln(os.Stderr, "waitsim serve: --max-sessions must be at least 1 and --session-idle not negative")
		return 2
	}
	if *idle == 0 {
		*idle = -1 // serve.Options: negative is never
	}
	// An absolute path, as `waitsim run` gives the loader: the same file
	// gets the same "file:line:column" problems from both commands.
	file, err := filepath.Abs(files[0])
	if err == nil {
		_, err = os.Stat(file)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "waitsim: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The log never blocks the server, nor its last lines the exit: a
	// stderr that nobody reads would otherwise stall every call after
	// about 64 KiB and make SIGTERM wait for ever.
	logw := serve.NewLog(os.Stderr)
	defer logw.Close(time.Second)
	err = serve.Run(ctx, serve.Options{File: file, Case: *id, HTTP: *addr, JSONResponse: *jsonResp, Stateless: *stateless, Probe: *probe,
		AllowOrigins: origins, SessionIdle: *idle, MaxSessions: *maxSessions, Log: logw})
	var fe *results.FileError
	switch {
	case err == nil:
		fmt.Fprintln(logw, "waitsim serve: stopped")
		return 0
	case errors.As(err, &fe):
		printProblems(fe.Problems)
		return 2
	case errors.Is(err, serve.ErrUsage):
		fmt.Fprintln(os.Stderr, "waitsim serve:", err)
		return 2
	default:
		fmt.Fprintln(logw, "waitsim serve:", err)
		return 1
	}
}
