package mutants

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
)

// TestKilledPastHang: a mutant that makes one test hang and a later one
// fail is killed by the failing test, not timed out because the hanging
// one ran first (the suite runs again without it: pastHang). Before, the
// verdict hung on the order: timed out here, where TestAdd runs first.
func TestKilledPastHang(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	t.Parallel()
	cfg := fixtureConfig(t, "")
	cfg.CatalogDir, cfg.Workers = "hang-catalog", 1
	cfg.Only = regexp.MustCompile(`^add-hangs-sum-wrong$`)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := byID(res)["add-hangs-sum-wrong"]
	if m.Status != verdict.StatusKilled || !slices.Equal(m.KilledBy, []string{"TestSum"}) || !strings.Contains(m.Detail, "leaving out TestAdd") {
		t.Errorf("%s, killed by %q, detail %q; want killed by TestSum after leaving out TestAdd", m.Status, m.KilledBy, m.Detail)
	}
}

// leaveOut says exactly which tests a run leaves out: the table's cases by
// id through the params, or one other test by its exact name.
func TestLeaveOut(t *testing.T) {
	r := &runner{caseFiles: map[string]results.CaseRef{
		"TestTable/a.yaml/one":   {ID: "one", File: "a.yaml"},
		"TestTable/a.yaml/two":   {ID: "two", File: "a.yaml"},
		"TestTable/b.yaml/three": {ID: "three", File: "b.yaml"},
	}}
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
		cases, pattern, ok := r.leaveOut(c.skip)
		if !slices.Equal(cases, c.cases) || pattern != c.pattern || ok != c.ok {
			t.Errorf("leaveOut(%q) = %q, %q, %t; want %q, %q, %t", c.skip, cases, pattern, ok, c.cases, c.pattern, c.ok)
		}
	}
}
