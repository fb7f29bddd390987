package reports

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoGoroutines keeps the Makefile's promise (RACE_FREE): make test runs
// reports and the packages under it without the race detector because
// neither their code nor their tests start a goroutine (the sim worlds
// their fixtures run are raced in sim/ and scenarios/). A go statement in
// any of them fails this test: then take that package out of RACE_FREE.
func TestNoGoroutines(t *testing.T) {
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files (%v)", err)
	}
	dirs := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		dirs[filepath.Dir(f)] = true
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: a go statement: take its package out of RACE_FREE in the Makefile", fset.Position(g.Pos()))
			}
			return true
		})
	}
	// Every package under reports is checked: the root and each one below.
	for _, d := range []string{".", "model", "text", "timeline"} {
		if !dirs[d] {
			t.Errorf("reports/%s: no Go files checked", d)
		}
	}
}
