package mutants

import (
	"testing"

	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestApplyMark: a marked operator mutant is equivalent with the mark's
// reason, not run; a mutant that could not be made keeps its status.
func TestApplyMark(t *testing.T) {
	src := "package calc\n\nfunc Clamp(v, limit int) int {\n\t//waitsim:equivalent at v == limit both branches return limit\n\tif v > limit {\n\t\treturn limit\n\t}\n\t//waitsim:equivalent INVERT_NEGATIVES , ARITHMETIC_BASE: -0 is 0\n\treturn v - limit\n}\n"
	marks, problems := mutation.ParseMarks("calc/calc.go", []byte(src))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	m := &mutant{res: verdict.MutantResult{ID: "gremlins:calc/calc.go:5:7:CONDITIONALS_BOUNDARY"}, equiv: &mutation.Equivalent{}}
	applyMark(marks, m, mutation.OperatorSite{File: "calc/calc.go", Line: 5, Col: 7, Type: "CONDITIONALS_BOUNDARY"})
	if m.res.Status != verdict.StatusEquivalent || m.equiv != nil ||
		m.res.Detail != "equivalent: at v == limit both branches return limit (//waitsim:equivalent at calc/calc.go:4; not run)" {
		t.Errorf("marked mutant: %+v", m.res)
	}
	nv := &mutant{res: verdict.MutantResult{Status: verdict.StatusNotViable}}
	applyMark(marks, nv, mutation.OperatorSite{File: "calc/calc.go", Line: 9, Type: "ARITHMETIC_BASE"})
	if nv.res.Status != verdict.StatusNotViable {
		t.Errorf("a mutant that could not be made became %s", nv.res.Status)
	}
	free := &mutant{res: verdict.MutantResult{ID: "gremlins:calc/calc.go:6:3:ARITHMETIC_BASE"}}
	applyMark(marks, free, mutation.OperatorSite{File: "calc/calc.go", Line: 6, Type: "ARITHMETIC_BASE"})
	if free.res.Status != "" {
		t.Errorf("an unmarked mutant became %s", free.res.Status)
	}
	if notes := mutation.UnusedMarks(marks); len(notes) > 0 {
		t.Errorf("notes %q, want none", notes)
	}
}
