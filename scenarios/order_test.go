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
