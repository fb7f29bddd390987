package reports

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// strykerSchemaPath is where `make schema-deps` installs mutation-testing-report-schema
// (npm install --prefix out/deps); WAITSIM_STRYKER_SCHEMA overrides it.
func strykerSchemaPath() string {
	if p := os.Getenv("WAITSIM_STRYKER_SCHEMA"); p != "" {
		return p
	}
	return filepath.Join("..", "out", "deps", "node_modules", "mutation-testing-report-schema", "dist", "src", "mutation-testing-report-schema.json")
}

func loadStrykerSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	p := strykerSchemaPath()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("Stryker's published schema is missing (%v): run `make schema-deps`, which installs the npm package "+
			"mutation-testing-report-schema into out/deps (or set WAITSIM_STRYKER_SCHEMA to the schema file)", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: resolve: %v", p, err)
	}
	return rs
}

func validate(t *testing.T, rs *jsonschema.Resolved, doc []byte) error {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return rs.Validate(v)
}

func TestStrykerReportIsValidAgainstPublishedSchema(t *testing.T) {
	rs := loadStrykerSchema(t)
	for _, name := range []string{"base.json", "head.json"} {
		r := loadFixture(t, name)
		b, err := Stryker(r, "..")
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, rs, b); err != nil {
			t.Errorf("%s: invalid against the schema: %v", name, err)
		}
		again, _ := Stryker(loadFixture(t, name), "..")
		if string(again) != string(b) {
			t.Errorf("%s: two renders differ", name)
		}
	}
	// The validator is live: a status the schema does not know, a column 0,
	// a missing source, an unknown schema version are each rejected.
	b, _ := Stryker(loadFixture(t, "head.json"), "..")
	for name, breakIt := range map[string]func(doc map[string]any){
		"status": func(doc map[string]any) { firstMutant(doc)["status"] = "killed" },
		"column": func(doc map[string]any) {
			firstMutant(doc)["location"].(map[string]any)["start"].(map[string]any)["column"] = 0
		},
		"source": func(doc map[string]any) {
			delete(doc["files"].(map[string]any)["catalog/waittool/tool.go"].(map[string]any), "source")
		},
		"schemaVersion": func(doc map[string]any) { doc["schemaVersion"] = "4" },
	} {
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		breakIt(doc)
		if err := rs.Validate(doc); err == nil {
			t.Errorf("the schema accepted a broken %s", name)
		}
	}
}

func firstMutant(doc map[string]any) map[string]any {
	f := doc["files"].(map[string]any)["catalog/waittool/tool.go"].(map[string]any)
	return f["mutants"].([]any)[0].(map[string]any)
}

func TestStrykerContent(t *testing.T) {
	r := loadFixture(t, "head.json")
	b, err := Stryker(r, "..")
	if err != nil {
		t.Fatal(err)
	}
	var rep strykerReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "waittool", "tool.go"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]strykerMutant{}
	for _, key := range []string{"catalog/waittool/tool.go", "operator/waittool/tool.go"} {
		f, ok := rep.Files[key]
		if !ok || f.Source != string(src) || f.Language != "go" {
			t.Fatalf("file entry %s missing or without its source", key)
		}
		for _, m := range f.Mutants {
			byID[m.ID] = m
		}
	}
	if m := byID["no-read-reserve"]; m.Status != "Survived" || m.MutatorName != "Catalog" || !strings.Contains(m.Replacement, "c.now().Before(deadline)") {
		t.Errorf("no-read-reserve: %+v", m)
	}
	for id, m := range byID {
		if strings.HasPrefix(id, "gremlins:") && strings.HasSuffix(id, ":CONDITIONALS_NEGATION") {
			if m.Status != "Survived" || !strings.HasPrefix(m.StatusReason, "timed out") || m.Location.Start.Column != 10 || m.MutatorName != "CONDITIONALS_NEGATION" {
				t.Errorf("%s: %+v", id, m)
			}
		}
	}
	if rep.Thresholds.Low != 80 || rep.Thresholds.High != 100 {
		t.Errorf("thresholds %+v", rep.Thresholds)
	}
	if tf := rep.TestFiles["scenarios/table/latency.yaml"]; len(tf.Tests) != 3 {
		t.Errorf("test files: %+v", rep.TestFiles)
	}
	// A missing source file is an error that names the mutant.
	r.Mutation.Mutants[0].File = "waittool/nope.go"
	if _, err := Stryker(r, ".."); err == nil || !strings.Contains(err.Error(), "mutant no-cap") {
		t.Errorf("missing source: %v", err)
	}
}

func TestStrykerStatusMapping(t *testing.T) {
	want := map[string][2]string{ // operator, catalog
		verdict.StatusKilled: {"Killed", "Killed"}, verdict.StatusSurvived: {"Survived", "Survived"},
		verdict.StatusNotViable: {"CompileError", "Survived"}, verdict.StatusTimedOut: {"Survived", "Survived"},
		verdict.StatusEquivalent: {"Ignored", "Ignored"}, verdict.StatusNoApply: {"RuntimeError", "Survived"},
	}
	for _, st := range verdict.Statuses {
		for i, src := range []string{verdict.SourceGremlins, verdict.SourceCatalog} {
			if got := StrykerStatus(verdict.MutantResult{Status: st, Source: src}); got != want[st][i] {
				t.Errorf("%s %s → %s, want %s", src, st, got, want[st][i])
			}
		}
	}
}

// TestStrykerScoreIsTheGates (issue 11 item 8): the score a Stryker viewer
// computes from the report, per directory (catalog/, operator/), is the
// gate's catalog and operator score; the sanity mutant is not in it.
func TestStrykerScoreIsTheGates(t *testing.T) {
	r := smallRun()
	m := r.Mutation
	m.Mutants = append([]verdict.MutantResult{{ID: "sanity", Source: verdict.SourceSanity, File: "waittool/tool.go", Status: verdict.StatusKilled}},
		verdict.MutantResult{ID: "k2", Source: verdict.SourceGremlins, File: "waittool/tool.go", Status: verdict.StatusKilled})
	m.Mutants = append(m.Mutants, smallRun().Mutation.Mutants...)
	verdict.Evaluate(m)
	b, err := Stryker(r, "..")
	if err != nil {
		t.Fatal(err)
	}
	var rep strykerReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	score := func(key string) (float64, int) {
		det, undet := 0, 0
		for _, mu := range rep.Files[key].Mutants {
			if mu.ID == "sanity" {
				t.Error("the sanity mutant is exported")
			}
			switch mu.Status {
			case "Killed", "Timeout":
				det++
			case "Survived", "NoCoverage":
				undet++
			}
		}
		return 100 * float64(det) / float64(max(det+undet, 1)), det + undet
	}
	if s, n := score("operator/waittool/tool.go"); n != m.OperatorScored || math.Abs(s-m.OperatorScore) > 1e-9 {
		t.Errorf("Stryker's operator score %.2f%% of %d, the gate's %.2f%% of %d", s, n, m.OperatorScore, m.OperatorScored)
	}
	if s, n := score("catalog/waittool/tool.go"); n != m.CatalogScored || math.Abs(s-m.CatalogScore) > 1e-9 {
		t.Errorf("Stryker's catalog score %.2f%% of %d, the gate's %.2f%% of %d", s, n, m.CatalogScore, m.CatalogScored)
	}
}

func TestDiffLine(t *testing.T) {
	d := "--- a/x.go\n+++ b/x.go\n@@ -10,5 +10,5 @@\n ctx\n ctx\n-old\n+new\n ctx\n"
	if got := diffLine(d); got != 12 {
		t.Errorf("diffLine = %d, want 12", got)
	}
	if got := diffLine(""); got != 1 {
		t.Errorf("no hunk: %d", got)
	}
}
