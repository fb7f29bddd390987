package waitsim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/waitsim/waitsim/check"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/serve"
)

// usageError is what makes serving a case a usage error
// (results.ServeUsage): nothing is served.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// serveStdio is the client's end of a served case over stdio: the file
// descriptors the command passed (results.ServeParams.StdinFD, StdoutFD;
// descriptors 0 to 2 are the test binary's own).
func serveStdio(sp results.ServeParams) (io.Reader, io.Writer, error) {
	if sp.StdinFD < 3 || sp.StdoutFD < 3 {
		return nil, nil, fmt.Errorf("over stdio the command passes the client's stdin and stdout as file descriptors of 3 and up; the params give %d and %d", sp.StdinFD, sp.StdoutFD)
	}
	in, out := os.NewFile(uintptr(sp.StdinFD), "stdin"), os.NewFile(uintptr(sp.StdoutFD), "stdout")
	for _, f := range []*os.File{in, out} {
		if _, err := f.Stat(); err != nil {
			return nil, nil, fmt.Errorf("the client's stdio: file descriptor %d: %v", f.Fd(), err)
		}
	}
	return in, out, nil
}

// serveCase is Run in serve mode (results.Params.Serve): it loads the file
// with the pack's load options, selects the case, builds the case's server
// through the pack (check.Server) and serves it (serve.Run) until SIGINT,
// SIGTERM or the stdio client's end. How it ended goes to the results file
// (results.RunResult.Serve, or the file's Problems); anything but a clean
// stop fails t. The log goes to stderr and never blocks the server.
func (r *runner) serveCase(sp results.ServeParams) {
	out := &results.ServeResult{}
	r.mu.Lock()
	r.run.Serve = out
	r.mu.Unlock()
	err := r.serveCaseErr(sp, out)
	r.mu.Lock()
	switch {
	case err == nil:
		out.Outcome = results.ServeStopped
	case errors.As(err, new(usageError)) || errors.Is(err, serve.ErrUsage):
		out.Outcome, out.Error = results.ServeUsage, err.Error()
	default:
		out.Outcome, out.Error = results.ServeFailed, err.Error()
	}
	r.mu.Unlock()
	if err != nil {
		r.t.Fatalf("waitsim serve: %v", err)
	}
}

func (r *runner) serveCaseErr(sp results.ServeParams, out *results.ServeResult) error {
	srv, ok := r.pack.(check.Server)
	if !ok {
		return usagef("the pack %s cannot serve a case to real clients (it implements no check.Server)", r.pack.Name())
	}
	cases, err := scenario.Load([]string{sp.File}, r.opts)
	if err != nil {
		var fe *results.FileError
		if errors.As(err, &fe) {
			r.record(fe) // the problems, as records
			return usagef("%d problem(s) in the scenario file; nothing served:\n%s", len(fe.Problems), fe.Error())
		}
		return err
	}
	c, err := selectCase(cases, r.rel(sp.File), sp.Case)
	if err != nil {
		return err
	}
	out.Case = c.ID
	if sp.HTTP != "" {
		if err := serve.ValidAddr(sp.HTTP); err != nil {
			return err
		}
	}
	logw := serve.NewLog(os.Stderr)
	defer logw.Close(time.Second)
	server, stop, err := srv.NewServer(c, logw)
	if err != nil {
		return usageError{err}
	}
	defer stop()
	opts := serve.Options{Name: "case " + c.ID, HTTP: sp.HTTP, JSONResponse: sp.JSONResponse, Stateless: sp.Stateless,
		NoEventStore: sp.NoEventStore, AllowOrigins: sp.AllowOrigins, SessionIdle: time.Duration(sp.SessionIdleMs) * time.Millisecond,
		MaxSessions: sp.MaxSessions, Probe: sp.Probe, Log: logw}
	if sp.HTTP == "" {
		if opts.Stdin, opts.Stdout, err = serveStdio(sp); err != nil {
			return err
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := serve.Run(ctx, server, opts); err != nil {
		fmt.Fprintln(logw, "waitsim serve:", err)
		return err
	}
	fmt.Fprintln(logw, "waitsim serve: stopped")
	return nil
}

// selectCase is the case of cases with id, or the only one when id is "";
// a missing or ambiguous id is a usage error listing the file's cases.
func selectCase(cases []scenario.Case, file, id string) (*scenario.Case, error) {
	var ids []string
	for i := range cases {
		if cases[i].ID == id || (id == "" && len(cases) == 1) {
			return &cases[i], nil
		}
		ids = append(ids, cases[i].ID)
	}
	sort.Strings(ids)
	if id == "" {
		return nil, usagef("%s holds %d cases; choose one with --case: %s", file, len(ids), strings.Join(ids, ", "))
	}
	return nil, usagef("%s has no case %q; its cases: %s", file, id, strings.Join(ids, ", "))
}
