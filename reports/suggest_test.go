package reports

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/reports/model"
)

// generatorFixture is head.json's run with a generator campaign: every
// mutant the table ran also got a generator verdict, one survivor a
// suggested case and another a note why there is none.
func generatorFixture(t *testing.T) (*Run, verdict.MutantResult) {
	t.Helper()
	r := loadFixture(t, "head.json")
	m := r.Mutation
	m.Generator = &verdict.GeneratorCampaign{Run: "^TestGenerated$", Worlds: 200, BaselineMs: 5000}
	var surv verdict.MutantResult
	n := 0
	for i := range m.Mutants { // a second survivor, with no suggestion
		if mu := &m.Mutants[i]; mu.Source == verdict.SourceCatalog && mu.Status == verdict.StatusKilled {
			mu.Status, mu.KilledBy = verdict.StatusSurvived, nil
			break
		}
	}
	for i := range m.Mutants {
		mu := &m.Mutants[i]
		if mu.Source == verdict.SourceSanity || (mu.Status != verdict.StatusKilled && mu.Status != verdict.StatusSurvived) {
			continue
		}
		mu.Generator = verdict.StatusKilled
		if mu.Status == verdict.StatusSurvived {
			if n == 0 {
				mu.Suggested = "# protects: " + mu.ID + "\nname: suggested-x\ncallers:\n  - name: A\n    args: {timeoutMs: 1000}\nexpect:\n  - resolvesAtMs: 1000\n"
				mu.SuggestedFile = "out/suggested/suggested-x.yaml"
				surv = *mu
			} else {
				mu.SuggestNote = "none of 400 generated worlds tells head and the mutant apart"
			}
			n++
		}
	}
	if n < 2 {
		t.Fatalf("the fixture has %d survivors, want 2", n)
	}
	verdict.Evaluate(m)
	return r, surv
}

// TestGeneratorAndSuggestionShown: Markdown and HTML show the generator's
// kill rate beside the table's, and a survivor's suggested case under its
// diff (or why there is none).
func TestGeneratorAndSuggestionShown(t *testing.T) {
	r, surv := generatorFixture(t)
	g := r.Mutation.Generator
	if g.CatalogScored+g.OperatorScored == 0 {
		t.Fatalf("no mutant scored by the generator: %+v", g)
	}
	rate := "Generator alone (200 worlds a mutant"
	md := RunMarkdown(r, 0)
	html := string(HTML(r, nil))
	for name, doc := range map[string]string{"markdown": md, "html": html} {
		if !strings.Contains(doc, rate) || !strings.Contains(doc, "the table&#39;s: catalog") && !strings.Contains(doc, "the table's: catalog") {
			t.Errorf("%s: no generator rate beside the table's", name)
		}
		i, j := strings.Index(doc, surv.ID), strings.Index(doc, "name: suggested-x")
		if i < 0 || j < i {
			t.Errorf("%s: the suggested case is not under survivor %s", name, surv.ID)
		}
		if !strings.Contains(doc, "none of 400 generated worlds") {
			t.Errorf("%s: the note of a survivor without a suggestion is missing", name)
		}
	}
	if !strings.Contains(md, "```yaml\n# protects: "+surv.ID) {
		t.Errorf("markdown: the suggestion is not a YAML block ready to copy:\n%s", md)
	}
}

// TestGeneratorCountsChecked: a result whose generator counts are not its
// mutants' is an input error naming the field.
func TestGeneratorCountsChecked(t *testing.T) {
	r, _ := generatorFixture(t)
	m := r.Mutation
	m.Generator.CatalogKilled++
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mutation.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = model.LoadMutation(path)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "generator.catalogKilled") {
		t.Fatalf("err %v, want an input error naming generator.catalogKilled", err)
	}
}
