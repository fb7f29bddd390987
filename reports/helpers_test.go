package reports

import (
	"path/filepath"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
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
	m := &verdict.Result{Version: verdict.ResultVersion, Gate: "pass", Threshold: 75, Mutants: []verdict.MutantResult{
		{ID: "k", Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusKilled, KilledBy: []string{"bad"}},
		{ID: "s", Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusSurvived, Diff: "@@ -1 +1 @@\n-a\n+b\n"},
		{ID: "nv", Source: verdict.SourceGremlins, File: "waittool/tool.go", Status: verdict.StatusNotViable},
		{ID: "to", Source: verdict.SourceGremlins, File: "waittool/tool.go", Status: verdict.StatusTimedOut},
		{ID: "na", Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusNoApply},
		{ID: "eq", Source: verdict.SourceGremlins, File: "waittool/tool.go", Status: verdict.StatusEquivalent},
	}}
	r := &model.Run{Version: model.RunVersion, Commit: "c0ffee", Scenarios: s, Mutation: m}
	r.Normalize()
	return r
}
