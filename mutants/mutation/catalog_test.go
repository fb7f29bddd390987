package mutation

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestCatalogMalformedPatch: a malformed patch is a problem of the catalog,
// at the patch's line in its catalog file, when the catalog is loaded
// (exit 2, nothing runs); before, it loaded and ended after the baseline as
// patch-no-longer-applies, as if the source had moved. A well-formed patch
// whose lines the source does not have still loads: that one is the
// mutant's status, not the catalog's problem.
func TestCatalogMalformedPatch(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte("package p\n\nfunc F(a int) int {\n\treturn a + 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const hdr = "--- a/p.go\n+++ b/p.go\n"
	const body = " func F(a int) int {\n-\treturn a + 1\n+\treturn a - 1\n }\n"
	for _, c := range []struct{ name, patch, want string }{
		{"counts", hdr + "@@ -3,300 +3,3 @@\n" + body,
			"x.yaml:7:3: patch: malformed: fragment header miscounts lines: -297 old, +0 new"},
		{"fewer-counts", hdr + "@@ -3,2 +3,2 @@\n" + body,
			`x.yaml:11:4: patch: malformed: " }" is outside every hunk: the header of hunk 1 (@@ -3,2 +3,2 @@) counts fewer lines than follow it (2 old, 2 new)`},
		{"two-files", hdr + "@@ -3,3 +3,3 @@\n" + body + hdr + "@@ -3,3 +3,3 @@\n" + body,
			`x.yaml:12:3: patch: malformed: "--- a/p.go": a second file header: a patch changes one file, with one --- and one +++ header`},
		{"two-minus-headers", "--- a/p.go\n" + hdr + "@@ -3,3 +3,3 @@\n" + body,
			`x.yaml:6:3: patch: malformed: "--- a/p.go": a second file header: a patch changes one file, with one --- and one +++ header`},
		{"huge-start", hdr + "@@ -99999999999999999999,3 +3,3 @@\n" + body,
			"x.yaml:7:3: patch: malformed: invalid fragment header: bad start of range: 99999999999999999999: value out of range"},
		{"empty-hunk", hdr + "@@ -0,0 +0,0 @@\n",
			"x.yaml:7:3: patch: malformed: no content following fragment header"},
		{"empty-hunk-then-lines", hdr + "@@ -0,0 +0,0 @@\n" + body,
			"x.yaml:7:3: patch: malformed: fragment contains no changes"},
		{"no-hunk", hdr,
			"x.yaml:5:3: patch: malformed: no file header and hunk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, c.name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			src := "intent: x\nspec: y\nfile: p.go\npatch: |\n" + "  " + strings.ReplaceAll(strings.TrimSuffix(c.patch, "\n"), "\n", "\n  ") + "\n"
			if err := os.WriteFile(filepath.Join(dir, "x.yaml"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadCatalog(root, c.name)
			var ce *CatalogError
			if !errors.As(err, &ce) || !errors.Is(err, verdict.ErrUsage) {
				t.Fatalf("got %v; want a *CatalogError", err)
			}
			if len(ce.Problems) != 1 || !strings.HasPrefix(ce.Problems[0], c.name+"/"+c.want) {
				t.Errorf("problems %q\nwant %q…", ce.Problems, c.name+"/"+c.want)
			}
		})
	}
	// Well-formed, but the source has other lines: it loads.
	moved := hdr + "@@ -3,3 +3,3 @@\n func F(a int) int {\n-\treturn a * 2\n+\treturn a - 1\n }\n"
	dir := filepath.Join(root, "moved")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "intent: x\nfile: p.go\npatch: |\n  " + strings.ReplaceAll(strings.TrimSuffix(moved, "\n"), "\n", "\n  ") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "x.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if cat, err := LoadCatalog(root, "moved"); err != nil || len(cat) != 1 {
		t.Fatalf("a well-formed patch of moved lines: %v, %v; want it loaded", cat, err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "p.go"))
	if _, _, err := ApplyPatch(b, moved); !errors.Is(err, ErrNoLongerApplies) {
		t.Errorf("ApplyPatch: %v; want ErrNoLongerApplies", err)
	}
}

// TestEquivalentsProblems: every problem of the equivalents file is one
// line file:line:column: field: message, as the accepted file's are, and a
// usage error; before, a few named the file alone (entry 1 needs id,
// source and a one-line reason; x listed twice), a wrong type gave
// go-yaml's excerpt over several lines, and a source of 5 (a number) was
// read as the text "5".
func TestEquivalentsProblems(t *testing.T) {
	dir := t.TempDir()
	const good = "- id: gremlins:p.go:1:1:ARITHMETIC_BASE\n  source: \"return a + 1\"\n  reason: r\n"
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"dup", good + good, []string{`4:7: equivalents[1].id: "gremlins:p.go:1:1:ARITHMETIC_BASE" is listed already by equivalents[0]`}},
		{"missing", "- id: a\n  reason: r\n", []string{"1:3: equivalents[0].source: required field is missing (an entry has id, source and reason)"}},
		{"empty and two lines", "- id: a\n  source: \" \"\n  reason: |\n    one\n    two\n", []string{
			"2:11: equivalents[0].source: empty: want the trimmed source line the mutant was judged on",
			"3:11: equivalents[0].reason: must be one line"}},
		{"wrong type", "- id: a\n  source: x\n  reason: [r]\n", []string{"3:11: equivalents[0].reason: want a string"}},
		{"source a number", "- id: a\n  source: 5\n  reason: r\n", []string{"2:11: equivalents[0].source: want a string"}},
		{"id a boolean", "- id: true\n  source: x\n  reason: r\n", []string{"1:7: equivalents[0].id: want a string"}},
		{"unknown field", good[:len(good)-1] + "\n  why: r\n", []string{"4:3: equivalents[0].why: unknown field (an entry has id, source and reason)"}},
		{"not a list", "id: a\n", []string{"1:3: equivalents: want a list of entries, each a mapping of id, source and reason"}},
		{"not YAML", "- id: [a\n", []string{"1:7: yaml: sequence end token ']' not found"}},
		{"nested too deep", "- id: " + strings.Repeat("[", 40) + "\n", []string{"1:13: yaml: nested more than 8 levels deep"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadEquivalents(path)
			var ee *EquivalentsError
			if !errors.As(err, &ee) || !errors.Is(err, verdict.ErrUsage) {
				t.Fatalf("got %v; want an *EquivalentsError, a usage error", err)
			}
			if len(ee.Problems) != len(c.want) {
				t.Fatalf("problems %q, want %q", ee.Problems, c.want)
			}
			for i, w := range c.want {
				if !strings.HasPrefix(ee.Problems[i], path+":"+w) {
					t.Errorf("problem %d\n got %s\nwant %s:%s…", i, ee.Problems[i], path, w)
				}
			}
		})
	}
	path := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(path, []byte("# equivalents\n"+good), 0o644); err != nil {
		t.Fatal(err)
	}
	eq, err := LoadEquivalents(path)
	if e := eq["gremlins:p.go:1:1:ARITHMETIC_BASE"]; err != nil || len(eq) != 1 || e.Source != "return a + 1" || e.Reason != "r" {
		t.Errorf("a good file: %+v, %v", eq, err)
	}
	for _, src := range []string{"", "# none\n", "[]\n", "~\n"} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if eq, err := LoadEquivalents(path); err != nil || len(eq) != 0 {
			t.Errorf("%q: %v, %v; want no entries", src, eq, err)
		}
	}
}
