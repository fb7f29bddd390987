package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestSummaryScores: P2-a, P2-b, P2-c, P3. "n/a" when nothing was scored;
// a catalog mutant that no longer applies counts against the catalog
// score; --diff with nothing changed passes; not-viable reasons and a
// failed baseline print cleanly.
func TestSummaryScores(t *testing.T) {
	sum := func(r *verdict.Result) string {
		var b bytes.Buffer
		Summary(&b, r)
		return b.String()
	}
	san := verdict.MutantResult{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled}
	r := &verdict.Result{Threshold: 100, DiffRef: "main", Mutants: []verdict.MutantResult{san}}
	verdict.Evaluate(r)
	if s := sum(r); r.ExitCode != verdict.ExitPass || !strings.Contains(s, "no mutants on lines changed since main") || !strings.Contains(s, "catalog n/a, operator n/a") {
		t.Errorf("--diff, nothing changed: exit %d\n%s", r.ExitCode, s)
	}
	r = &verdict.Result{Threshold: 100, Mutants: []verdict.MutantResult{san}}
	if verdict.Evaluate(r); r.ExitCode != verdict.ExitNothingTested {
		t.Errorf("nothing without --diff: exit %d, want 4", r.ExitCode)
	}
	r = &verdict.Result{Threshold: 100, Mutants: []verdict.MutantResult{san,
		{ID: "a", Source: verdict.SourceCatalog, Status: verdict.StatusKilled},
		{ID: "b", Source: verdict.SourceCatalog, Status: verdict.StatusNoApply, Detail: "catalog mutant b no longer applies"},
		{ID: "g", Source: verdict.SourceGremlins, Status: verdict.StatusNotViable, Detail: "does not type-check:\nx.go:3:1: undefined: y\n"}}}
	verdict.Evaluate(r)
	s := sum(r)
	if r.CatalogScore == 100 || strings.Contains(s, "catalog 100") || !strings.Contains(s, "operator n/a") {
		t.Errorf("no-apply next to a 100%% catalog score:\n%s", s)
	}
	if !strings.Contains(s, "does not type-check: x.go:3:1: undefined: y") {
		t.Errorf("not viable without its reason:\n%s", s)
	}
	r = &verdict.Result{Gate: "baseline failed: the unmutated suite fails (TestTable/a)", ExitCode: verdict.ExitUntrusted,
		Baseline: &verdict.BaselineFailure{Failed: []string{"TestTable/a"}, Repro: "go test ./scenarios/ -run '^TestTable$'", Output: "tool:4 progress 2250 (cost 500 ms)"}}
	verdict.Evaluate(r)
	s = sum(r)
	if r.ExitCode != verdict.ExitUntrusted || strings.Contains(s, "note:") || strings.Contains(s, "mutants: \n") || !strings.Contains(s, "failing cases: TestTable/a") || !strings.Contains(s, "repro: go test ./scenarios/") {
		t.Errorf("baseline failure summary (exit %d):\n%s", r.ExitCode, s)
	}
}

// TestSummaryGremlinsRatio: with --measure-gremlins the summary gives the
// per-mutant ratio of the same run: campaign wall over mutants, each side.
func TestSummaryGremlinsRatio(t *testing.T) {
	res := &verdict.Result{WallMs: 4000, Mutants: make([]verdict.MutantResult, 40), Gremlins: &verdict.GremlinsRun{WallMs: 60000, Tested: 30, PerMutantMs: 2000}}
	var b strings.Builder
	Summary(&b, res)
	if want := "per mutant: waitsim 100 ms (wall over 40 mutants), gremlins 2000 ms: waitsim 20.0× faster"; !strings.Contains(b.String(), want) {
		t.Fatalf("summary lacks %q:\n%s", want, b.String())
	}
}

// TestSummaryTimes (issue 11 item 15): a run whose every verdict came from
// the cache prints no "median 0 ms"; times are labelled as build + run,
// apart from the timeout, which is the test run's alone.
func TestSummaryTimes(t *testing.T) {
	r := &verdict.Result{Threshold: 100, TimeoutMs: 5000, Mutants: []verdict.MutantResult{
		{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled, Cached: true, DurationMs: 900},
		{ID: "c", Source: verdict.SourceCatalog, Status: verdict.StatusKilled, Cached: true, DurationMs: 7000},
	}}
	verdict.Evaluate(r)
	var b bytes.Buffer
	Summary(&b, r)
	out := b.String()
	if strings.Contains(out, "median 0 ms") || !strings.Contains(out, "median n/a") {
		t.Errorf("a fully cached run:\n%s", out)
	}
	if !strings.Contains(out, "mutant timeout 5000 ms (of the test run alone; a mutant's time adds its build)") {
		t.Errorf("the timeout is not labelled:\n%s", out)
	}
	var p bytes.Buffer
	pr := NewProgress(&p, false, 1)
	pr.Done(verdict.MutantResult{ID: "x", Status: verdict.StatusKilled, DurationMs: 7000})
	if !strings.Contains(p.String(), "7.0s build + run") {
		t.Errorf("a mutant's time is not labelled: %q", p.String())
	}
}

// TestSummaryOneLines: a mutant's id, source and intent (from a catalog
// or a result file) are written one line each, so none can start a line
// of the log of its own (a GitHub workflow command, "::error …").
func TestSummaryOneLines(t *testing.T) {
	r := &verdict.Result{Mutants: []verdict.MutantResult{
		{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled},
		{ID: "m", Source: verdict.SourceCatalog, Status: verdict.StatusSurvived, Intent: "x\n::error file=README.md,line=1::forged"},
	}}
	verdict.Evaluate(r)
	var b bytes.Buffer
	Summary(&b, r)
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "::") {
			t.Errorf("a line of the summary is a workflow command: %q\n%s", l, b.String())
		}
	}
}
