package mutants

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/waitsim/waitsim/mutants/testrun"
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
// variables back to their values at init (testbin.HotReset) — runs the kill suite
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

// worker is one of runAll's workers: its directory and its hot process.
type worker struct {
	id  int
	dir string
	hp  *testrun.HotProc
	// failures counts hot processes that did not come up: after two, the
	// worker runs cold.
	failures int
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
	return r.hotOK && r.schemaBin != "" && m.switchN > 0 && !m.valueSwitch && !m.coldHint && m.res.Source != verdict.SourceSanity
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

// startHot starts a hot process of the schemata binary for worker wk and
// waits for its ready reply.
func (r *runner) startHot(ctx context.Context, wk *worker) (*testrun.HotProc, error) {
	return r.testrun().StartHot(ctx, r.schemaBin, r.hotPattern(), wk.id, r.cfg.GenWorlds, r.timeout, max(r.timeout, 30*time.Second))
}

// hotRun sends req to wk's hot process (started first if need be) and
// waits up to timeout for the reply. A process that is not usable for
// req's kind, or any failure to start one, is testrun.HotLost.
func (r *runner) hotRun(ctx context.Context, wk *worker, m *mutant, req results.HotRequest, timeout time.Duration) (results.HotReply, time.Duration, testrun.HotOutcome, error) {
	if wk.hp == nil {
		if wk.failures >= 2 {
			return results.HotReply{}, 0, testrun.HotLost, nil
		}
		hp, err := r.startHot(ctx, wk)
		if err != nil {
			if ctx.Err() != nil {
				return results.HotReply{}, 0, testrun.HotLost, ctx.Err()
			}
			wk.failures++
			r.note(fmt.Sprintf("worker %d: a hot process did not start (%v); its mutants ran cold", wk.id, err))
			return results.HotReply{}, 0, testrun.HotLost, nil
		}
		wk.hp = hp
	}
	if !wk.hp.Serves(req.Kind, req.Mutant) {
		return results.HotReply{}, 0, testrun.HotLost, nil
	}
	rep, wall, outcome, dead, err := wk.hp.Send(ctx, req, timeout)
	if dead {
		wk.drop()
		if outcome == testrun.HotLost && err == nil {
			r.hotDeaths.Add(1)
			r.hints.Died(m.res.ID, m.res.Diff) // it died on m: cold from the start next time
		}
	}
	return rep, wall, outcome, err
}

// drop kills the worker's hot process; the next hot request starts another.
func (wk *worker) drop() {
	if wk.hp != nil {
		wk.hp.Kill()
		wk.hp = nil
	}
}

// stop ends the worker's hot process at the end of the campaign.
func (wk *worker) stop() {
	if wk.hp != nil {
		wk.hp.Close()
		wk.hp = nil
	}
}

// hotTable runs mutant m's kill suite in wk's hot process. ok is false
// when the mutant is to be judged cold.
func (r *runner) hotTable(ctx context.Context, wk *worker, m *mutant) (testrun.Report, bool, error) {
	req := results.HotRequest{Kind: results.HotTable, Mutant: m.switchN, StopAtFirst: !r.cfg.AllKillers}
	timeout := r.timeout
	if !r.cfg.AllKillers {
		// Only the cases that run the mutant's site can kill it.
		full := r.caseOrder(m)
		order, only := r.sites.Select(full, r.caseFiles, m.switchN)
		for _, n := range order {
			if ref, ok := r.caseFiles[n]; ok {
				req.Order = append(req.Order, ref)
			}
		}
		if req.Only = only; only && len(order) < len(full) {
			r.sitesCut.Add(1)
			// A run of every case would spend the left-out cases' time
			// too before its timeout.
			kept := map[string]bool{}
			for _, n := range order {
				kept[n] = true
			}
			for _, n := range full {
				if !kept[n] {
					timeout -= r.costs[n]
				}
			}
			timeout = max(timeout, r.cfg.TimeoutFloor)
		}
		if only && len(order) == 0 {
			m.res.Detail = "no case of the kill suite runs the mutated code"
			return testrun.Report{}, true, nil // it survives, as every case would pass
		}
	}
	rep, wall, outcome, err := r.hotRun(ctx, wk, m, req, timeout)
	if err != nil || outcome == testrun.HotLost {
		return testrun.Report{}, false, err
	}
	rr, machine := testrun.HotReport(rep, wall, outcome)
	if machine {
		return testrun.Report{}, false, nil
	}
	r.hotRuns.Add(1)
	return rr, true, nil
}

// hotGen runs the generator on mutant m in wk's hot process; ok as
// hotTable's.
func (r *runner) hotGen(ctx context.Context, wk *worker, m *mutant) (testrun.Report, bool, error) {
	req := results.HotRequest{Kind: results.HotGenerator, Mutant: m.switchN, GenWorlds: r.cfg.GenWorlds, GenOrder: r.genOrder()}
	rep, wall, outcome, err := r.hotRun(ctx, wk, m, req, r.gen.timeout)
	if err != nil || outcome == testrun.HotLost {
		return testrun.Report{}, false, err
	}
	if rep.World > 0 {
		r.worlds.Add(rep.World - 1)
	}
	rr, machine := testrun.HotReport(rep, wall, outcome)
	if machine {
		return testrun.Report{}, false, nil
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

// saveHints keeps the cold hints for the next campaign: a hinted mutant
// that ran cold without a panic loses its hint (testbin.ColdHints).
func (r *runner) saveHints(muts []*mutant) {
	n := 0
	for _, m := range muts {
		if !m.coldHint || !m.coldRan {
			continue
		}
		n++
		if !m.panicked.Load() {
			r.hints.Calm(m.res.ID, m.res.Diff)
		}
	}
	kept := r.hints.Save()
	if d := r.hotDeaths.Load(); d > 0 {
		next := "the next campaign runs it so from the start"
		if !kept {
			next = "its hint could not be kept, so the next campaign tries it hot again"
		}
		r.note(fmt.Sprintf("hot processes: %d mutant(s) ended the process that served them (a panic in a world's goroutine, which is the mutant's doing, not a fault of the run); each was judged by a run of its own, so its verdict stands, and %s (docs/mutation.md)", d, next))
	}
	if n > 0 {
		r.note(fmt.Sprintf("hot processes: %d mutants ran cold from the start, as a hot process died on each in an earlier campaign (docs/mutation.md)", n))
	}
}
