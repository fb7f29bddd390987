package mutants

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Kill first. A mutant is killed by its first failing case, so its run of
// the suite stops there (-test.failfast) instead of running the whole table;
// --all-killers (Config.AllKillers) runs every case and lists every killer,
// as before. The cases most likely to fail run first: the case that killed
// this mutant last time (the cache's record), then every case by its cost in
// the baseline run, cheapest first. The verdict is the same either way: a
// mutant survives only when every case passes, which both modes see; a run
// that reaches its timeout is timed out in both. killedBy then holds the
// first killer met (which one can change from run to run: the costs are
// measured), --all-killers every one.
//
// The order reaches the suite through the file CaseOrderEnv names
// (scenarios.CaseOrderEnv, read by TestTable); a suite that does not read
// it runs its tests in its own order and still stops at the first failure.

// caseOrderEnv names the case-order file in a suite run's environment.
const caseOrderEnv = "WAITSIM_CASE_ORDER"

// costOrder returns the leaf tests of a baseline run, cheapest first (ties
// by name), from its per-test costs. A test with subtests is left out.
func costOrder(costs map[string]time.Duration) []string {
	names := make([]string, 0, len(costs))
	for n := range costs {
		names = append(names, n)
	}
	sort.Strings(names)
	leaves := names[:0:0]
	for i, n := range names {
		// Sorted, a parent's first child follows it at once (a sibling
		// such as "TestTable-x" sorts after "TestTable/…" only when it is
		// not a child, which HasPrefix checks).
		if i+1 < len(names) && strings.HasPrefix(names[i+1], n+"/") {
			continue
		}
		leaves = append(leaves, n)
	}
	sort.SliceStable(leaves, func(i, j int) bool { return costs[leaves[i]] < costs[leaves[j]] })
	return leaves
}

// caseOrder is the order in which mutant m's run tries the cases: its last
// killer (from the cache), then the baseline's cost order.
func (r *runner) caseOrder(m *mutant) []string {
	var first []string
	if r.cache != nil {
		if k := r.cache.LastKiller(m.res.ID); k != "" {
			first = append(first, k)
		}
	}
	return append(first, r.costOrder...)
}

// runMutantSuite runs mutant m's test binary bin for its verdict: with
// kill first, through -test.failfast and a case-order file written to the
// worker directory dir; with AllKillers, the whole suite.
func (r *runner) runMutantSuite(ctx context.Context, dir, bin string, m *mutant, env []string) (runReport, error) {
	if r.cfg.AllKillers {
		return r.runSuite(ctx, bin, r.timeout, env...)
	}
	order := r.caseOrder(m)
	if len(order) > 0 {
		f := filepath.Join(dir, "case-order")
		if err := os.WriteFile(f, []byte(strings.Join(order, "\n")+"\n"), 0o644); err != nil {
			return runReport{}, err
		}
		env = append(env[:len(env):len(env)], caseOrderEnv+"="+f)
	}
	return r.runSuiteFlags(ctx, bin, r.timeout, []string{"-test.failfast"}, env...)
}
