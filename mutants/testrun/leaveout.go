package testrun

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/waitsim/waitsim/results"
)

// LeaveOut is how a run leaves out the leaf tests skip (go test names):
// the table's cases, when every one is a case of index (the baseline's
// results.RunResult.Index, by go test name), through the params (cases:
// every other case's id, sorted); else one test alone through -test.skip
// and its exact name (pattern). ok is false when neither says exactly
// these tests.
func LeaveOut(index map[string]results.CaseRef, skip []string) (cases []string, pattern string, ok bool) {
	all := true
	for _, n := range skip {
		if _, in := index[n]; !in {
			all = false
		}
	}
	if all {
		for n, ref := range index {
			if !slices.Contains(skip, n) {
				cases = append(cases, ref.ID)
			}
		}
		sort.Strings(cases)
		return cases, "", len(cases) > 0
	}
	if len(skip) != 1 {
		return nil, "", false
	}
	parts := strings.Split(skip[0], "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return nil, strings.Join(parts, "/"), true
}
