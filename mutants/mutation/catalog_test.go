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
