package mutants

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
)

// The generator campaign (issue 12 item 3). Beside the table, every mutant's
// test binary — the one the table ran, the same build — also runs the
// scenario generator (Config.GenRun, TestGenerated) on Config.GenWorlds
// worlds drawn from its fixed seed. The runner's params set KillSuite, so the
// generator stops at its first counterexample without shrinking it: a kill
// counts at once and never waits for a shrink. The generator's kill rate is
// reported beside the table's (Result.Generator); it does not decide the
// gate, which stays the table's.

// genState is the runner's generator campaign: on when Config.GenWorlds > 0
// and its baseline passed.
type genState struct {
	on       bool
	baseline time.Duration
	timeout  time.Duration
	// costOrder is every world by its cost in the baseline run, cheapest
	// first (empty when the generator measured none).
	costOrder []int
	note      string
	ran       bool // the campaign was asked for (GenWorlds > 0)
	// err is the baseline run's failure when the machine is to blame
	// (campaign.ErrEnvironment): it stops the whole campaign.
	err error
	// done is closed when the baseline run is over (startGenBaseline),
	// or by waitGen when it never started; start runs one or the other.
	done  chan struct{}
	start sync.Once
}

// genParams are a generator run's params: how many worlds it draws.
func (r *runner) genParams() results.Params { return results.Params{GenWorlds: r.cfg.GenWorlds} }

// genBaseline runs the generator on the unmutated baseline binary. When it
// fails, or runs no test, the campaign is off and its note says why.
func (r *runner) genBaseline(ctx context.Context) {
	if r.cfg.GenWorlds <= 0 {
		return
	}
	r.gen.ran = true
	kept := r.keptRun(ctx, "generator-baseline", r.cfg.GenRun, fmt.Sprint(r.cfg.GenWorlds), r.baseKey)
	var k keptGenBaseline
	var err error
	if kept.load(&k) && k.Report.Exit == 0 && k.Report.Passed > 0 && !k.Report.TimedOut {
		r.note("the generator's baseline outcome reused: it passed before on the same test binary and inputs (the suite's files, the go command's settings)")
	} else {
		params := r.genParams()
		params.Results = filepath.Join(r.tmp, "generator-baseline.json")
		k.Report, err = r.runWith(ctx, r.baseBin, r.cfg.GenRun, 0, nil, params)
		k.WorldMs = nil
		if res, rerr := results.ReadRun(params.Results); rerr == nil {
			k.WorldMs = res.WorldMs
		}
		if err == nil && k.Report.Exit == 0 && k.Report.Passed > 0 && !k.Report.TimedOut {
			kept.keep(ctx, k)
		}
	}
	rep := k.Report
	if errors.Is(err, campaign.ErrEnvironment) {
		r.gen.err = err // the campaign stops: runAll returns it
		return
	}
	if err != nil {
		r.gen.note = "the generator's baseline run failed to run: " + err.Error()
		return
	}
	switch {
	case rep.Exit != 0:
		r.gen.note = fmt.Sprintf("the generator (%s, %d worlds) fails on the unmutated code: %s", r.cfg.GenRun, r.cfg.GenWorlds, verdict.FirstLine(strings.TrimSpace(rep.Output+" "+strings.Join(rep.Failed, ", "))))
		return
	case rep.Passed == 0:
		r.gen.note = fmt.Sprintf("the suite %s has no test matching %s", r.suite.Pkg, r.cfg.GenRun)
		return
	}
	r.gen.on = true
	r.gen.costOrder = worldsByCost(k.WorldMs)
	r.gen.baseline = rep.Wall
	r.gen.timeout = max(r.cfg.TimeoutFloor, time.Duration(float64(rep.Wall)*r.cfg.TimeoutFactor))
}

// keptGenBaseline is the outcome of a generator's baseline run that
// passed, kept for the next campaign on the same inputs: its report and
// what each world cost (results.RunResult.WorldMs; none from a generator
// that does not write them).
type keptGenBaseline struct {
	Report  testrun.Report
	WorldMs []float64 `json:",omitempty"`
}

// worldsByCost is the worlds' indices by their cost in ms (ms, by index),
// cheapest first, the index breaking ties.
func worldsByCost(ms []float64) []int {
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ms[a], ms[b]) })
	return order
}

// genOrder is a hot generator request's order (results.HotRequest.GenOrder):
// with the worlds' costs in the baseline, every world, those that killed
// the most mutants so far in the campaign first, then by cost, cheapest
// first, as kill first orders the table's cases; without them, the
// killers alone (the generator runs the rest by index).
func (r *runner) genOrder() []int {
	if len(r.gen.costOrder) == 0 {
		return r.worlds.Top()
	}
	return r.worlds.Order(r.gen.costOrder)
}

// startGenBaseline runs genBaseline in the background, as soon as the
// unmutated suite's binary is there (beside the table's baseline run and
// the mutants' preparation); a second call does nothing, nor one after
// waitGen.
func (r *runner) startGenBaseline(ctx context.Context) {
	r.gen.start.Do(func() {
		go func() {
			defer close(r.gen.done)
			r.genBaseline(ctx)
		}()
	})
}

// waitGen waits for the generator's baseline run, if one was started (and
// keeps any from starting after it).
func (r *runner) waitGen() {
	r.gen.start.Do(func() { close(r.gen.done) })
	<-r.gen.done
}

// genCampaign is Result.Generator before scoring.
func (r *runner) genCampaign() *verdict.GeneratorCampaign {
	if !r.gen.ran {
		return nil
	}
	return &verdict.GeneratorCampaign{Run: r.cfg.GenRun, Worlds: r.cfg.GenWorlds, BaselineMs: r.gen.baseline.Milliseconds(),
		TimeoutMs: r.gen.timeout.Milliseconds(), Note: r.gen.note}
}

// genWanted reports whether the generator runs on m.
func (r *runner) genWanted(m *mutant) bool {
	return r.gen.on && r.genAsked(m)
}

// genRun runs the generator on m's test binary m.genBin (with m.genEnv, its
// switch), in wk's hot process unless cold, and records its verdict in
// m.gen (mergeGen joins it to m's result): it reads nothing its table run
// writes, which may still be running.
func (r *runner) genRun(ctx context.Context, wk *worker, m *mutant, cold bool) error {
	if !r.genWanted(m) {
		return nil
	}
	start := time.Now()
	var rep testrun.Report
	hot := false
	var err error
	if r.hotUsable(m) && !cold {
		if rep, hot, err = r.hotGen(ctx, wk, m); err != nil {
			return err
		}
	}
	if !hot {
		if rep, err = r.runWith(ctx, m.genBin, r.cfg.GenRun, r.gen.timeout, nil, r.genParams(), m.genEnv...); err != nil {
			return err
		}
		if rep.Panic != "" {
			m.panicked.Store(true)
		}
	}
	var v verdict.MutantResult
	classify(&v, rep, r.gen.timeout)
	m.gen = genOutcome{ran: true, status: v.Status, detail: genDetail(v, rep), ms: time.Since(start).Milliseconds()}
	return nil
}

// genDetail is the detail of a generator verdict v from its run's report:
// a kill's first broken invariant (testrun.BrokenInvariant, from the head of the
// failure's output: the world's dump that follows fills its tail), or the
// verdict's first line; a timeout's own detail.
func genDetail(v verdict.MutantResult, rep testrun.Report) string {
	switch v.Status {
	case verdict.StatusKilled:
		if d := testrun.BrokenInvariant(rep.Head); d != "" {
			return d
		}
		return verdict.FirstLine(v.Detail)
	case verdict.StatusTimedOut:
		return v.Detail
	}
	return ""
}

// genKey is the cache key of m's generator verdict: its table key and the
// generator's settings.
func (r *runner) genKey(m *mutant) string {
	s := sha256.Sum256([]byte(m.key + "\x00generator " + r.cfg.GenRun + fmt.Sprintf(" %d", r.cfg.GenWorlds)))
	return hex.EncodeToString(s[:])
}

// genCached reports whether m's generator verdict, if one is asked for, is
// in the cache, and copies it into m. A table verdict is reused from the
// cache only together with the generator's. It does not wait for the
// generator's baseline run: if that run turns the campaign off, runAll
// clears what was copied.
func (r *runner) genCached(m *mutant) bool {
	if !r.genAsked(m) {
		return true
	}
	v, ok := r.cache.Get(r.genKey(m))
	if !ok {
		return false
	}
	m.res.Generator, m.res.GeneratorDetail = v.Status, v.Detail
	return true
}

// genPut caches m's generator verdict (timed out verdicts are not kept:
// they depend on load).
func (r *runner) genPut(m *mutant) {
	if r.cache == nil || m.res.Generator == "" || m.res.Generator == verdict.StatusTimedOut {
		return
	}
	r.cache.Put(r.genKey(m), verdict.MutantResult{Status: m.res.Generator, Detail: m.res.GeneratorDetail})
}
