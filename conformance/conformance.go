package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/waitsim/waitsim/serve"
)

// ReportVersion is the version of out/conformance.json.
const ReportVersion = 1

// Clients and transports a run can use.
const (
	ClientTS = "ts" // the official TypeScript SDK client (npm @modelcontextprotocol/sdk)
	ClientGo = "go" // the official Go SDK client (github.com/modelcontextprotocol/go-sdk)

	TransportStdio = "stdio" // the client starts `waitsim serve FILE` and speaks over its stdin/stdout
	TransportSSE   = "sse"   // streamable HTTP, a call answered on an SSE stream
	TransportJSON  = "json"  // streamable HTTP with --json-response: one JSON body per call
)

// DefaultToleranceMs is the floor of the tolerance on |real − simulated|
// for resolve times and remainingMs; a run's tolerance is the larger of it
// and StallFactor × the largest stall seen (serve.Probe, in the runner while
// the case ran and in the run's server).
//
// Measured on this project's 2-core machine while five other engineers built
// and tested on it (load average 10–24), over 3 conformance runs (78 client
// runs, 222 calls, both clients, all three transports): the median |real −
// simulated| was 40 ms; in cases whose probe saw stalls under 34 ms the
// largest was 61 ms. The floor leaves 2.5 times that.
const DefaultToleranceMs = 150

// StallFactor scales the probe's largest stall into a case's tolerance. A
// stall the probe sees is not the one a server or client process suffers, and
// one stall can count several times: it delays a reply once by itself, once
// more when it lands in a bridge read (the read's cost then doubles the read
// reserve, contract §2 step 6, and the call ends early), and again in the
// next call of a chain. In the measurements above (DefaultToleranceMs) the
// largest |real − simulated| was 3.6 times the case's probe stall.
const StallFactor = 4

// Options configure Run.
type Options struct {
	// Cases are the conformance scenarios; Sim holds the simulation's result
	// for each, by case id (from the scenario runner, out/scenarios.json's shape).
	Cases []scenario.Case
	Sim   map[string]results.CaseResult
	// Waitsim is the waitsim binary that serves (`waitsim serve`).
	Waitsim string
	// TSClient is tsclient/client.mjs in a directory where `npm ci` installed
	// its package-lock.json; Node runs it.
	TSClient string
	// Clients and Transports to run (default: all).
	Clients    []string
	Transports []string
	// ToleranceMs is the tolerance floor: 0 means DefaultToleranceMs.
	ToleranceMs float64
	// Runs repeats everything this many times (0 means 1).
	Runs int
	// LogDir receives each server's log (stderr), one file a run.
	LogDir string
	// Progress, when not nil, gets one line per finished run.
	Progress io.Writer
}

// Report is the whole of out/conformance.json: the "simulation vs real" table.
type Report struct {
	Version int    `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// ToleranceMs is the tolerance floor; StallFactor scales the probe's
	// largest stall of a run into its tolerance (RunEntry.ToleranceMs).
	ToleranceMs float64 `json:"toleranceMs"`
	StallFactor float64 `json:"stallFactor"`
	// MaxStallMs is the largest stall seen in all runs (RunEntry.StallMs).
	MaxStallMs float64 `json:"maxStallMs"`
	// Agree: every call of every run agreed with the simulation, and every
	// HTTP server stopped with exit 0 on SIGINT.
	Agree bool `json:"agree"`
	// Runs counts the client runs; Calls the calls compared in all.
	Runs  int `json:"runs"`
	Calls int `json:"calls"`
	// Disagreements counts the calls with a mismatch; LostOutputs the real
	// replies that lost outputs the simulation has (contract §2 step 12).
	Disagreements int     `json:"disagreements"`
	LostOutputs   int     `json:"lostOutputs"`
	MaxAbsDiffMs  float64 `json:"maxAbsDiffMs"` // over every compared call
	WallMs        float64 `json:"wallMs"`
	// Profiles sums up per client and transport; Results are every run.
	Profiles []Profile  `json:"profiles"`
	Results  []RunEntry `json:"results"`
}

// Profile sums up the runs of one client over one transport.
type Profile struct {
	Client        string  `json:"client"`
	Transport     string  `json:"transport"`
	Runs          int     `json:"runs"`
	Calls         int     `json:"calls"`
	Disagreements int     `json:"disagreements"`
	LostOutputs   int     `json:"lostOutputs"`
	MaxAbsDiffMs  float64 `json:"maxAbsDiffMs"`
}

// RunEntry is one client's run of one case over one transport.
type RunEntry struct {
	Case      string `json:"case"`
	File      string `json:"file"`
	Client    string `json:"client"`
	Transport string `json:"transport"`
	Run       int    `json:"run"` // 1-based repetition
	Agree     bool   `json:"agree"`
	// Error: the run did not complete (the server or the client failed).
	Error string `json:"error,omitempty"`
	// ServeExit is the HTTP server's exit code after SIGINT (-1: none, stdio).
	ServeExit int `json:"serveExit"`
	// StallMs is the largest stall seen while the case ran, by the runner's
	// probe or by this run's server (`waitsim serve --probe`); ToleranceMs
	// the tolerance it gave (see Report).
	StallMs      float64          `json:"stallMs"`
	ToleranceMs  float64          `json:"toleranceMs"`
	MaxAbsDiffMs float64          `json:"maxAbsDiffMs"`
	WallMs       float64          `json:"wallMs"`
	Log          string           `json:"log,omitempty"` // the server's log file
	Calls        []CallComparison `json:"calls"`

	observed      []Observed // what the client saw, until judged
	serverStallMs float64    // the largest stall its server's probe saw
}

// serverStall returns the largest stall the server's probe logged (0 if it
// did not): from an HTTP server's stderr, or from a stdio server's log file.
func serverStall(srv *server, logFile string) float64 {
	if srv != nil {
		return srv.stallMs
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		return 0
	}
	var ms float64
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, serve.StallPrefix); ok {
			fmt.Sscanf(v, "%f", &ms)
		}
	}
	return ms
}

// ErrNoSimulation: a case has no simulation result to compare with.
var ErrNoSimulation = errors.New("no simulation result")

// Run runs every case with every client over every transport — a case's
// client runs in parallel, one server each, cases one after another — and
// compares each with the simulation. It returns an error only when it could
// not run at all; disagreements are in the Report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if len(opts.Clients) == 0 {
		opts.Clients = []string{ClientTS, ClientGo}
	}
	if len(opts.Transports) == 0 {
		opts.Transports = []string{TransportStdio, TransportSSE, TransportJSON}
	}
	if opts.ToleranceMs == 0 {
		opts.ToleranceMs = DefaultToleranceMs
	}
	opts.Runs = max(opts.Runs, 1)
	for _, c := range opts.Cases {
		if _, ok := opts.Sim[c.ID]; !ok {
			return nil, fmt.Errorf("%w for case %s", ErrNoSimulation, c.ID)
		}
		if _, err := eventStore(c); err != nil {
			return nil, err
		}
	}
	if opts.LogDir != "" {
		if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	rep := &Report{Version: ReportVersion, ToleranceMs: opts.ToleranceMs, StallFactor: StallFactor}
	for run := 1; run <= opts.Runs; run++ {
		for _, c := range opts.Cases {
			var pr *serve.Probe
			bar := newBarrier(len(opts.Clients)*len(opts.Transports), func() { pr = serve.StartProbe() })
			var wg sync.WaitGroup
			entries := make([]RunEntry, 0, len(opts.Clients)*len(opts.Transports))
			var mu sync.Mutex
			for _, client := range opts.Clients {
				for _, tr := range opts.Transports {
					wg.Add(1)
					go func() {
						defer wg.Done()
						tk := &ticket{b: bar}
						defer tk.leave()
						e := runOne(ctx, opts, c, client, tr, run, tk)
						mu.Lock()
						entries = append(entries, e)
						mu.Unlock()
					}()
				}
			}
			wg.Wait()
			<-bar.release
			stall := pr.Stop()
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for i := range entries {
				judge(&entries[i], opts.Sim[c.ID].Calls, stall, opts.ToleranceMs)
				if e := entries[i]; opts.Progress != nil {
					verdict := "agrees"
					if !e.Agree {
						verdict = "DISAGREES"
					}
					fmt.Fprintf(opts.Progress, "conformance: %-24s %-2s %-5s run %d: %s (max |diff| %.1f ms, tolerance %.0f ms)\n",
						c.ID, e.Client, e.Transport, run, verdict, e.MaxAbsDiffMs, e.ToleranceMs)
				}
			}
			sort.Slice(entries, func(i, j int) bool {
				if entries[i].Client != entries[j].Client {
					return entries[i].Client < entries[j].Client
				}
				return entries[i].Transport < entries[j].Transport
			})
			rep.Results = append(rep.Results, entries...)
		}
	}
	rep.WallMs = float64(time.Since(start).Milliseconds())
	summarize(rep)
	return rep, nil
}

// summarize fills the report's totals and profiles from its results.
func summarize(rep *Report) {
	rep.Agree = len(rep.Results) > 0
	prof := map[[2]string]*Profile{}
	var order [][2]string
	for _, e := range rep.Results {
		k := [2]string{e.Client, e.Transport}
		p := prof[k]
		if p == nil {
			p = &Profile{Client: e.Client, Transport: e.Transport}
			prof[k] = p
			order = append(order, k)
		}
		p.Runs++
		rep.Runs++
		if !e.Agree {
			rep.Agree = false
		}
		for _, c := range e.Calls {
			p.Calls++
			rep.Calls++
			if len(c.Mismatches) > 0 {
				p.Disagreements++
				rep.Disagreements++
			}
			if c.LostOutputs {
				p.LostOutputs++
				rep.LostOutputs++
			}
		}
		p.MaxAbsDiffMs = math.Max(p.MaxAbsDiffMs, e.MaxAbsDiffMs)
		rep.MaxAbsDiffMs = math.Max(rep.MaxAbsDiffMs, e.MaxAbsDiffMs)
		rep.MaxStallMs = math.Max(rep.MaxStallMs, e.StallMs)
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i][0] != order[j][0] {
			return order[i][0] < order[j][0]
		}
		return order[i][1] < order[j][1]
	})
	rep.Profiles = nil
	for _, k := range order {
		rep.Profiles = append(rep.Profiles, *prof[k])
	}
}

// runOne runs one client over one transport against a fresh server of case c.
// Its client connects and warms up, then waits at tk for the other clients.
func runOne(ctx context.Context, opts Options, c scenario.Case, client, transport string, run int, tk *ticket) RunEntry {
	start := time.Now()
	e := RunEntry{Case: c.ID, File: c.File, Client: client, Transport: transport, Run: run, ServeExit: -1}
	if opts.LogDir != "" {
		e.Log = filepath.Join(opts.LogDir, fmt.Sprintf("%s.%s.%s.%d.log", safe(c.ID), client, transport, run))
		_ = os.Remove(e.Log)
	}
	args, err := serveArgs(c, transport)
	if err != nil {
		e.Error = err.Error()
		return e
	}
	plan := Plan{Callers: c.World().Callers}
	var srv *server
	if transport == TransportStdio {
		plan.Command = append([]string{opts.Waitsim}, args...)
		plan.StderrFile = e.Log
	} else {
		if srv, err = startServer(opts.Waitsim, args, e.Log); err != nil {
			e.Error = err.Error()
			return e
		}
		plan.URL = srv.url
	}
	var out clientOutput
	switch client {
	case ClientGo:
		out = runGoClient(ctx, plan, tk.arrive)
	case ClientTS:
		out = runTSClient(ctx, opts.TSClient, plan, e.Log, tk.arrive)
	default:
		out.Error = "unknown client " + client
	}
	if srv != nil {
		e.ServeExit = srv.stop()
	}
	e.Error = out.Error
	if srv != nil && e.ServeExit != 0 && e.Error == "" {
		e.Error = fmt.Sprintf("waitsim serve exited %d after SIGINT (want 0)", e.ServeExit)
	}
	e.observed = out.Calls
	e.serverStallMs = serverStall(srv, e.Log)
	e.WallMs = float64(time.Since(start).Milliseconds())
	return e
}

// judge compares run e with the simulation's calls under the tolerance
// max(floorMs, StallFactor × the larger of caseStallMs, the runner's probe
// while the case ran, and the stall e's own server logged).
func judge(e *RunEntry, sim []results.CallSummary, caseStallMs, floorMs float64) {
	stallMs := math.Max(caseStallMs, e.serverStallMs)
	e.StallMs = stallMs
	e.ToleranceMs = math.Ceil(math.Max(floorMs, StallFactor*stallMs))
	e.Calls = compare(sim, e.observed, e.ToleranceMs)
	e.Agree = e.Error == ""
	for _, cc := range e.Calls {
		if len(cc.Mismatches) > 0 {
			e.Agree = false
		}
		e.MaxAbsDiffMs = math.Max(e.MaxAbsDiffMs, math.Abs(cc.DiffMs))
	}
}

// serveArgs are the arguments of `waitsim serve` for case c over
// transport: the case, the probe, and over HTTP the address (a port the
// kernel picks), the response mode and the event store exactly as the
// case's transport says (eventStore), so that the real outcome is compared
// with the simulation's prediction for the same world.
func serveArgs(c scenario.Case, transport string) ([]string, error) {
	args := []string{"serve", c.File, "--case", c.ID, "--probe"}
	if transport == TransportStdio {
		return args, nil
	}
	store, err := eventStore(c)
	if err != nil {
		return nil, err
	}
	args = append(args, "--http", "127.0.0.1:0", fmt.Sprintf("--event-store=%v", store))
	if transport == TransportJSON {
		args = append(args, "--json-response")
	}
	return args, nil
}

// eventStore reports whether case c's transport keeps an event store
// (transport: {eventStore: true}). One server serves every caller of a
// run, so callers whose own transports disagree on it are an error.
func eventStore(c scenario.Case) (bool, error) {
	store := c.Scenario.Transport != nil && c.Scenario.Transport.EventStore
	for _, cl := range c.Scenario.Callers {
		if cl.Transport != nil && cl.Transport.EventStore != store {
			return false, fmt.Errorf("case %s: caller %s's transport says eventStore: %v, the case's %v; one server serves every caller of a conformance run", c.ID, cl.Name, cl.Transport.EventStore, store)
		}
	}
	return store, nil
}

func safe(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '[' || r == ']' || r == '=' || r == ',' || r == '/' || r == ' ' {
			return '_'
		}
		return r
	}, id)
}

// runTSClient runs plan with node and the TypeScript SDK client script:
// the plan on stdin, "ready" back once connected, then ready() (which waits
// for the other clients), "go", and the result as JSON on stdout.
func runTSClient(ctx context.Context, script string, plan Plan, logFile string, ready func()) clientOutput {
	in, _ := json.Marshal(plan)
	cmd := exec.CommandContext(ctx, "node", script)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return clientOutput{Error: err.Error()}
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return clientOutput{Error: err.Error()}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return clientOutput{Error: "TypeScript client: " + err.Error()}
	}
	_, _ = stdin.Write(append(in, '\n'))
	stdout := bufio.NewReader(pipe)
	if line, _ := stdout.ReadString('\n'); line == "ready\n" {
		ready()
		_, _ = io.WriteString(stdin, "go\n")
	}
	stdin.Close()
	rest, _ := io.ReadAll(stdout)
	err = cmd.Wait()
	var out clientOutput
	if jerr := json.Unmarshal(rest, &out); jerr != nil {
		msg := strings.TrimSpace(stderr.String())
		if err != nil {
			msg = err.Error() + ": " + msg
		}
		return clientOutput{Error: "TypeScript client: " + msg}
	}
	if stderr.Len() > 0 && logFile != "" {
		if f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			fmt.Fprintf(f, "--- TypeScript client stderr:\n%s", stderr.String())
			f.Close()
		}
	}
	return out
}

// server is one `waitsim serve --http` process.
type server struct {
	cmd     *exec.Cmd
	url     string
	done    chan struct{} // closed when its log is fully copied
	stallMs float64       // its probe's largest stall, once done
}

// startServer starts waitsim with args and waits for its "listening on" line.
func startServer(bin string, args []string, logFile string) (*server, error) {
	cmd := exec.Command(bin, args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	var log io.Writer = io.Discard
	var f *os.File
	if logFile != "" {
		if f, err = os.Create(logFile); err != nil {
			return nil, err
		}
		log = f
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	urlc := make(chan string, 1)
	go func() {
		defer close(s.done)
		if f != nil {
			defer f.Close()
		}
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(log, line)
			if u, ok := strings.CutPrefix(line, serve.ListeningPrefix); ok {
				urlc <- strings.Fields(u)[0]
			}
			if v, ok := strings.CutPrefix(line, serve.StallPrefix); ok {
				fmt.Sscanf(v, "%f", &s.stallMs)
			}
		}
	}()
	select {
	case u := <-urlc:
		s.url = u
		return s, nil
	case <-s.done:
		_ = cmd.Wait()
		return nil, fmt.Errorf("waitsim %s: exited before listening (see %s)", strings.Join(args, " "), logFile)
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("waitsim %s: not listening after 30 s", strings.Join(args, " "))
	}
}

// stop sends SIGINT (Ctrl-C) and returns the exit code (-1 if killed after 10 s).
func (s *server) stop() int {
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	t := time.AfterFunc(10*time.Second, func() { _ = s.cmd.Process.Kill() })
	defer t.Stop()
	<-s.done
	err := s.cmd.Wait()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
