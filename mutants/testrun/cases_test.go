package testrun

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/waitsim/waitsim/results"
)

// TestCostOrder: the baseline's leaf tests, cheapest first, ties by name;
// a test with subtests is left out.
func TestCostOrder(t *testing.T) {
	ms := time.Millisecond
	got := CostOrder(map[string]time.Duration{
		"TestTable": 90 * ms, "TestTable/b": 5 * ms, "TestTable/a": 5 * ms, "TestTable/c": 1 * ms,
		"TestTable/c/x": 1 * ms, "TestOther": 2 * ms,
	})
	want := []string{"TestTable/c/x", "TestOther", "TestTable/a", "TestTable/b"}
	if !slices.Equal(got, want) {
		t.Fatalf("CostOrder = %q, want %q", got, want)
	}
}

// TestCaseIndex: the index a baseline run writes in its results file
// (results.RunResult.Index) reads back as go test name → case and file; a
// missing results file gives nothing.
func TestCaseIndex(t *testing.T) {
	p := filepath.Join(t.TempDir(), "results.json")
	run := results.RunResult{Index: []results.IndexEntry{
		{ID: "a", File: "scenarios/table/a.yaml", Test: "TestTable/a.yaml/a"},
		{ID: "b[x=1]", File: "scenarios/table/b, c.yaml", Test: "TestTable/b,_c.yaml/b[x=1]"},
	}}
	if err := results.WriteRun(p, run); err != nil {
		t.Fatal(err)
	}
	got := CaseIndex(p)
	want := map[string]results.CaseRef{"TestTable/a.yaml/a": {ID: "a", File: "scenarios/table/a.yaml"},
		"TestTable/b,_c.yaml/b[x=1]": {ID: "b[x=1]", File: "scenarios/table/b, c.yaml"}}
	if !maps.Equal(got, want) {
		t.Fatalf("index %v, want %v", got, want)
	}
	if got := CaseIndex(filepath.Join(t.TempDir(), "missing")); got != nil {
		t.Fatalf("a missing index gave %v", got)
	}
}
