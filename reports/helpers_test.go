package reports

import (
	"path/filepath"
	"testing"

	"github.com/waitsim/waitsim/mutants"
	"github.com/waitsim/waitsim/reports/model"
	"github.com/waitsim/waitsim/results"
)

// loadFixture reads a Run fixture of testdata/ (TestGenerateFixtures).
func loadFixture(t *testing.T, name string) *Run {
	t.Helper()
	r, err := LoadRun(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run builds a small Run in code, for tests that need a precise shape.
func smallRun() *model.Run {
	s := &results.RunResult{Version: results.ResultVersion, Cases: []results.CaseResult{
		{ID: "ok", File: "scenarios/table/a.yaml", Line: 1, Verdict: results.VerdictPass, Repro: "repro ok"},
		{ID: "bad", File: "scenarios/table/a.yaml", Line: 9, Verdict: results.VerdictFail, Failures: []string{"want <x> & got \"y\""}, Repro: "repro bad"},
		{ID: "boom", File: "scenarios/table/b.yaml", Line: 4, Verdict: results.VerdictError, Error: "horizon reached", Repro: "repro boom"},
	}}
	tally(s)
	m := &mutants.Result{Version: mutants.ResultVersion, Gate: "pass", Threshold: 75, Mutants: []mutants.MutantResult{
		{ID: "k", Source: mutants.SourceCatalog, File: "waittool/tool.go", Status: mutants.StatusKilled, KilledBy: []string{"bad"}},
		{ID: "s", Source: mutants.SourceCatalog, File: "waittool/tool.go", Status: mutants.StatusSurvived, Diff: "@@ -1 +1 @@\n-a\n+b\n"},
		{ID: "nv", Source: mutants.SourceGremlins, File: "waittool/tool.go", Status: mutants.StatusNotViable},
		{ID: "to", Source: mutants.SourceGremlins, File: "waittool/tool.go", Status: mutants.StatusTimedOut},
		{ID: "na", Source: mutants.SourceCatalog, File: "waittool/tool.go", Status: mutants.StatusNoApply},
		{ID: "eq", Source: mutants.SourceGremlins, File: "waittool/tool.go", Status: mutants.StatusEquivalent},
	}}
	r := &model.Run{Version: model.RunVersion, Commit: "c0ffee", Scenarios: s, Mutation: m}
	r.Normalize()
	return r
}
