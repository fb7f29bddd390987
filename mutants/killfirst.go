package mutants

import (
	"context"

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
// the timeout is killed if the failing case runs first, timed out if the
// other does, in either mode.) killedBy then holds the
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
// worker directory dir; with AllKillers, the whole suite.
func (r *runner) runMutantSuite(ctx context.Context, dir, bin string, m *mutant, env []string) (testrun.Report, error) {
	if r.cfg.AllKillers {
		return r.runSuite(ctx, bin, r.timeout, env...)
	}
	var params results.Params
	for _, n := range r.caseOrder(m) {
		if ref, ok := r.caseFiles[n]; ok {
			params.Order = append(params.Order, ref)
		}
	}
	return r.runWith(ctx, bin, r.suite.Run, r.timeout, []string{"-test.failfast"}, params, env...)
}
