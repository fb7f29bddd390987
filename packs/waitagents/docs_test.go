package waitagents

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/check"
)

// TestDocsListInvariants: docs/scenarios.md lists every invariant, the
// generic ones and the contract's, each with its rule as the code states it.
func TestDocsListInvariants(t *testing.T) {
	b, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range append(slices.Clone(check.Invariants), Invariants...) {
		if !strings.Contains(string(b), "| `"+inv.ID+"` | "+inv.Rule+" |") {
			t.Errorf("docs/scenarios.md does not list invariant %s with its rule %q", inv.ID, inv.Rule)
		}
	}
}
