package testbin

import (
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

const fixtureSrc = "package p\n\nfunc A() int {\n\treturn 1 + 2\n}\n\nfunc B() int {\n\treturn 3\n}\n"

// TestFuncEdits: only changes confined to function bodies go to the
// schemata binary.
func TestFuncEdits(t *testing.T) {
	body := strings.Replace(fixtureSrc, "return 3", "return 4", 1)
	if e, ok := declEdits([]byte(fixtureSrc), []byte(body), false); !ok || len(e) != 1 || e[0].decl != 1 {
		t.Fatalf("a body change: %v %v", e, ok)
	}
	for name, mut := range map[string]string{
		"signature": strings.Replace(fixtureSrc, "func B() int", "func B() int64", 1),
		"new decl":  fixtureSrc + "\nvar X = 1\n",
		"recover":   strings.Replace(fixtureSrc, "return 3", "recover()\n\treturn 3", 1),
		"package":   strings.Replace(fixtureSrc, "\n\nfunc A", "\n\nconst C = 1\n\nfunc A", 1),
	} {
		if _, ok := declEdits([]byte(fixtureSrc), []byte(mut), false); ok {
			t.Errorf("%s: accepted for the schemata binary", name)
		}
	}
}

func TestSchemataFile(t *testing.T) {
	src := "package p\n\nfunc (T) M(_ int, s ...string) (n int) {\n\treturn len(s)\n}\n\nfunc G[X any](x X) {\n\t_ = x\n}\n"
	mut := strings.Replace(src, "return len(s)", "return len(s) + 1", 1)
	mut = strings.Replace(mut, "_ = x", "_, _ = x, x", 1)
	e, ok := declEdits([]byte(src), []byte(mut), false)
	if !ok || len(e) != 2 {
		t.Fatalf("edits %v %v", e, ok)
	}
	out, err := schemataFile([]byte(src), []schemaMutant{{n: 7, edits: e}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"func (_wsr T) M(_wsp0 int, s ...string) (n int) { if waitsimRecording { waitsimReach(7) }; switch waitsimMutant { case 7: return _wsr.M__wsm7(_wsp0, s...); };",
		"func G[X any](x X) { if waitsimRecording { waitsimReach(7) }; switch waitsimMutant { case 7: G__wsm7[X](x); return; };",
		"\n\tif waitsimSitesOn.Load() { waitsimSite(7) }; return len(s)\n",
		"\n\tif waitsimSitesOn.Load() { waitsimSite(7) }; _ = x\n",
		"func (T) M__wsm7(_ int, s ...string) (n int) {\n\treturn len(s) + 1\n}",
		"func G__wsm7[X any](x X) {\n\t_, _ = x, x\n}",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	orig, _, _ := strings.Cut(string(out), "\n\nfunc (T) M__wsm7")
	if strings.Count(orig, "\n") != strings.Count(src, "\n") {
		t.Errorf("the original functions moved to other lines:\n%s", out)
	}
}

// TestSchemataValues: a mutant that changes only the value of a lone string
// constant or of a variable whose type can be read goes into the schemata
// binary, behind a switch chosen at init, with no line moved; an integer
// constant, a grouped declaration, or a changed name or type does not.
func TestSchemataValues(t *testing.T) {
	src := "package p\n\n// D is shown.\nconst D = \"a\" +\n\t\"b\"\n\nvar B = []int{1, 2}\n\nvar T map[string]int = nil\n\nconst N = 3\n\nconst (\n\tG = \"g\"\n)\n\nvar L = len(D)\n"
	for name, c := range map[string]struct {
		old, new string
		fits     bool
		typ      string
	}{
		"string constant":    {"\t\"b\"", "\t\"c\"", true, "string"},
		"composite literal":  {"[]int{1, 2}", "[]int{1}", true, "[]int"},
		"written type":       {"map[string]int = nil", "map[string]int = map[string]int{}", true, "map[string]int"},
		"integer constant":   {"N = 3", "N = 4", false, ""},
		"grouped":            {"G = \"g\"", "G = \"h\"", false, ""},
		"no readable type":   {"len(D)", "len(D) + 1", false, ""},
		"constant not lits":  {"\t\"b\"", "\t\"b\" + D2", false, ""},
		"type changes":       {"[]int{1, 2}", "[]int64{1, 2}", false, ""},
		"name changes":       {"var B =", "var C =", false, ""},
		"value to typed one": {"const D =", "const D string =", false, ""},
	} {
		mut := strings.Replace(src, c.old, c.new, 1)
		if mut == src {
			t.Fatalf("%s: %q not in the source", name, c.old)
		}
		e, ok := declEdits([]byte(src), []byte(mut), true)
		if ok != c.fits || (ok && (len(e) != 1 || e[0].typ != c.typ)) {
			t.Errorf("%s: edits %+v, fits %v; want fits %v with type %q", name, e, ok, c.fits, c.typ)
		}
		if _, ok := declEdits([]byte(src), []byte(mut), false); ok {
			t.Errorf("%s: fits with function bodies alone", name)
		}
	}
	mut := strings.Replace(src, "\t\"b\"", "\t\"c\"", 1)
	e, _ := declEdits([]byte(src), []byte(mut), true)
	mut2 := strings.Replace(src, "[]int{1, 2}", "[]int{1}", 1)
	e2, _ := declEdits([]byte(src), []byte(mut2), true)
	out, err := schemataFile([]byte(src), []schemaMutant{{n: 3, edits: e}, {n: 4, edits: e2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"var D = func() string { switch waitsimMutant { case 3: return D__wsm3(); }; return \"a\" +\n\t\"b\" }()\n",
		"var B = func() []int { switch waitsimMutant { case 4: return B__wsm4(); }; return []int{1, 2} }()\n",
		"func D__wsm3() string {\n\treturn \"a\" +\n\t\"c\"\n}",
		"func B__wsm4() []int {\n\treturn []int{1}\n}",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	orig, _, _ := strings.Cut(string(out), "\n\nfunc D__wsm3")
	if strings.Count(orig, "\n") != strings.Count(src, "\n") {
		t.Errorf("the original declarations moved to other lines:\n%s", out)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
		t.Errorf("the schemata file does not parse: %v\n%s", err, out)
	}
}

// TestSchemataSites: each mutant's site is marked before the innermost
// statement of a statement list that holds its whole change (never before
// a switch's clause), on the statement's own line, an insertion before the
// statement it follows; a change in a function with a goto is marked at
// the function's start.
func TestSchemataSites(t *testing.T) {
	src := `package p

func F(a, b int, ch chan int) int {
	if a > b {
		a++
	}
	switch a {
	case 1:
		b = a - 1
	}
	select {
	case v := <-ch:
		b += v
	default:
	}
	f := func() int { return a * b }
	a = 1
	b = 2
	return f()
}

func G(a int) int {
	if a > 0 {
		goto end
	}
	a--
end:
	return a
}
`
	cases := []struct {
		name, from, to string
		want           string // the marked statement's text, after the mark
	}{
		{"condition", "a > b", "a >= b", "if a > b {"},
		{"in a branch", "a++", "a--", "a++"},
		{"in a clause", "b = a - 1", "b = a + 1", "b = a - 1"},
		{"in a select clause", "b += v", "b -= v", "b += v"},
		{"in a closure", "return a * b", "return a + b", "return a * b }"},
		{"across siblings", "a = 1\n\tb = 2", "a = 2\n\tb = 3", "a = 1\n"},
		{"with a goto", "a--", "a++", ""},
		{"an insertion", "\treturn f()", "\tb++\n\treturn f()", "return f()\n"},
		{"an insertion in a statement", "return f()", "return f() + 1", "return f()\n"},
		{"at a block's end", "\t\ta++\n", "\t\ta++\n\t\ta++\n", "if a > b {"},
		{"in a clause's expression", "case 1:", "case 2:", "switch a {"},
		{"out of a block", "a++\n\t}\n\tswitch a", "a--\n\t}\n\tswitch b", "if a > b {"},
	}
	for i, c := range cases {
		mut := strings.Replace(src, c.from, c.to, 1)
		e, ok := declEdits([]byte(src), []byte(mut), false)
		if !ok {
			t.Fatalf("%s: no edits", c.name)
		}
		out, err := schemataFile([]byte(src), []schemaMutant{{n: i + 1, edits: e}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		orig, _, _ := strings.Cut(string(out), "end:\n\treturn a\n}\n")
		if want, _, _ := strings.Cut(src, "end:\n\treturn a\n}\n"); strings.Count(orig, "\n") != strings.Count(want, "\n") {
			t.Errorf("%s: lines moved:\n%s", c.name, out)
		}
		mark := fmt.Sprintf("if waitsimSitesOn.Load() { waitsimSite(%d) }; ", i+1)
		if n := strings.Count(string(out), mark); n != 1 {
			t.Fatalf("%s: %d marks %q in\n%s", c.name, n, mark, out)
		}
		_, after, _ := strings.Cut(string(out), mark)
		if c.want == "" {
			if !strings.HasPrefix(after, "if waitsimRecording") {
				t.Errorf("%s: not marked at the function's start:\n%s", c.name, out)
			}
			continue
		}
		if !strings.HasPrefix(after, c.want) {
			t.Errorf("%s: marked before %.30q, want before %q", c.name, after, c.want)
		}
	}
}
