package mutants

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/mutation"
)

// contractSection returns the text of section "## n." of docs/contract.md, up
// to the next "## " heading.
func contractSection(t *testing.T, n string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## "+n+". ")
	if start < 0 {
		t.Fatalf("docs/contract.md has no section ## %s.", n)
	}
	sec := doc[start+1:]
	if end := strings.Index(sec, "\n## "); end >= 0 {
		sec = sec[:end]
	}
	return sec
}

// TestContractListsCatalog: contract §5 lists every catalog mutant by its
// stable id, one "- `id`: description" line each, and lists no mutant the
// catalog does not have.
func TestContractListsCatalog(t *testing.T) {
	entries, err := mutation.LoadCatalog("..", "mutants/catalog")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("empty catalog")
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	var listed []string
	line := regexp.MustCompile("(?m)^- `([a-z0-9-]+)`: \\S")
	for _, m := range line.FindAllStringSubmatch(contractSection(t, "5"), -1) {
		if slices.Contains(listed, m[1]) {
			t.Errorf("docs/contract.md §5 lists %s twice", m[1])
		}
		listed = append(listed, m[1])
	}
	for _, id := range ids {
		if !slices.Contains(listed, id) {
			t.Errorf("docs/contract.md §5 does not list catalog mutant %s (mutants/catalog/%s.yaml): add a line \"- `%s`: <what the defect does>\"", id, id, id)
		}
	}
	for _, id := range listed {
		if !slices.Contains(ids, id) {
			t.Errorf("docs/contract.md §5 lists %s, which is not in mutants/catalog/", id)
		}
	}
}
