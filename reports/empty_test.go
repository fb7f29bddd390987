package reports

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
)

// TestEmptyResultsSayNoResults: a scenario result without cases and a
// mutation result without mutants are not successes in JUnit, HTML or the
// Stryker report.
func TestEmptyResultsSayNoResults(t *testing.T) {
	r := &Run{Version: RunVersion, Commit: "c0ffee",
		Scenarios: &results.RunResult{Version: results.ResultVersion},
		Mutation:  &verdict.Result{Version: verdict.ResultVersion, Gate: "zero mutants tested"}}
	r.Normalize()

	j, err := JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	if err := xml.Unmarshal(j, &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Errors != 2 || len(suites.Suites) != 2 {
		t.Fatalf("JUnit: %d errors in %d suites, want 2 in 2:\n%s", suites.Errors, len(suites.Suites), j)
	}
	for _, s := range suites.Suites {
		if s.Errors != 1 || len(s.Cases) != 1 || s.Cases[0].Error == nil || s.Cases[0].Error.Type != "no results" {
			t.Errorf("JUnit suite %s does not say no results:\n%s", s.Name, j)
		}
	}
	empty, err := JUnit(&Run{Version: RunVersion})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(empty), `errors="1"`) || !strings.Contains(string(empty), `type="no results"`) {
		t.Errorf("JUnit of a run with neither result:\n%s", empty)
	}

	page := string(HTML(r, nil))
	for _, want := range []string{"Scenarios: no results", "Mutants: no results", `<p class="headline"><span class="badge fail">fail</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML does not say %q", want)
		}
	}
	if strings.Contains(page, "0 passed") {
		t.Error("HTML counts 0 passed as a result")
	}
	parsePage(t, HTML(r, nil)) // still well-formed

	st, err := Stryker(r, ".")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Config map[string]string `json:"config"`
	}
	if err := json.Unmarshal(st, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Config["note"], "no results") {
		t.Errorf("Stryker report does not say no results:\n%s", st)
	}
	if err := validate(t, loadStrykerSchema(t), st); err != nil {
		t.Errorf("Stryker report with a note is not valid: %v", err)
	}
}
