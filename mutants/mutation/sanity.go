package mutation

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// PanicEverywhere inserts a panic at the start of every function body of
// src (the file name): the sanity mutant, which every case must kill.
func PanicEverywhere(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var offs []int
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			offs = append(offs, fset.Position(fd.Body.Lbrace).Offset+1)
		}
	}
	const stmt = ` if true { panic("waitsim: sanity mutant") };`
	out := make([]byte, 0, len(src)+len(offs)*len(stmt))
	prev := 0
	for _, o := range offs {
		out = append(out, src[prev:o]...)
		out = append(out, stmt...)
		prev = o
	}
	return append(out, src[prev:]...), nil
}

// SourceLine is line (1-based) of src, trimmed; "" past its end.
func SourceLine(src []byte, line int) string {
	ls := SplitLines(src)
	if line < 1 || line > len(ls) {
		return ""
	}
	return strings.TrimSpace(ls[line-1])
}
