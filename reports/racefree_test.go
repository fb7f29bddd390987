package reports

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestNoGoroutines keeps the Makefile's promise (RACE_FREE): make test runs
// this package without the race detector because neither its code nor its
// tests start a goroutine (the sim worlds its fixtures run are raced in sim/
// and scenarios/). A go statement here fails this test: then take the
// package out of RACE_FREE.
func TestNoGoroutines(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files (%v)", err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: a go statement: take reports out of RACE_FREE in the Makefile", fset.Position(g.Pos()))
			}
			return true
		})
	}
}
