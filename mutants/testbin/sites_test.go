package testbin

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waitsim/waitsim/results"
)

// TestSitesSelect: a mutant's run keeps, in their order, the cases that
// ran its site; every case when its site ran before the first case; and
// every case, with ok false, when the record does not hold exactly the
// kill suite's cases (a case it does not know could run the site).
func TestSitesSelect(t *testing.T) {
	s := &Sites{Cases: map[string][]int{"T/a": {1, 2}, "T/b": {2}, "T/c": {}}, Before: []int{9}}
	cases := map[string]results.CaseRef{"T/a": {ID: "a"}, "T/b": {ID: "b"}, "T/c": {ID: "c"}}
	order := []string{"T/c", "T/b", "T/a"}
	for _, c := range []struct {
		n    int
		want []string
	}{{2, []string{"T/b", "T/a"}}, {1, []string{"T/a"}}, {5, []string{}}, {9, order}} {
		got, ok := s.Select(order, cases, c.n)
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("site %d: %q (%t), want %q", c.n, got, ok, c.want)
		}
	}
	more := map[string]results.CaseRef{"T/a": {}, "T/b": {}, "T/c": {}, "T/d": {}}
	other := map[string]results.CaseRef{"T/a": {}, "T/b": {}, "T/x": {}}
	for _, cs := range []map[string]results.CaseRef{more, other} {
		if got, ok := s.Select(order, cs, 1); ok || !slices.Equal(got, order) {
			t.Errorf("a record of other cases left out cases: %q (%t)", got, ok)
		}
	}
	if got, ok := (*Sites)(nil).Select(order, cases, 1); ok || !slices.Equal(got, order) {
		t.Errorf("no record left out cases: %q (%t)", got, ok)
	}
}

// TestSitesMark: the record a check wrote reads back, as does its copy in
// a kept binary's checked mark; a mark that holds none (an empty one, as
// earlier versions wrote) reads as no record, and so does a missing file.
func TestSitesMark(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bin.test.checked")
	if err := results.WriteSites(p, results.Sites{Cases: map[string][]int{"T/a": {3}, "T/b": {}}, Before: []int{1}}); err != nil {
		t.Fatal(err)
	}
	got := ReadSites(p)
	if got == nil || !slices.Equal(got.Cases["T/a"], []int{3}) || got.Cases["T/b"] == nil || !slices.Equal(got.Before, []int{1}) {
		t.Fatalf("read back %+v", got)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if ReadSites(p) != nil || ReadSites(filepath.Join(dir, "missing")) != nil {
		t.Fatal("a mark without sites read as a record")
	}
}
