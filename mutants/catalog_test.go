package mutants

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestCatalogProblems: every authoring error of a catalog is reported at
// once, each as "file:line:column: field: message" in the order of the
// files and of each file, as the scenario loader reports its problems; at
// most MaxCatalogProblems of them, then how many more.
func TestCatalogProblems(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p.go", "package p\n")
	good := "intent: x\nspec: y\nfile: p.go\npatch: |\n" + indent(patchB)
	write("a-typo.yaml", "# a typo, and a field too many\nintnet: x\nspec: y\nfile: p.go\npatch: |\n"+indent(patchB)+"bogus: 1\n")
	write("b-types.yaml", "intent: [x]\nspec: y\nfile: {p: go}\npatch: |\n"+indent(patchB))
	write("b-twice.yaml", "intent: x\nfile: p.go\nfile: p.go\n")
	write("c-good.yaml", good)
	write("0-first.yml", "bogus: 1\n"+good) // *.yml among *.yaml, in name order
	write("d-lines.yaml", "intent: \"two\\nlines\"\nfile: p.go\npatch: \"no header\"\n")
	write("Bad_Id.yaml", good)
	write("e-empty.yaml", "# nothing\n")
	write("f-syntax.yaml", "intent: [x\n")
	write("g-big.yaml", "intent: "+strings.Repeat("x", mutation.MaxCatalogFileBytes)+"\n")
	_, err := mutation.LoadCatalog(dir, ".")
	var ce *mutation.CatalogError
	if !errors.As(err, &ce) || !errors.Is(err, verdict.ErrUsage) {
		t.Fatalf("want a *CatalogError that is a usage error, got %v", err)
	}
	want := []string{
		"0-first.yml:1:1: bogus: unknown field (known here: intent, spec, file, patch)",
		`Bad_Id.yaml:1:1: id: "Bad_Id" (the file's name) is not lower-case kebab-case`,
		"a-typo.yaml:2:1: intnet: unknown field (known here: intent, spec, file, patch)",
		"a-typo.yaml:2:1: intent: required field is missing",
		"a-typo.yaml:13:1: bogus: unknown field (known here: intent, spec, file, patch)",
		`b-twice.yaml:3:1: yaml: mapping key "file" already defined at [2:1]`,
		"b-types.yaml:1:9: intent: want a string",
		"b-types.yaml:3:7: file: want a string",
		`d-lines.yaml:1:9: intent: must be one non-empty line`,
		`d-lines.yaml:3:8: patch: names no file: want the headers --- a/p.go and +++ b/p.go`,
		"e-empty.yaml:1:1: entry: want one mapping of intent, spec, file and patch",
		"f-syntax.yaml:1:9: yaml: sequence end token ']' not found",
		fmt.Sprintf("g-big.yaml:1:1: file: is %d bytes, more than the limit of %d for a catalog entry (docs/scenarios.md: Limits)", mutation.MaxCatalogFileBytes+len("intent: \n"), mutation.MaxCatalogFileBytes),
	}
	if got := strings.Join(ce.Problems, "\n"); got != strings.Join(want, "\n") || ce.More != 0 {
		t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(ce.Problems, "\n  "), strings.Join(want, "\n  "))
	}
	if !strings.HasPrefix(ce.Error(), "13 problem(s) in the mutation catalog; nothing ran:\n  0-first.yml:1:1: bogus:") {
		t.Errorf("Error(): %s", ce.Error())
	}

	// Bounded: MaxCatalogProblems listed, the rest counted.
	many := t.TempDir()
	for i := range verdict.MaxProblems + 7 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("m%03d.yaml", i)), []byte("bogus: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Each file: the unknown field, then intent, file and patch missing.
	total := 4 * (verdict.MaxProblems + 7)
	_, err = mutation.LoadCatalog(many, ".")
	if !errors.As(err, &ce) || len(ce.Problems) != verdict.MaxProblems || ce.More != total-verdict.MaxProblems {
		t.Fatalf("bounded: %d problems, %d more, want %d and %d", len(ce.Problems), ce.More, verdict.MaxProblems, total-verdict.MaxProblems)
	}
	if msg := ce.Error(); !strings.HasSuffix(msg, fmt.Sprintf("\n  … and %d more", ce.More)) || !strings.HasPrefix(msg, fmt.Sprintf("%d problem(s)", total)) {
		t.Errorf("bounded Error(): …%s", msg[max(0, len(msg)-200):])
	}
}

// TestCatalogTypoCommand: `waitsim mutate` with a catalog entry whose field
// is misspelt exits 2 at once, printing every problem as
// file:line:column: field: message (not a "usage" line of another form,
// not only the first problem), and writes nothing.
func TestCatalogTypoCommand(t *testing.T) {
	root := copyFixture(t)
	add, err := os.ReadFile(filepath.Join(root, "catalog", "add-subtracts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	typo := strings.Replace(strings.Replace(string(add), "intent:", "intnet:", 1), "spec:", "sepc:", 1)
	if err := os.WriteFile(filepath.Join(root, "catalog", "zz-typo.yaml"), []byte(typo), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root)
	out := filepath.Join(t.TempDir(), "m.json")
	var stdout, stderr bytes.Buffer
	code := Command(context.Background(), []string{"--root", root, "--pkg", "./calc/", "--target", "./calc/",
		"--catalog", "catalog", "--config", "gremlins.yaml", "--equivalents", "none.yaml", "--no-operators",
		"--no-cache", "--progress", "off", "--out", out}, &stdout, &stderr)
	want := "waitsim mutate: 3 problem(s) in the mutation catalog; nothing ran:\n" +
		"  catalog/zz-typo.yaml:1:1: intnet: unknown field (known here: intent, spec, file, patch)\n" +
		"  catalog/zz-typo.yaml:1:1: intent: required field is missing\n" +
		"  catalog/zz-typo.yaml:2:1: sepc: unknown field (known here: intent, spec, file, patch)\n"
	if code != verdict.ExitUsage || stderr.String() != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d and:\n%s", code, stderr.String(), verdict.ExitUsage, want)
	}
	sameSnapshot(t, before, snapshot(t, root))
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run wrote its result")
	}
}

// TestApplyPatchRefusesNewFile: ApplyPatch, the one place a patch is
// applied, refuses a patch that creates, deletes or renames a file, whoever calls it
// (LoadCatalog refuses such an entry before).
func TestApplyPatchRefusesNewFile(t *testing.T) {
	for _, p := range []string{
		"--- /dev/null\n+++ b/p.go\n@@ -0,0 +1 @@\n+package p\n",
		"--- a/p.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-package p\n",
		"diff --git a/p.go b/q.go\nsimilarity index 90%\nrename from p.go\nrename to q.go\n--- a/p.go\n+++ b/q.go\n@@ -1 +1 @@\n-package p\n+package q\n",
	} {
		if _, _, err := mutation.ApplyPatch([]byte("package p\n"), p); err == nil || !strings.Contains(err.Error(), "creates, deletes, renames or copies a file") {
			t.Errorf("%q: %v", p, err)
		}
	}
}
