package mutants

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/cli"
	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suitebin"
)

// plan is a campaign's mutants once they are prepared (planMutants) and
// before they run (runAll): the progress report, the mutants that share a
// cache key, the queue to run and the verdicts taken from the cache.
type plan struct {
	prog   *cli.Progress
	groups map[string][]*mutant
	queue  []*mutant // to run, prepared: not-viable ones are already decided
	cached []*mutant
}

// planMutants groups the mutants, takes what it can from the cache and
// prepares the rest (type checks, the schemata binary and its check). It
// needs no baseline: the campaign runs it beside the baseline's run.
// Mutants with the same cache key (gremlins lists some token swaps under two
// types) run once and share the verdict; cached verdicts are reused without
// building anything.
func (r *runner) planMutants(ctx context.Context, muts []*mutant) (*plan, error) {
	p := &plan{prog: cli.NewProgress(r.cfg.Progress, r.cfg.TTY, len(muts)), groups: map[string][]*mutant{}}
	groups := p.groups
	var queue, cached []*mutant
	for _, m := range muts {
		if m.res.Status != "" { // decided at collection (no-longer-applies, not materializable)
			p.prog.Done(m.res)
			continue
		}
		if g, ok := groups[m.key]; ok {
			groups[m.key] = append(g, m)
			continue
		}
		groups[m.key] = []*mutant{m}
		if r.cache != nil {
			// A kill-first verdict lists one killer: --all-killers runs
			// the mutant again for the full list.
			if v, ok := r.cache.Get(m.key); ok && !(r.cfg.AllKillers && v.Status == verdict.StatusKilled && !v.AllKillers) && r.genCached(m) {
				m.res.Status, m.res.KilledBy, m.res.Detail, m.res.DurationMs, m.res.Cached = v.Status, v.KilledBy, v.Detail, v.DurationMs, true
				cached = append(cached, m)
				continue
			}
		}
		queue = append(queue, m)
	}
	p.cached = cached
	var err error
	if p.queue, err = r.prepare(ctx, queue, p.finish(r)); err != nil || !r.hotOK {
		return p, err
	}
	// Mutants a hot process died on in an earlier campaign run cold from
	// the start (testbin.ColdHints).
	g := r.testbin()
	if r.cfg.HintsDir != "" {
		g.KeptDir = r.cfg.HintsDir
	}
	r.hints = g.ColdHints(r.cfg.Target)
	for _, m := range p.queue {
		m.coldHint = r.hotUsable(m) && r.hints.Has(m.res.ID, m.res.Diff)
	}
	return p, nil
}

// finish reports mutant m done, with the others of its group.
func (p *plan) finish(r *runner) func(*mutant) {
	return func(m *mutant) {
		for _, o := range p.groups[m.key][1:] {
			o.res.Status, o.res.KilledBy, o.res.Cached = m.res.Status, m.res.KilledBy, m.res.Cached
			o.res.Generator, o.res.GeneratorDetail = m.res.Generator, m.res.GeneratorDetail
			o.res.Detail = "the same mutated source as " + m.res.ID
			r.equivalence(o)
			p.prog.Done(o.res)
		}
		r.equivalence(m)
		p.prog.Done(m.res)
	}
}

// runAll runs the planned mutants in cfg.Workers workers. The sanity mutant
// is first in the queue; once it is known not to be killed, nothing more is
// started (nothing a campaign finds is worth anything then) and the mutants
// not run are left without a status.
func (r *runner) runAll(ctx context.Context, p *plan) error {
	queue, cached, finish := p.queue, p.cached, p.finish(r)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Listed equivalents, expected to survive, run every case and are
	// vetted: the longest jobs, they go first (after the sanity mutant), so
	// that no worker ends the campaign alone with one. The order decides
	// no verdict.
	sort.SliceStable(queue, func(i, j int) bool {
		rank := func(m *mutant) int {
			switch {
			case m.res.Source == verdict.SourceSanity:
				return 0
			case m.equiv != nil:
				return 1
			}
			return 2
		}
		return rank(queue[i]) < rank(queue[j])
	})
	q := newJobs(queue, r.gen.done)
	var wg sync.WaitGroup
	var firstErr error
	// failed ends the campaign with err (under q.mu). A table part clears
	// its mutant's status (not run); a generator part leaves the result
	// alone: the table part may still be writing it.
	failed := func(m *mutant, err error, table bool) {
		if firstErr == nil {
			firstErr = err
		}
		if table {
			m.res.Status = ""
		}
		cancel()
	}
	stop := context.AfterFunc(ctx, q.wake)
	defer stop()
	// end is called under q.mu when one part of m is over: the mutant is
	// finished when its table run and its generator run both are.
	end := func(m *mutant) {
		if m.parts--; m.parts > 0 {
			return
		}
		r.mergeGen(m)
		r.genPut(m)
		finish(m)
	}
	for w := 0; w < r.cfg.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			wk := &worker{id: w, dir: filepath.Join(r.tmp, fmt.Sprintf("w%d", w))}
			defer wk.stop()
			for {
				j, ok := q.next(ctx)
				if !ok {
					return
				}
				m := j.m
				if j.gen {
					err := campaign.WithMutant(r.genPart(ctx, wk, m, j.cold), m.res.ID)
					q.mu.Lock()
					if err != nil {
						failed(m, err, false)
					} else {
						end(m)
					}
					q.over()
					q.mu.Unlock()
					continue
				}
				// The generator's run of a mutant of the schemata
				// binary needs nothing of its table run's: it is queued
				// now, and a worker with nothing else to do takes it
				// while this one runs the table (jobs.next).
				withGen := r.genAsked(m)
				detached := withGen && m.switchN > 0
				q.mu.Lock()
				m.parts = 1
				if withGen {
					m.parts = 2
				}
				if detached {
					m.genBin, m.genEnv = r.schemaBin, []string{fmt.Sprintf("%s=%d", testbin.SchemaEnv, m.switchN)}
					q.gens = append(q.gens, m)
					q.cond.Broadcast()
				}
				q.mu.Unlock()
				err := campaign.WithMutant(r.runOne(ctx, wk, m), m.res.ID)
				if err == nil && withGen && !detached {
					// Its own binary, in this worker's directory: its
					// generator runs here, before the next mutant.
					err = campaign.WithMutant(r.genPart(ctx, wk, m, m.hotLost), m.res.ID)
					if err == nil {
						q.mu.Lock()
						m.parts--
						q.mu.Unlock()
					}
				}
				q.mu.Lock()
				m.tableDone = true
				if err != nil {
					failed(m, err, true)
				} else {
					if r.cache != nil && m.res.Status != verdict.StatusTimedOut {
						r.cache.PutRun(m.key, m.res, r.cfg.AllKillers)
					}
					if m.res.Status == verdict.StatusKilled && len(m.res.KilledBy) > 0 {
						r.kills.Add(m.res.KilledBy[0])
					}
					end(m)
					if m.res.Source == verdict.SourceSanity && m.res.Status != verdict.StatusKilled {
						q.tables = nil // nothing more starts
					}
				}
				q.over()
				q.mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	r.waitGen()
	if firstErr == nil && r.gen.err != nil {
		firstErr = r.gen.err
	}
	if firstErr == nil {
		firstErr = ctx.Err() // the parent's cancellation (our own cancel only follows firstErr)
	}
	if firstErr != nil {
		return firstErr
	}
	for _, m := range cached {
		if !r.gen.on {
			// The generator's baseline turned the campaign off: no
			// cached generator verdict counts.
			m.res.Generator, m.res.GeneratorDetail = "", ""
		}
		finish(m)
	}
	return nil
}

// prepare type-checks the queued mutants in process (those that do not
// type-check are not viable and need no build) and, in schemata mode, builds
// the schemata binary of the rest and checks that it passes with no mutant
// switched on. It returns the mutants still to run.
func (r *runner) prepare(ctx context.Context, queue []*mutant, finish func(*mutant)) ([]*mutant, error) {
	r.hotOK = false
	if len(queue) == 0 { // every verdict came from the cache
		return nil, nil
	}
	tc, err := r.tc, r.tcErr
	if tc == nil && err == nil {
		tc, err = r.testbin().NewTypeChecker(ctx, r.cfg.Target)
	}
	if err != nil {
		return nil, err
	}
	var rest []*mutant
	for _, m := range queue {
		if tc.Covers(m.files) {
			start := time.Now()
			if err := tc.Check(r.cfg.Root, m.files); err != nil {
				var ee *campaign.EnvError
				if errors.As(err, &ee) {
					return nil, campaign.WithMutant(err, m.res.ID)
				}
				m.res.Status = verdict.StatusNotViable
				m.res.Detail = "does not type-check:\n" + err.Error()
				m.res.DurationMs = time.Since(start).Milliseconds()
				if r.cache != nil {
					r.cache.Put(m.key, m.res)
				}
				finish(m)
				continue
			}
		}
		rest = append(rest, m)
	}
	if r.cfg.Mode != campaign.ModeSchemata || len(rest) == 0 {
		return rest, nil
	}
	start := time.Now()
	bin, nums, note, err := r.buildSchemata(ctx, tc, rest, true)
	if err != nil {
		return nil, err
	}
	if bin == "" && note == errValuesInSchemata {
		// A changed value that only compiles as a constant: build the
		// binary again with function bodies alone.
		r.note(note)
		bin, nums, note, err = r.buildSchemata(ctx, tc, rest, false)
		if err != nil {
			return nil, err
		}
	}
	if note != "" {
		r.note(note) // beside the baseline, which notes too: under notesMu
	}
	if bin == "" {
		return rest, nil
	}
	r.schemaBin = bin
	r.schemaMs = max(1, time.Since(start).Milliseconds()) // 0 is "no schemata binary"
	for i, m := range rest {
		m.switchN = nums[i]
	}
	return rest, nil
}

// errValuesInSchemata is buildSchemata's note when a schemata binary with
// changed values failed (to build, or to pass with no mutant switched on).
const errValuesInSchemata = "the schemata binary with changed declaration values did not build or pass; it was built again with function bodies alone (those mutants were built on their own)"

// buildSchemata builds the schemata binary of the mutants rest (values:
// with changed declaration values too, see testbin/schemata.go) and checks that it
// passes with no mutant switched on. It returns the binary and each
// mutant's switch (by index into rest); or bin "" and a note saying why
// every mutant is to be built on its own. err is the runner's own failure.
func (r *runner) buildSchemata(ctx context.Context, tc *testbin.TypeChecker, rest []*mutant, values bool) (bin string, nums map[int]int, note string, err error) {
	files, nums, tookValues, err := schemata(rest, func(p string) ([]byte, error) { return os.ReadFile(r.cfg.Abs(p)) }, values)
	if err != nil || len(nums) == 0 {
		return "", nil, "", err
	}
	// The reset is written whichever the runner: both runners run the
	// same bytes.
	hotOK, why := testbin.HotReset(tc, r.cfg.Root, files)
	if hotOK {
		if why = r.hotSuite(); why != "" {
			hotOK = false
		}
	}
	if !hotOK && r.cfg.Runner == campaign.RunnerHot {
		r.note("hot runner off, every mutant ran in a process of its own: " + why)
	}
	hotOK = hotOK && r.cfg.Runner == campaign.RunnerHot
	dir := filepath.Join(r.tmp, "schemata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, "", err
	}
	ov, err := r.testbin().OverlayFile(dir, files)
	if err != nil {
		return "", nil, "", err
	}
	bin, keptAt, kept, err := r.testbin().KeptBuild(ctx, "schemata", 3, files, ov, filepath.Join(dir, "suite.test"))
	var ee *campaign.EnvError
	if errors.As(err, &ee) {
		ee.Step = fmt.Sprintf("building the schemata binary shared by %d mutants (go test -c)", len(nums))
		return "", nil, "", err
	}
	var nv *campaign.NotViable
	if errors.As(err, &nv) {
		if tookValues {
			return "", nil, errValuesInSchemata, nil
		}
		return "", nil, "the schemata binary did not build; every mutant was built on its own: " + verdict.FirstLine(r.srcRe.ReplaceAllString(nv.Out, "")), nil
	}
	if err != nil {
		return "", nil, "", err
	}
	// A kept binary that passed its run with no mutant switched on
	// passes it again (the same bytes, the same inputs).
	// It runs beside the baseline (run's phase 1), before the mutants'
	// timeout is known: with none, as the baseline does.
	// For the hot runner, its mark holds the mutation sites each case ran
	// (testbin/sites.go).
	mark := testbin.CheckedMark(keptAt)
	checked, sites := false, (*testbin.Sites)(nil)
	if _, err := os.Stat(mark); kept && err == nil {
		sites = testbin.ReadSites(mark)
		checked = !hotOK || sites != nil
	}
	if !checked {
		if err := r.waitTest2json(ctx); err != nil {
			return "", nil, "", err
		}
		ok, s, err := r.testrun().CheckSchemata(ctx, bin, r.suite.Run, dir, hotOK)
		if err != nil {
			return "", nil, "", err
		}
		if !ok {
			if tookValues {
				return "", nil, errValuesInSchemata, nil
			}
			return "", nil, "the schemata binary failed with no mutant switched on; every mutant was built on its own", nil
		}
		if sites = s; keptAt != "" {
			_ = campaign.WriteAtomic(mark, testbin.SitesBytes(sites), suitebin.TempMark+"*")
		}
	}
	r.hotOK, r.sites = hotOK, sites
	return bin, nums, "", nil
}

// equivalence turns a survivor listed in the equivalents into StatusEquivalent.
func (r *runner) equivalence(m *mutant) {
	if m.equiv == nil {
		return
	}
	switch m.res.Status {
	case verdict.StatusSurvived:
		m.res.Status = verdict.StatusEquivalent
		m.res.Detail = "equivalent: " + m.equiv.Reason
	case verdict.StatusKilled:
		m.res.Detail = strings.TrimSpace(m.res.Detail + " (listed as equivalent in " + r.cfg.Equivalents + " but killed: remove the entry)")
	}
}

// runOne runs one mutant in the worker directory dir — from the schemata
// binary when it has a switch there, else built on its own through an
// overlay — and sets its status, killedBy, detail and duration. A mutant
// that is not killed is also vetted (go vet's default analyzers, as `make
// vet` runs them): one that fails vet is not viable rather than a survivor.
// (`go test -c` itself runs go test's vet checks when the suite's package is
// the target: testbin.Go.NoVet.) The error is the
// runner's own failure (or ctx's).
func (r *runner) runOne(ctx context.Context, wk *worker, m *mutant) error {
	dir := wk.dir
	start := time.Now()
	defer func() { m.res.DurationMs += time.Since(start).Milliseconds() }()
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ov, err := r.testbin().OverlayFile(dir, m.files)
	if err != nil {
		return err
	}
	bin, env := r.schemaBin, []string{fmt.Sprintf("%s=%d", testbin.SchemaEnv, m.switchN)}
	if m.switchN == 0 {
		env = nil
		bin = filepath.Join(dir, "suite.test")
		if r.cfg.Mode == campaign.ModeSchemata {
			// The few mutants the schemata binary cannot hold are
			// kept; --mode overlay builds every mutant, every time.
			bin, _, _, err = r.testbin().KeptBuild(ctx, "mutant", 8, m.files, ov, bin)
		} else {
			err = r.testbin().Build(ctx, ov, bin)
		}
		var nv *campaign.NotViable
		if errors.As(err, &nv) {
			m.res.Status = verdict.StatusNotViable
			m.res.Detail = r.srcRe.ReplaceAllString(nv.Error(), "")
			return nil
		}
		if err != nil {
			return err
		}
	}
	var rep testrun.Report
	hot := false
	if r.hotUsable(m) {
		if rep, hot, err = r.hotTable(ctx, wk, m); err != nil {
			return err
		}
	}
	// A mutant a hot process could not judge (it died: a panic in a
	// bubble's goroutine) runs its generator cold too (jobs.next).
	m.hotLost = r.hotUsable(m) && !hot
	if hot {
		m.res.Runner = campaign.RunnerHot
	} else {
		if rep, err = r.runMutantSuite(ctx, dir, bin, m, env); err != nil {
			return err
		}
		m.coldRan = true
		if rep.Panic != "" {
			m.panicked.Store(true)
		}
	}
	var skipped []string
	if rep.TimedOut {
		next, left, cold, err := r.pastHang(ctx, dir, bin, m, env, rep, hot)
		if err != nil {
			return err
		}
		m.coldRan = m.coldRan || cold
		if !next.TimedOut {
			rep, skipped = next, left
			m.res.Runner = "" // the verdict came from a run of its own
		}
	}
	classify(&m.res, rep, r.timeout)
	if len(skipped) > 0 && m.res.Status == verdict.StatusKilled {
		m.res.Detail = strings.TrimSpace(m.res.Detail + "\n" + fmt.Sprintf("killed after leaving out %s, which ran past the timeout of %v", strings.Join(skipped, ", "), r.timeout))
	}
	if m.res.Status != verdict.StatusKilled && !r.cfg.NoVet {
		if err := r.vet(ctx, m, ov); err != nil {
			return err
		}
		if m.res.Status == verdict.StatusNotViable {
			return nil
		}
	}
	if m.genBin == "" {
		m.genBin, m.genEnv = bin, env // the generator's run follows (runAll)
	}
	return nil
}

// vet vets mutant m (not killed) through its overlay ov: one that fails
// vet is made not viable. A pass is kept (testbin.KeptVetKeep) under m's
// key (the hash of the suite's inputs and of m's mutated bytes) and
// vetBase, as a baseline's is: vet, a function of the files it reads and
// the go command's settings, passes again on the same ones, and a campaign
// on unchanged inputs reads the pass instead of vetting again (about 0.8 s
// of a mutant's time in a campaign on waittool/, nearly half a listed
// equivalent's; the mutant is still run). A failure is never kept. The
// error is the runner's own (or ctx's).
func (r *runner) vet(ctx context.Context, m *mutant, ov string) error {
	var kept keptRunRef
	if base := r.vetBase(ctx); m.key != "" && base != "" {
		kept = r.keptRun(ctx, "vet", base, m.key)
		kept.most = testbin.KeptVetKeep
	}
	var passed bool
	if kept.load(&passed) && passed {
		r.vetKept.Add(1)
		return nil
	}
	err := r.testbin().Vet(ctx, ov, m.files)
	var nv *campaign.NotViable
	if errors.As(err, &nv) {
		m.res.Status = verdict.StatusNotViable
		m.res.KilledBy = nil
		m.res.Detail = r.srcRe.ReplaceAllString(nv.Error(), "")
		return nil
	}
	if err != nil {
		return err
	}
	kept.keep(ctx, true)
	return nil
}

// vetBase is the part of a kept vet pass's key that a mutant's key does not
// hold, made once a campaign: the go command's build settings
// (testbin.LookupEnvVars, from the campaign's go env: cgo, the experiment,
// the compiler…) and the files of
// the module's packages that the target's own tests import, which vet
// type-checks with the target and which are not the suite's inputs when
// the target is not the suite's package. "" when they cannot be had: then
// no pass is read or kept, and every mutant that is not killed is vetted.
func (r *runner) vetBase(ctx context.Context) string {
	r.vetOnce.Do(func() {
		dirs, err := r.moduleDirs(ctx, r.cfg.Target)
		if err != nil {
			return
		}
		in, err := testbin.HashDirs(r.cfg.Root, dirs)
		if err != nil {
			return
		}
		r.vetBaseKey = testbin.InputsKey("waitsim-vet-v2\x00"+r.goEnv, in)
	})
	return r.vetBaseKey
}

// classify sets a mutant's status from one run of the suite: timed out
// (the runner's timeout, or the binary's own -test.timeout panic), survived
// (exit 0), or killed (any failure: exit 1 for failed tests, 2 for a panic),
// with the leaf tests that failed as killedBy.
func classify(res *verdict.MutantResult, rep testrun.Report, timeout time.Duration) {
	switch {
	case rep.TimedOut:
		res.Status = verdict.StatusTimedOut
		res.Detail = fmt.Sprintf("the suite ran past its timeout of %v", timeout)
		res.KilledBy = nil
	case rep.Exit == 0:
		res.Status = verdict.StatusSurvived
	default:
		res.Status = verdict.StatusKilled
		res.KilledBy = rep.Failed
		if len(rep.Failed) == 0 {
			res.Detail = fmt.Sprintf("the test binary exited %d outside any test", rep.Exit)
		} else if rep.Exit == 2 {
			res.Detail = "the suite panicked"
		}
		// The line that says what happened first: the stack's tail
		// alone does not (issue 11 item 13).
		if rep.Panic != "" {
			res.Detail = strings.TrimSpace(res.Detail + "\n" + rep.Panic)
		}
		if out := campaign.Tail(rep.Output, 600); out != "" && (rep.Panic == "" || !strings.Contains(out, rep.Panic)) {
			res.Detail = strings.TrimSpace(res.Detail + "\n" + out)
		}
	}
}

// schemata assembles the overlay of a schemata binary for the mutants of
// muts not yet judged that fit (testbin.Schemata), and marks the fitting
// ones whose switch changes a declaration's value (mutant.valueSwitch).
func schemata(muts []*mutant, orig func(string) ([]byte, error), allowValues bool) (files map[string][]byte, nums map[int]int, values bool, err error) {
	overlays := make([]map[string][]byte, len(muts))
	for i, m := range muts {
		if m.files != nil && m.res.Status == "" {
			overlays[i] = m.files
		}
	}
	files, nums, valued, values, err := testbin.Schemata(overlays, orig, allowValues)
	if err != nil {
		return nil, nil, false, err
	}
	for i := range nums {
		muts[i].valueSwitch = valued[i]
	}
	return files, nums, values, nil
}
