package mutants

import (
	"context"
	"fmt"
	"slices"

	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/results"
)

// Kill first. A mutant is killed by its first failing case, so its run of
// the suite stops there (-test.failfast) instead of running the whole table;
// --all-killers (Config.AllKillers) runs every case and lists every killer,
// as before. The cases most likely to fail run first: the case that killed
// this mutant last time (the cache's record), then the cases that killed
// the most mutants so far (in the cache's records and in this campaign),
// then the rest by cost in the baseline run, cheapest first. The verdict is
// the same either way: a mutant survives only when every case passes, which
// both modes see. (A mutant that makes one case fail and another run past
// the timeout is killed either way: a run that timed out is run again
// without the case that hung, pastHang.) killedBy then holds the
// first killer met (which one can change from run to run: the costs are
// measured), --all-killers every one.
//
// The order reaches the suite through its params file (results.Params.Order,
// read by waitsim.Run): each entry names a case and its file, from the index
// the baseline's run wrote in its results file (results.RunResult.Index),
// so that a mutant's run loads only the files it reaches before its first
// failure. A suite that does not call waitsim.Run runs its tests in its own
// order and still stops at the first failure.

// caseOrder is the order in which mutant m's run tries the cases: its last
// killer (from the cache), then the cases by the kills they made, then by
// the baseline's cost.
func (r *runner) caseOrder(m *mutant) []string {
	var first []string
	if r.cache != nil {
		if k := r.cache.LastKiller(m.res.ID); k != "" {
			first = append(first, k)
		}
	}
	return append(first, r.kills.Order(r.costOrder)...)
}

// runMutantSuite runs mutant m's test binary bin for its verdict: with
// kill first, through -test.failfast and a case-order file written to the
// worker directory dir; with AllKillers, the whole suite. The leaf tests of
// skip (go test names) are left out (testrun.LeaveOut).
func (r *runner) runMutantSuite(ctx context.Context, dir, bin string, m *mutant, env []string, skip ...string) (testrun.Report, error) {
	var params results.Params
	var flags []string
	if len(skip) > 0 {
		cases, pattern, ok := testrun.LeaveOut(r.caseFiles, skip)
		if !ok {
			return testrun.Report{}, fmt.Errorf("runner: cannot leave out %q", skip)
		}
		params.Cases = cases
		if pattern != "" {
			flags = append(flags, "-test.skip", pattern)
		}
	}
	if r.cfg.AllKillers {
		return r.runWith(ctx, bin, r.suite.Run, r.timeout, flags, params, env...)
	}
	for _, n := range r.caseOrder(m) {
		if ref, ok := r.caseFiles[n]; ok && !slices.Contains(skip, n) {
			params.Order = append(params.Order, ref)
		}
	}
	return r.runWith(ctx, bin, r.suite.Run, r.timeout, append(flags, "-test.failfast"), params, env...)
}

// hangRetries is how many runs past a hang (pastHang) a mutant gets: a
// bound on the timeouts one mutant can cost (each at least the timeout's
// floor, 5 s), not a measurement.
const hangRetries = 3

// pastHang judges a mutant whose run of the suite (rep; hot: in a hot
// process) ran past its timeout. A case that fails the mutant kills it
// whether it comes before or after a case that hangs, so that the verdict
// does not hang on the order kill first chose: the suite runs again
// without the case that hung, up to hangRetries times, and a failure
// there is the verdict (killed), with skipped naming the cases left out.
// When every other case passes, or another hangs past the last retry, or
// which case hung is not known, the first run's report is returned: timed
// out, hot or not. A hot process does not say which case hung: a run of
// its own, in the same order, does first (and its verdict, if it does not
// time out, stands). cold says whether any run of its own ran.
func (r *runner) pastHang(ctx context.Context, dir, bin string, m *mutant, env []string, rep testrun.Report, hot bool) (_ testrun.Report, skipped []string, cold bool, err error) {
	first := rep
	if hot {
		if rep, err = r.runMutantSuite(ctx, dir, bin, m, env); err != nil || !rep.TimedOut {
			return rep, nil, true, err
		}
		cold = true
	}
	for range hangRetries {
		if len(rep.Hung) != 1 {
			break // none known, or tests that run in parallel
		}
		if _, _, ok := testrun.LeaveOut(r.caseFiles, append(slices.Clone(skipped), rep.Hung...)); !ok {
			break
		}
		skipped = append(skipped, rep.Hung...)
		if rep, err = r.runMutantSuite(ctx, dir, bin, m, env, skipped...); err != nil {
			return first, nil, true, err
		}
		cold = true
		if !rep.TimedOut {
			if rep.Exit == 0 {
				break // the hangs were all that told it apart
			}
			return rep, skipped, cold, nil
		}
	}
	return first, nil, cold, nil
}
