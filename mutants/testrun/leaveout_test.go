package testrun

import (
	"slices"
	"testing"

	"github.com/waitsim/waitsim/results"
)

// LeaveOut says exactly which tests a run leaves out: the table's cases by
// id through the params, or one other test by its exact name.
func TestLeaveOut(t *testing.T) {
	index := map[string]results.CaseRef{
		"TestTable/a.yaml/one":   {ID: "one", File: "a.yaml"},
		"TestTable/a.yaml/two":   {ID: "two", File: "a.yaml"},
		"TestTable/b.yaml/three": {ID: "three", File: "b.yaml"},
	}
	for _, c := range []struct {
		skip    []string
		cases   []string
		pattern string
		ok      bool
	}{
		{[]string{"TestTable/a.yaml/two"}, []string{"one", "three"}, "", true},
		{[]string{"TestTable/a.yaml/two", "TestTable/b.yaml/three"}, []string{"one"}, "", true},
		{[]string{"TestGen/w.1"}, nil, `^TestGen$/^w\.1$`, true},
		{[]string{"TestGen", "TestOther"}, nil, "", false},
		{[]string{"TestTable/a.yaml/one", "TestTable/a.yaml/two", "TestTable/b.yaml/three"}, nil, "", false},
	} {
		cases, pattern, ok := LeaveOut(index, c.skip)
		if !slices.Equal(cases, c.cases) || pattern != c.pattern || ok != c.ok {
			t.Errorf("LeaveOut(%q) = %q, %q, %t; want %q, %q, %t", c.skip, cases, pattern, ok, c.cases, c.pattern, c.ok)
		}
	}
}
