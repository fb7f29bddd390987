package testbin

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waitsim/waitsim/results"
)

// TestSitesSelect: a mutant's run keeps, in their order, the cases that
// ran its site, then those outside the order that did; and every case, with
// ok false, when its site ran before the first case or when the record
// does not hold exactly the kill suite's cases (a case it does not know
// could run the site).
func TestSitesSelect(t *testing.T) {
	s := &Sites{Cases: map[string][]int{"T/a": {1, 2}, "T/b": {2}, "T/c": {}}, Before: []int{9}}
	cases := map[string]results.CaseRef{"T/a": {ID: "a"}, "T/b": {ID: "b"}, "T/c": {ID: "c"}}
	order := []string{"T/c", "T/b", "T/a"}
	for _, c := range []struct {
		n    int
		want []string
		ok   bool
	}{{2, []string{"T/b", "T/a"}, true}, {1, []string{"T/a"}, true}, {5, []string{}, true}, {9, order, false}} {
		got, ok := s.Select(order, cases, c.n)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("site %d: %q (%t), want %q (%t)", c.n, got, ok, c.want, c.ok)
		}
	}
	// A case the order does not hold (the baseline did not time it: it
	// skipped) still runs when it ran the site.
	if got, ok := s.Select([]string{"T/c", "T/b"}, cases, 1); !ok || !slices.Equal(got, []string{"T/a"}) {
		t.Errorf("a case outside the order: %q (%t), want [T/a]", got, ok)
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
	if err := os.WriteFile(p, SitesBytes(got), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := ReadSites(p); again == nil || !slices.Equal(again.Cases["T/a"], []int{3}) {
		t.Fatalf("SitesBytes read back %+v", again)
	}
	for _, b := range [][]byte{SitesBytes(nil), []byte("{}"), []byte(`{"cases":null}`)} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if ReadSites(p) != nil {
			t.Fatalf("a mark without sites (%q) read as a record", b)
		}
	}
	if ReadSites(filepath.Join(dir, "missing")) != nil {
		t.Fatal("a missing mark read as a record")
	}
}

// TestMergeSites: a case reaches what it reached in either of the check's
// runs; a site that a case reached in one and not the other (a cache built
// by the first case, then hit by the others) joins the sites every case
// reaches; records of other cases merge to none.
func TestMergeSites(t *testing.T) {
	fresh := &Sites{Cases: map[string][]int{"T/a": {1, 4}, "T/b": {1, 4}, "T/c": {4}}, Before: []int{9}}
	warm := &Sites{Cases: map[string][]int{"T/a": {1, 4}, "T/b": {2, 4}, "T/c": {4}}, Before: []int{8}}
	got := MergeSites(fresh, warm)
	want := map[string][]int{"T/a": {1, 4}, "T/b": {1, 2, 4}, "T/c": {4}}
	if got == nil || !maps.EqualFunc(got.Cases, want, slices.Equal) || !slices.Equal(got.Before, []int{1, 2, 8, 9}) {
		t.Fatalf("merged %+v, want %v before [1 2 8 9]", got, want)
	}
	other := &Sites{Cases: map[string][]int{"T/a": {}, "T/b": {}, "T/x": {}}}
	if MergeSites(fresh, other) != nil || MergeSites(nil, warm) != nil || MergeSites(fresh, nil) != nil {
		t.Fatal("records of other cases, or a missing one, merged")
	}
}
