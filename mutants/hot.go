package mutants

import (
	"github.com/waitsim/waitsim/mutants/build"

	"github.com/waitsim/waitsim/mutants/campaign"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/workspace"
)

// The hot runner. A cold run of a mutant starts its test binary, which
// initializes every package it links, loads the table and runs it; most of
// a killed mutant's time went there. In hot mode (Config.Runner, the
// default) each worker keeps one process of the schemata binary up and
// sends it mutant after mutant over a pipe (package hot: results.HotRequest
// and results.HotReply, JSON values, never text to parse). The process
// turns the mutant's switch on — which also puts the mutated package's
// variables back to their values at init (build.HotReset) — runs the kill suite
// through its doors (waitsim.Run for the table, the pack's generator) as a
// run of its own would, and answers with the tests that failed, under the
// names that run would give them.
//
// The verdicts are the cold runner's:
//   - a request that does not answer within the mutant's timeout ends the
//     process and the mutant timed out (a cold run has strictly more to do
//     in the same time: it starts the process too);
//   - a process that dies, or cannot serve a request, costs a restart and
//     the mutant is judged by a cold run, never from a half-served request
//     (a panic, an exit, a world that deadlocks its bubble);
//   - a failure whose output names an error of the machine is judged by a
//     cold run too, which turns a persistent one into a campaign.EnvError;
//   - mutants that could change what the process holds before its first
//     request run cold: those whose switch changes a value chosen at init
//     (valueSwitch), and those whose functions ran before the first
//     request (the process's ready reply lists them: at init of another
//     package, in a test's setup); so do mutants built on their own
//     (overlay), whose binary is their own.
// TestHotSameVerdicts runs both runners on the same campaign.

// Runners (Config.Runner).
const (
	RunnerHot  = "hot"
	RunnerCold = "cold"
)

// worker is one of runAll's workers: its directory and its hot process.
type worker struct {
	id  int
	dir string
	hp  *hotProc
	// failures counts hot processes that did not come up: after two, the
	// worker runs cold.
	failures int
}

// hotProc is a hot process of the schemata binary.
type hotProc struct {
	cancel  context.CancelFunc
	enc     *json.Encoder
	reqW    *os.File
	replies chan results.HotReply // closed when the reply pipe ends
	exited  chan struct{}         // closed when the process has exited
	kinds   map[string]bool
	reached map[int]bool
	out     *tailBuffer // the end of its stdout and stderr
	seq     int
	pf      string // its params file
}

// hotSuite says why the kill suite cannot run in a hot process, or "":
// only a test that calls waitsim.Run (the door) serves hot requests, so
// the suite's -run pattern must select one.
func (r *runner) hotSuite() string {
	doors := workspace.DoorTests(r.suite.Dir)
	re, err := regexp.Compile(r.suite.Run)
	if err != nil || r.suite.Run == "" || strings.Contains(r.suite.Run, "/") {
		return fmt.Sprintf("the kill suite's -run pattern %q does not name its tests alone", r.suite.Run)
	}
	for _, d := range doors {
		if re.MatchString(d) {
			return ""
		}
	}
	return fmt.Sprintf("the kill suite %s %s selects no test that calls waitsim.Run, the door that serves a hot process", r.suite.Pkg, r.suite.Run)
}

// hotUsable reports whether mutant m runs in a hot process. The sanity
// mutant never does: every function of the target panics, which would end
// the process at its first request.
func (r *runner) hotUsable(m *mutant) bool {
	return r.hotOK && r.schemaBin != "" && m.switchN > 0 && !m.valueSwitch && m.res.Source != verdict.SourceSanity
}

// hotPattern is the -test.run pattern of a hot process: the suite's test,
// and the generator's when its campaign was asked for (both doors in one
// process; its baseline, which may turn it off, can still be running),
// unless its pattern names subtests (a '/'), which an alternation of the
// two would mangle: the generator then runs cold.
func (r *runner) hotPattern() string {
	if r.cfg.GenWorlds > 0 && !strings.Contains(r.cfg.GenRun, "/") {
		return "(" + r.suite.Run + ")|(" + r.cfg.GenRun + ")"
	}
	return r.suite.Run
}

// startHot starts a hot process for worker wk and waits for its ready
// reply.
func (r *runner) startHot(ctx context.Context, wk *worker) (*hotProc, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	hp := &hotProc{reqW: reqW, enc: json.NewEncoder(reqW), replies: make(chan results.HotReply, 1), exited: make(chan struct{}),
		out: &tailBuffer{n: 16 << 10}, pf: filepath.Join(r.tmp, fmt.Sprintf("hot-params-%d-%d.json", wk.id, r.paramsN.Add(1)))}
	// The pipes are the child's fds 3 and 4 (ExtraFiles).
	if err := results.WriteParams(hp.pf, results.Params{KillSuite: true, GenWorlds: r.cfg.GenWorlds, Hot: &results.HotPipes{In: 3, Out: 4}}); err != nil {
		reqR.Close()
		reqW.Close()
		repR.Close()
		repW.Close()
		return nil, err
	}
	pctx, cancel := context.WithCancel(ctx)
	hp.cancel = cancel
	args := []string{"-test.run", r.hotPattern(), "-test.v=true", "-test.parallel=8", "-test.paniconexit0"}
	cmd := r.command(pctx, r.suite.Dir, r.schemaBin, args...)
	cmd.Env = append(append([]string{}, cmd.Env...), results.ParamsEnv+"="+hp.pf, build.HotEnv+"=1")
	cmd.ExtraFiles = []*os.File{reqR, repW}
	cmd.Stdout, cmd.Stderr = hp.out, hp.out
	if err := cmd.Start(); err != nil {
		cancel()
		reqR.Close()
		reqW.Close()
		repR.Close()
		repW.Close()
		return nil, err
	}
	reqR.Close()
	repW.Close()
	go func() {
		defer close(hp.replies)
		defer repR.Close()
		dec := json.NewDecoder(repR)
		for {
			var rep results.HotReply
			if dec.Decode(&rep) != nil {
				return
			}
			select {
			case hp.replies <- rep:
			case <-pctx.Done(): // killed: nobody waits for it
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(hp.exited)
	}()
	timer := time.NewTimer(max(r.timeout, 30*time.Second))
	defer timer.Stop()
	select {
	case rep, ok := <-hp.replies:
		if !ok || rep.Seq != 0 {
			hp.kill()
			return nil, fmt.Errorf("the hot process ended before it was ready: %s", verdict.FirstLine(campaign.Tail(hp.out.String(), 600)))
		}
		hp.kinds, hp.reached = map[string]bool{}, map[int]bool{}
		for _, k := range rep.Kinds {
			hp.kinds[k] = true
		}
		for _, n := range rep.Reached {
			hp.reached[n] = true
		}
		return hp, nil
	case <-timer.C:
		hp.kill()
		return nil, errors.New("the hot process was not ready in time")
	case <-ctx.Done():
		hp.kill()
		return nil, ctx.Err()
	}
}

// kill ends the process (its whole group) and waits for it.
func (hp *hotProc) kill() {
	hp.cancel()
	hp.reqW.Close()
	<-hp.exited
	os.Remove(hp.pf)
}

// close asks the process to end, and kills it if it does not at once.
func (hp *hotProc) close() {
	_ = hp.enc.Encode(results.HotRequest{Kind: results.HotExit})
	hp.reqW.Close()
	select {
	case <-hp.exited:
	case <-time.After(2 * time.Second):
	}
	hp.kill()
}

// hotOutcome is how a hot request ended.
type hotOutcome int

const (
	hotServed   hotOutcome = iota // a reply
	hotTimedOut                   // no reply within the timeout: the process was ended
	hotLost                       // the process died or could not serve it: judge the mutant cold
)

// hotRun sends req to wk's hot process (started first if need be) and
// waits up to timeout for the reply. A process that is not usable for
// req's kind, or any failure to start one, is hotLost.
func (r *runner) hotRun(ctx context.Context, wk *worker, req results.HotRequest, timeout time.Duration) (results.HotReply, time.Duration, hotOutcome, error) {
	if wk.hp == nil {
		if wk.failures >= 2 {
			return results.HotReply{}, 0, hotLost, nil
		}
		hp, err := r.startHot(ctx, wk)
		if err != nil {
			if ctx.Err() != nil {
				return results.HotReply{}, 0, hotLost, ctx.Err()
			}
			wk.failures++
			r.note(fmt.Sprintf("worker %d: a hot process did not start (%v); its mutants ran cold", wk.id, err))
			return results.HotReply{}, 0, hotLost, nil
		}
		wk.hp = hp
	}
	hp := wk.hp
	if !hp.kinds[req.Kind] || hp.reached[req.Mutant] {
		return results.HotReply{}, 0, hotLost, nil
	}
	hp.seq++
	req.Seq = hp.seq
	start := time.Now()
	if err := hp.enc.Encode(req); err != nil {
		wk.drop()
		return results.HotReply{}, 0, hotLost, nil
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case rep, ok := <-hp.replies:
		wall := time.Since(start)
		if !ok || rep.Seq != req.Seq {
			wk.drop()
			return results.HotReply{}, wall, hotLost, nil
		}
		if rep.Error != "" {
			return rep, wall, hotLost, nil
		}
		return rep, wall, hotServed, nil
	case <-timer.C:
		wk.drop()
		return results.HotReply{}, time.Since(start), hotTimedOut, nil
	case <-ctx.Done():
		wk.drop()
		return results.HotReply{}, time.Since(start), hotLost, ctx.Err()
	}
}

// drop kills the worker's hot process; the next hot request starts another.
func (wk *worker) drop() {
	if wk.hp != nil {
		wk.hp.kill()
		wk.hp = nil
	}
}

// stop ends the worker's hot process at the end of the campaign.
func (wk *worker) stop() {
	if wk.hp != nil {
		wk.hp.close()
		wk.hp = nil
	}
}

// hotReport turns a hot reply into the report of a run of its own: the
// failed tests in order, the first one's output, exit 1 when any failed.
// machine is true when an output names an error of the machine: the
// caller then judges the mutant by a cold run.
func hotReport(rep results.HotReply, wall time.Duration, outcome hotOutcome) (rr runReport, machine bool) {
	rr.wall = wall
	rr.passed = rep.Passed
	if outcome == hotTimedOut {
		rr.timedOut = true
		rr.exit = -1
		return rr, false
	}
	for _, f := range rep.Failed {
		rr.failed = append(rr.failed, f.Test)
		if campaign.RunMachineCause(1, f.Output) != "" {
			machine = true
		}
	}
	if len(rep.Failed) > 0 {
		rr.exit = 1
		rr.output = campaign.Tail(rep.Failed[0].Output, 1500)
		rr.panic = panicLine(rep.Failed[0].Output)
	}
	return rr, machine
}

// hotTable runs mutant m's kill suite in wk's hot process. ok is false
// when the mutant is to be judged cold.
func (r *runner) hotTable(ctx context.Context, wk *worker, m *mutant) (runReport, bool, error) {
	req := results.HotRequest{Kind: results.HotTable, Mutant: m.switchN, StopAtFirst: !r.cfg.AllKillers}
	if !r.cfg.AllKillers {
		for _, n := range r.caseOrder(m) {
			if ref, ok := r.caseFiles[n]; ok {
				req.Order = append(req.Order, ref)
			}
		}
	}
	rep, wall, outcome, err := r.hotRun(ctx, wk, req, r.timeout)
	if err != nil || outcome == hotLost {
		return runReport{}, false, err
	}
	rr, machine := hotReport(rep, wall, outcome)
	if machine {
		return runReport{}, false, nil
	}
	r.hotRuns.Add(1)
	return rr, true, nil
}

// hotGen runs the generator on mutant m in wk's hot process; ok as
// hotTable's.
func (r *runner) hotGen(ctx context.Context, wk *worker, m *mutant) (runReport, bool, error) {
	req := results.HotRequest{Kind: results.HotGenerator, Mutant: m.switchN, GenWorlds: r.cfg.GenWorlds}
	rep, wall, outcome, err := r.hotRun(ctx, wk, req, r.gen.timeout)
	if err != nil || outcome == hotLost {
		return runReport{}, false, err
	}
	rr, machine := hotReport(rep, wall, outcome)
	if machine {
		return runReport{}, false, nil
	}
	return rr, true, nil
}

// note adds a note to the result, once.
func (r *runner) note(s string) {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	for _, n := range r.notes {
		if n == s {
			return
		}
	}
	r.notes = append(r.notes, s)
}

// tailBuffer keeps the last n bytes written to it. Safe for concurrent
// use.
type tailBuffer struct {
	mu sync.Mutex
	n  int
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.n {
		t.b = append(t.b[:0:0], t.b[len(t.b)-t.n:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) > t.n {
		return string(t.b[len(t.b)-t.n:])
	}
	return string(t.b)
}

var _ io.Writer = (*tailBuffer)(nil)
