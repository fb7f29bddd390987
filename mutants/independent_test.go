package mutants

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/mutation"
)

// goTokens returns the tokens of Go source src, each as its kind and literal.
func goTokens(t *testing.T, name string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(name, -1, len(src)), src, func(pos token.Position, msg string) {
		t.Fatalf("%s: %s: %s", name, pos, msg)
	}, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		out = append(out, tok.String()+"\x00"+lit)
	}
}

// isOperator reports whether a token of goTokens is an operator or delimiter.
func isOperator(tok string) bool {
	for op := token.ADD; op <= token.TILDE; op++ {
		if op.IsOperator() && tok == op.String()+"\x00" {
			return true
		}
	}
	return false
}

// TestIndependentSet keeps mutants/independent/ (README, "The mutation gate")
// usable between runs of `make independent`: at least 24 mutants, none
// sharing an id with the catalog, each patch still applying to the current
// waittool/ source and none a single-token operator swap (those are
// gremlins' operator mutants, not this set's).
func TestIndependentSet(t *testing.T) {
	set, err := mutation.LoadCatalog("..", "mutants/independent")
	if err != nil {
		t.Fatal(err)
	}
	if len(set) < 24 {
		t.Fatalf("mutants/independent/ has %d mutants, want at least 24", len(set))
	}
	catalog, err := mutation.LoadCatalog("..", "mutants/catalog")
	if err != nil {
		t.Fatal(err)
	}
	var catalogIDs []string
	for _, e := range catalog {
		catalogIDs = append(catalogIDs, e.ID)
	}
	for _, e := range set {
		if slices.Contains(catalogIDs, e.ID) {
			t.Errorf("%s: id %s is also a catalog mutant", e.Path, e.ID)
		}
		src, err := os.ReadFile(filepath.Join("..", e.File))
		if err != nil {
			t.Fatalf("%s: %v", e.Path, err)
		}
		mut, _, err := mutation.ApplyPatch(src, e.Patch)
		if err != nil {
			t.Errorf("%s: %v", e.Path, err)
			continue
		}
		a, b := goTokens(t, e.File, src), goTokens(t, e.Path, mut)
		pre := 0
		for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
			pre++
		}
		suf := 0
		for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
			suf++
		}
		if len(a)-pre-suf == 1 && len(b)-pre-suf == 1 && isOperator(a[pre]) && isOperator(b[pre]) {
			t.Errorf("%s: the patch swaps one operator (%q for %q): that is an operator mutant, gremlins' part", e.Path, strings.TrimSuffix(b[pre], "\x00"), strings.TrimSuffix(a[pre], "\x00"))
		}
	}
}
