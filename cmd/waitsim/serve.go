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

	"github.com/waitsim/waitsim/scenarios"
	"github.com/waitsim/waitsim/serve"
)

const serveUsage = `usage: waitsim serve FILE.yaml [--case ID] [--http ADDR [--json-response] [--stateless]]`

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
	if *addr == "" && (*jsonResp || *stateless) {
		fmt.Fprintln(os.Stderr, "waitsim serve: --json-response and --stateless need --http")
		return 2
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
	err = serve.Run(ctx, serve.Options{File: file, Case: *id, HTTP: *addr, JSONResponse: *jsonResp, Stateless: *stateless, Probe: *probe})
	var fe *scenarios.FileError
	switch {
	case err == nil:
		fmt.Fprintln(os.Stderr, "waitsim serve: stopped")
		return 0
	case errors.As(err, &fe):
		printProblems(fe.Problems)
		return 2
	case errors.Is(err, serve.ErrUsage):
		fmt.Fprintln(os.Stderr, "waitsim serve:", err)
		return 2
	default:
		fmt.Fprintln(os.Stderr, "waitsim serve:", err)
		return 1
	}
}
