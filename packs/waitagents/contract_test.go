package waitagents

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/check"
)

// TestContractListsInvariants: the invariants table of docs/contract.md §2
// has one row for every invariant id the table checks, and no other.
func TestContractListsInvariants(t *testing.T) {
	b, err := os.ReadFile("../../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n### Invariants\n")
	end := strings.Index(doc, "\n## 3. ")
	if start < 0 || end < start {
		t.Fatal("docs/contract.md has no \"### Invariants\" subsection in §2")
	}
	var listed []string
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| \\S")
	for _, m := range row.FindAllStringSubmatch(doc[start:end], -1) {
		if slices.Contains(listed, m[1]) {
			t.Errorf("docs/contract.md lists invariant %s twice", m[1])
		}
		listed = append(listed, m[1])
	}
	var ids []string
	for _, inv := range append(slices.Clone(check.Invariants), Invariants...) {
		ids = append(ids, inv.ID)
		if !slices.Contains(listed, inv.ID) {
			t.Errorf("docs/contract.md §2 (Invariants) has no row for invariant %s", inv.ID)
		}
	}
	for _, id := range listed {
		if !slices.Contains(ids, id) {
			t.Errorf("docs/contract.md §2 (Invariants) lists %s, which is not an invariant", id)
		}
	}
}
