package scenarios

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOrderCases: named cases first, in the file's order (an id with a
// space in its subtest form too); unknown names, names of other tests and
// repeats are ignored; the rest keep the table's order.
func TestOrderCases(t *testing.T) {
	cases := []Case{{ID: "a"}, {ID: "b[x=1]"}, {ID: "c d"}, {ID: "e"}}
	f := filepath.Join(t.TempDir(), "order")
	if err := os.WriteFile(f, []byte("TestTable/e\n\nTestTable/c_d\nTestOther/a\nTestTable/nope\nTestTable/e\nTestTable/b[x=1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(CaseOrderEnv, f)
	var ids []string
	for _, c := range OrderCases(cases, caseOrder()) {
		ids = append(ids, c.ID)
	}
	if want := []string{"e", "c d", "b[x=1]", "a"}; !slices.Equal(ids, want) {
		t.Fatalf("order %q, want %q", ids, want)
	}
	t.Setenv(CaseOrderEnv, filepath.Join(t.TempDir(), "missing"))
	if got := OrderCases(cases, caseOrder()); len(got) != 4 || got[0].ID != "a" {
		t.Fatalf("with an unreadable order file: %v, want the table's order", got)
	}
}

// TestRunLazily: kill first's lazy load runs the listed cases in order,
// loading a file only when its first case is reached, and stops at the
// first failing case — before a later file is even read; when every listed
// case passes it stops at a file that does not load, for the full load.
func TestRunLazily(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	one := func(name string) string {
		return "- name: " + name + "\n  noBridge: true\n  callers:\n    - name: A\n  expect:\n    - resolvesAtMs: 0\n"
	}
	if err := os.WriteFile(a, []byte("# protects: nothing\n"+one("a1")+one("a2")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("not: [a scenario\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	order := []string{"TestTable/a2\t" + a, "TestOther/x\t" + a, "TestTable/a1\t" + a, "TestTable/b1\t" + b}
	for _, c := range []struct {
		fail        string
		wantStopped bool
	}{{"a1", true}, {"", false}} {
		var got []string
		ran := map[string]bool{}
		stopped := runLazily(order, ran, func(cs Case) bool {
			got = append(got, cs.ID)
			return cs.ID != c.fail
		})
		if stopped != c.wantStopped || !slices.Equal(got, []string{"a2", "a1"}) || !ran["a1"] || !ran["a2"] || len(ran) != 2 {
			t.Errorf("failing %q: stopped %v, ran %q (%v); want stopped %v after a2, a1", c.fail, stopped, got, ran, c.wantStopped)
		}
	}
}
