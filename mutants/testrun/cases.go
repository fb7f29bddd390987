package testrun

import (
	"sort"
	"strings"
	"time"

	"github.com/waitsim/waitsim/results"
)

// CaseIndex reads the index of the cases a baseline run wrote in its
// results file: go test name → the case and its file. A missing results
// file (a suite that does not call waitsim.Run) is nil.
func CaseIndex(path string) map[string]results.CaseRef {
	run, err := results.ReadRun(path)
	if err != nil {
		return nil
	}
	refs := map[string]results.CaseRef{}
	for _, e := range run.Index {
		refs[e.Test] = results.CaseRef{ID: e.ID, File: e.File}
	}
	return refs
}

// CostOrder returns the leaf tests of a baseline run, cheapest first (ties
// by name), from its per-test costs. A test with subtests is left out.
func CostOrder(costs map[string]time.Duration) []string {
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
