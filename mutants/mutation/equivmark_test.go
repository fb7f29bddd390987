package mutation

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestSourceMarks: //waitsim:equivalent marks the next line that is not a
// mark, for every operator mutant there or the kinds it names; its reason
// is required; a mark matching no mutant is a note.
func TestSourceMarks(t *testing.T) {
	src := `package calc

func Clamp(v, limit int) int {
	//waitsim:equivalent at v == limit both branches return limit
	if v > limit {
		return limit
	}
	//waitsim:equivalent CONDITIONALS_BOUNDARY: a = b = 0 gives 0 either way
	//waitsim:equivalent INVERT_NEGATIVES , ARITHMETIC_BASE: -0 is 0
	if a := v - limit; a >= 0 {
		return a
	}
	// waitsim:equivalent is not a directive with a space after //
	x := "//waitsim:equivalent in a string is no mark"
	_ = x
	//waitsim:equivalent nothing is mutated on the line below

	return v
}
`
	marks, problems := ParseMarks("calc/calc.go", []byte(src))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	type got struct {
		line, marks int
		kinds       []string
		reason      string
	}
	var gs []got
	for _, m := range marks {
		gs = append(gs, got{m.line, m.marks, m.kinds, m.reason})
	}
	want := []got{
		{4, 5, nil, "at v == limit both branches return limit"},
		{8, 10, []string{"CONDITIONALS_BOUNDARY"}, "a = b = 0 gives 0 either way"},
		{9, 10, []string{"INVERT_NEGATIVES", "ARITHMETIC_BASE"}, "-0 is 0"},
		{16, 17, nil, "nothing is mutated on the line below"},
	}
	if !slices.EqualFunc(gs, want, func(a, b got) bool {
		return a.line == b.line && a.marks == b.marks && slices.Equal(a.kinds, b.kinds) && a.reason == b.reason
	}) {
		t.Fatalf("marks\n got %+v\nwant %+v", gs, want)
	}
	for _, c := range []struct {
		line int
		kind string
		mark int // the mark's line, 0: none
	}{
		{5, "CONDITIONALS_BOUNDARY", 4},
		{5, "CONDITIONALS_NEGATION", 4},
		{10, "CONDITIONALS_BOUNDARY", 8},
		{10, "ARITHMETIC_BASE", 9},
		{10, "CONDITIONALS_NEGATION", 0},
		{6, "ARITHMETIC_BASE", 0},
	} {
		m := markFor(marks, "calc/calc.go", c.line, c.kind)
		if (m == nil) != (c.mark == 0) || m != nil && m.line != c.mark {
			t.Errorf("line %d, %s: mark %+v, want the one of line %d", c.line, c.kind, m, c.mark)
		}
		if markFor(marks, "calc/other.go", c.line, c.kind) != nil {
			t.Errorf("a mark of calc/calc.go covers calc/other.go:%d", c.line)
		}
	}
	// Used: the covering mark says why the mutant is equivalent, not run
	// (the runner's applyMark: mutants/equivmark_apply_test.go); a mark is used even for a
	// mutant that could not be made; an unused mark is a note.
	if d, ok := UseMark(marks, OperatorSite{File: "calc/calc.go", Line: 5, Col: 7, Type: "CONDITIONALS_BOUNDARY"}); !ok ||
		d != "equivalent: at v == limit both branches return limit (//waitsim:equivalent at calc/calc.go:4; not run)" {
		t.Errorf("marked mutant: %q, %t", d, ok)
	}
	if _, ok := UseMark(marks, OperatorSite{File: "calc/calc.go", Line: 10, Type: "ARITHMETIC_BASE"}); !ok {
		t.Errorf("line 10, ARITHMETIC_BASE: no mark")
	}
	if _, ok := UseMark(marks, OperatorSite{File: "calc/calc.go", Line: 6, Type: "ARITHMETIC_BASE"}); ok {
		t.Errorf("line 6: a mark covers it")
	}
	notes := UnusedMarks(marks)
	if want := []string{
		"calc/calc.go:8: //waitsim:equivalent marks no CONDITIONALS_BOUNDARY mutant on line 10 (it moved, or the mutant is gone): remove the mark",
		"calc/calc.go:16: //waitsim:equivalent marks no operator mutant on line 17 (it moved, or the mutant is gone): remove the mark",
	}; !slices.Equal(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// TestSourceMarkProblems: a mark without a reason, of a kind gremlins does
// not have, or after code, is a usage error naming file:line:column.
func TestSourceMarkProblems(t *testing.T) {
	root := t.TempDir()
	src := "package calc\n\nfunc F(a int) int {\n\t//waitsim:equivalent\n\tb := a + 1 //waitsim:equivalent after code\n\t//waitsim:equivalent BOUNDARY: no such kind\n\t//waitsim:equivalent CONDITIONALS_BOUNDARY:\n\treturn b\n}\n"
	if err := os.MkdirAll(filepath.Join(root, "calc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"calc.go": src, "calc_test.go": "package calc\n//waitsim:equivalent\n"} {
		if err := os.WriteFile(filepath.Join(root, "calc", name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadMarks(root, "./calc/")
	if !errors.Is(err, verdict.ErrUsage) {
		t.Fatalf("%v, want a usage error", err)
	}
	for _, want := range []string{
		"4 problem(s) in //waitsim:equivalent marks; nothing ran:",
		"\n  calc/calc.go:4:2: //waitsim:equivalent: no reason: want //waitsim:equivalent [KIND[,KIND…]:] <why no test can tell the mutant from the code>",
		"\n  calc/calc.go:5:13: //waitsim:equivalent: after code: a mark is a line of its own, above the line it marks",
		"\n  calc/calc.go:6:2: //waitsim:equivalent: \"BOUNDARY\" is not a gremlins mutation type (one of ARITHMETIC_BASE, CONDITIONALS_BOUNDARY,",
		"\n  calc/calc.go:7:2: //waitsim:equivalent: no reason:",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "calc_test.go") {
		t.Errorf("a test file's mark was read: %v", err)
	}
}

// TestSourceMarkAfterLineDirective: a //line directive before a mark used
// to panic ParseMarks (the directive's line and column sliced the file's
// own line). The mark is placed by the file's own lines and columns: it
// covers the line below it, and a mark after code is still one.
func TestSourceMarkAfterLineDirective(t *testing.T) {
	src := "package calc\n\nvar a = 1\n//line types.go:3:200\n//waitsim:equivalent some reason\nvar _ = 0\n\n//line other.go:1:1\nvar b = 2 //waitsim:equivalent after code\n"
	marks, problems := ParseMarks("calc/calc.go", []byte(src))
	if len(marks) != 1 || marks[0].line != 5 || marks[0].marks != 6 || marks[0].reason != "some reason" {
		t.Errorf("marks %+v; want one at line 5 covering line 6", marks)
	}
	want := []string{"calc/calc.go:9:11: //waitsim:equivalent: after code: a mark is a line of its own, above the line it marks"}
	if !slices.Equal(problems, want) {
		t.Errorf("problems %q, want %q", problems, want)
	}
}

// TestSourceMarkKindShapedReason: a mark whose reason is a word shaped like
// a mutation kind (a kind without its colon, or misspelt) used to be read as
// the reason and mark every mutant of the next line equivalent. It is a
// problem naming file:line:column, with the closest kind when one is close;
// a reason of more words, or KIND: reason, is still a mark.
func TestSourceMarkKindShapedReason(t *testing.T) {
	src := "package calc\n\nfunc F(a int) int {\n" +
		"\t//waitsim:equivalent CONDITIONALS_BOUNDRY\n\tb := a + 1\n" +
		"\t//waitsim:equivalent CONDITIONALS_BOUNDARY\n\tb = a + 2\n" +
		"\t//waitsim:equivalent ARITHMETIC_BASE, NO_SUCH_THING\n\tb = a + 3\n" +
		"\t//waitsim:equivalent ARITHMETIC_BASE: TODO\n\tb = a + 4\n" +
		"\t//waitsim:equivalent NaN is never compared here\n\tb = a + 5\n" +
		"\t//waitsim:equivalent CONDITIONALS_BOUNDARY: at a == 0 both give 0\n\treturn b\n}\n"
	marks, problems := ParseMarks("calc/calc.go", []byte(src))
	want := []string{
		`calc/calc.go:4:2: //waitsim:equivalent: the reason "CONDITIONALS_BOUNDRY" looks like a mutation kind, not a reason: write //waitsim:equivalent KIND: <reason> (the kinds, a colon, then why no test can tell the mutant from the code), or a reason of more words; did you mean "CONDITIONALS_BOUNDARY" for "CONDITIONALS_BOUNDRY"?`,
		`calc/calc.go:6:2: //waitsim:equivalent: the reason "CONDITIONALS_BOUNDARY" looks like a mutation kind, not a reason: write //waitsim:equivalent KIND: <reason> (the kinds, a colon, then why no test can tell the mutant from the code), or a reason of more words`,
		`calc/calc.go:8:2: //waitsim:equivalent: the reason "ARITHMETIC_BASE, NO_SUCH_THING" looks like a mutation kind`,
		`calc/calc.go:10:2: //waitsim:equivalent: the reason "TODO" looks like a mutation kind`,
	}
	if len(problems) != len(want) {
		t.Fatalf("problems %q, want %d", problems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d\n got %s\nwant %s…", i, problems[i], w)
		}
	}
	if !strings.Contains(problems[2], `"NO_SUCH_THING" is not a gremlins mutation type`) {
		t.Errorf("problem 2 does not name the unknown kind: %s", problems[2])
	}
	if len(marks) != 2 || marks[0].marks != 13 || marks[1].marks != 15 || marks[1].kinds[0] != "CONDITIONALS_BOUNDARY" {
		t.Errorf("marks %+v; want those of lines 12 and 14", marks)
	}
}
