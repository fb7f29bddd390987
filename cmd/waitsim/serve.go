package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/serve"
	"github.com/waitsim/waitsim/suitebin"
	"github.com/waitsim/waitsim/workspace"
)

const serveUsage = `usage: waitsim serve FILE.yaml [--case ID] [--pkg DIR --test NAME] [--probe] [--http ADDR [--json-response] [--stateless] [--event-store=false] [--allow-origin ORIGIN]… [--session-idle D] [--max-sessions N]]`

// serveStopGrace is how long `waitsim serve` waits for the test binary to
// stop after it forwarded SIGINT or SIGTERM, before it kills it.
const serveStopGrace = 10 * time.Second

// serveOutputTail is how much of the test binary's own stdout `waitsim
// serve` keeps, to show when the binary ends without a result.
const serveOutputTail = 64 << 10

// runServe implements `waitsim serve`. A case is served by the test binary
// of the module's suite (the test that calls waitsim.Run), as `waitsim run`
// runs the table: the binary is built once and reused (suitebin), and the
// door serves the case through its pack (results.Params.Serve). The module
// is the one that holds FILE (else the working directory's); in waitsim's
// own, the suite is the reference tool's table. Exit codes: 0 stopped
// (SIGINT, SIGTERM, or the stdio client closed its end), 1 a server error
// (e.g. the address is taken), 2 usage or file errors (nothing served).
func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	id := fs.String("case", "", "the case id to serve (needed when the file holds several cases)")
	pkg := fs.String("pkg", "", "the package of the test that calls waitsim.Run (default: the only one; in waitsim's own module "+workspace.OwnSuitePkg+")")
	test := fs.String("test", "", "the test function that calls waitsim.Run (default: the only one; in waitsim's own module "+workspace.OwnSuiteTest+")")
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080; port 0 picks one) instead of stdio")
	jsonResp := fs.Bool("json-response", false, "with --http: answer calls with one JSON body instead of an SSE stream")
	probe := fs.Bool("probe", false, "log at exit, as one JSON line, the largest scheduling stall of the serving process since its first tool call and that call's wall-clock instant (make conformance scales its tolerance by the one and measures the start lag by the other)")
	stateless := fs.Bool("stateless", false, "with --http: no sessions (progress cannot reach the client with --json-response)")
	eventStore := fs.Bool("event-store", true, "with --http, stateful: keep an event store, so that SSE events carry ids and a client resumes a cut stream (Last-Event-ID); =false serves streams no client can resume")
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
		fmt.Fprintln(fs.Output(), "The case is served by the test binary of the module's test that calls waitsim.Run (built once, reused), through its pack.")
		fmt.Fprintln(fs.Output(), "The module is the one that holds FILE.yaml (else the working directory's). Scenario times count from the first tool call. Logs go to stderr.")
		fmt.Fprintln(fs.Output(), "exit codes: 0 stopped (Ctrl-C, SIGTERM, or the stdio client closed its end), 1 server error, 2 usage or file errors")
	}
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if len(files) != 1 {
		fmt.Fprintln(os.Stderr, serveUsage)
		return 2
	}
	if *addr == "" && (*jsonResp || *stateless || len(origins) > 0 || set["event-store"]) {
		fmt.Fprintln(os.Stderr, "waitsim serve: --json-response, --stateless, --event-store and --allow-origin need --http")
		return 2
	}
	if *stateless && *eventStore && set["event-store"] {
		fmt.Fprintln(os.Stderr, "waitsim serve: --event-store needs sessions: not with --stateless")
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
	idleMs := idle.Milliseconds()
	if *idle == 0 {
		idleMs = -1 // results.ServeParams: negative is never
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
	// The log never blocks this process, nor its last lines the exit: a
	// stderr that nobody reads would otherwise make SIGTERM wait for ever.
	logw := serve.NewLog(os.Stderr)
	defer logw.Close(time.Second)
	st, ok := serveSuite(logw, file, *pkg, *test)
	if !ok {
		return 2
	}
	sp := results.ServeParams{File: file, Case: *id, HTTP: *addr, JSONResponse: *jsonResp, Stateless: *stateless,
		NoEventStore: !*eventStore, AllowOrigins: origins, SessionIdleMs: idleMs, MaxSessions: *maxSessions, Probe: *probe}
	return serveCase(logw, st, sp)
}

// serveSuite is the suite that serves file: the module that holds file
// (else the working directory's), its test that calls waitsim.Run (pkg
// and test pick one; in waitsim's own module the reference tool's table).
// ok is false when there is none (printed).
func serveSuite(logw io.Writer, file, pkg, test string) (st workspace.Suite, ok bool) {
	root, err := workspace.ModuleRootOf(filepath.Dir(file))
	if err != nil {
		if root, err = workspace.ModuleRoot(); err != nil {
			fmt.Fprintln(logw, "waitsim serve:", err)
			return st, false
		}
	}
	if workspace.IsOwn(root) && pkg == "" && test == "" {
		pkg, test = workspace.OwnSuitePkg, workspace.OwnSuiteTest
	}
	st, err = workspace.FindSuite(root, pkg, test)
	if err != nil {
		fmt.Fprintln(logw, "waitsim serve:", err)
		return st, false
	}
	return st, true
}

// serveCase builds (or reuses) the test binary of st and runs it to serve
// sp: over stdio it hands the binary its own stdin and stdout as its
// descriptors 3 and 4 (results.ServeParams.StdinFD, StdoutFD); SIGINT and
// SIGTERM are forwarded to it. The exit code follows the results file the
// binary writes.
func serveCase(logw io.Writer, st workspace.Suite, sp results.ServeParams) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	// A run directory (removed by the next run if this one is killed) for
	// the params, the results and a binary that cannot be cached.
	scratch, err := workspace.MakeRunDir("waitsim-serve-")
	if err != nil {
		fmt.Fprintln(logw, "waitsim serve:", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var bin suitebin.Result
	built := make(chan struct{})
	go func() {
		defer close(built)
		bin, err = suitebin.Binary(ctx, suitebin.Options{Root: st.Root, Pkg: st.Pkg, Dir: os.Getenv(suiteBinDirEnv), Scratch: scratch, Command: workspace.GroupCommand})
	}()
	select {
	case s := <-sigs:
		cancel()
		<-built
		fmt.Fprintf(logw, "waitsim serve: %v before serving; stopped\n", s)
		return 0
	case <-built:
	}
	if err != nil {
		fmt.Fprintln(logw, "waitsim serve:", err)
		fmt.Fprintf(logw, "waitsim serve: nothing served (the test binary of %s did not build)\n", st.Pkg)
		return 2
	}
	if sp.HTTP == "" {
		sp.StdinFD, sp.StdoutFD = 3, 4 // cmd.ExtraFiles below
	}
	pf, rf := filepath.Join(scratch, "params.json"), filepath.Join(scratch, "results.json")
	if err := results.WriteParams(pf, results.Params{Results: rf, Serve: &sp}); err != nil {
		fmt.Fprintln(logw, "waitsim serve:", err)
		return 2
	}
	// What `go test <pkg> -run '^Test$'` passes, without its time limit (a
	// server runs until it is stopped), run where go test runs it.
	cmd := workspace.AttachedCommand(bin.Path, "-test.paniconexit0", "-test.timeout=0", "-test.count=1", "-test.run", st.RunPattern())
	cmd.Dir = st.Dir()
	cmd.Env = append(os.Environ(), results.ParamsEnv+"="+pf)
	tail := &tailWriter{max: serveOutputTail}
	cmd.Stdout, cmd.Stderr = tail, os.Stderr // the testing package's own output; the server's log
	if sp.HTTP == "" {
		// ExtraFiles[i] is the binary's descriptor 3+i: sp.StdinFD, sp.StdoutFD.
		cmd.ExtraFiles = []*os.File{os.Stdin, os.Stdout}
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(logw, "waitsim serve:", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var kill <-chan time.Time
	var waitErr error
	signalled := false
	for waiting := true; waiting; {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
			signalled = true
			if kill == nil {
				kill = time.After(serveStopGrace)
			}
		case <-kill:
			fmt.Fprintf(logw, "waitsim serve: the server did not stop within %v of the signal; killed\n", serveStopGrace)
			_ = cmd.Process.Kill()
		case waitErr = <-done:
			waiting = false
		}
	}
	res, err := results.ReadRun(rf)
	switch {
	case err != nil && signalled:
		// Stopped before it could serve (a signal while the binary
		// started, before it took over SIGINT and SIGTERM).
		fmt.Fprintln(logw, "waitsim serve: stopped")
		return 0
	case err != nil || (res.Serve == nil && len(res.Problems) == 0):
		_, _ = logw.Write(tail.bytes())
		fmt.Fprintf(logw, "waitsim serve: the test binary of %s %s ended (%v) without a result\n", st.Pkg, st.Test, waitErr)
		return 1
	case len(res.Problems) > 0:
		fprintProblems(logw, res.Problems)
		return 2
	}
	switch res.Serve.Outcome {
	case results.ServeStopped:
		return 0
	case results.ServeUsage:
		fmt.Fprintln(logw, "waitsim serve:", res.Serve.Error)
		return 2
	default:
		fmt.Fprintln(logw, "waitsim serve:", res.Serve.Error)
		return 1
	}
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	mu  sync.Mutex
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.max {
		w.buf = append([]byte(nil), w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.buf...)
}
