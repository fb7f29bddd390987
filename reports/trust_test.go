package reports

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/cli"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/reports/model"
	"github.com/waitsim/waitsim/results"
)

// TestHeadCampaignNeverRan (issue 11 item 17): a head whose baseline failed
// ran no mutant. The comparison says so, compares no score and lists no
// mutant as removed; the verdict is regressed (its gate fails).
func TestHeadCampaignNeverRan(t *testing.T) {
	base := smallRun()
	base.Mutation.Mutants = []verdict.MutantResult{
		{ID: "sanity", Source: verdict.SourceSanity, File: "waittool/tool.go", Status: verdict.StatusKilled},
		{ID: "a", Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusKilled},
		{ID: "b", Source: verdict.SourceGremlins, File: "waittool/tool.go", Status: verdict.StatusKilled},
	}
	verdict.Evaluate(base.Mutation)
	head := smallRun()
	head.Commit = "head"
	head.Mutation.Mutants = nil
	head.Mutation.Gate = "baseline failed: the unmutated suite fails (TestTable/bad)"
	head.Mutation.Baseline = &verdict.BaselineFailure{Failed: []string{"TestTable/bad"}, Repro: "go test ./scenarios/"}
	head.Mutation.ExitCode = verdict.ExitUntrusted
	verdict.Evaluate(head.Mutation)
	c := Compare(base, head)
	if c.Score != nil || len(c.RemovedMutants) > 0 || len(c.NewSurvivors) > 0 {
		t.Errorf("compared a campaign that never ran: score %+v, removed %v, survivors %d", c.Score, c.RemovedMutants, len(c.NewSurvivors))
	}
	if c.Verdict != VerdictRegressed {
		t.Errorf("verdict %s, want regressed", c.Verdict)
	}
	md := CompareMarkdown(c, CommentLimit)
	for _, bad := range []string{"pts", "Removed mutants", "0.0%"} {
		if strings.Contains(md, bad) {
			t.Errorf("the comment shows %q for a campaign that never ran:\n%s", bad, md)
		}
	}
	if !strings.Contains(md, "head's mutation campaign never ran") || !strings.Contains(md, "baseline failed") {
		t.Errorf("the comment does not say the head's campaign never ran:\n%s", md)
	}
}

// TestNotScoredIsNA (issue 11 item 9): with no operator mutant scored, every
// renderer prints n/a, as the command line does, never 100.0%.
func TestNotScoredIsNA(t *testing.T) {
	r := smallRun()
	r.Mutation.Mutants = []verdict.MutantResult{
		{ID: "a", Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusKilled},
		{ID: "c", Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusSurvived},
		{ID: "nv", Source: verdict.SourceGremlins, File: "waittool/tool.go", Status: verdict.StatusNotViable},
	}
	verdict.Evaluate(r.Mutation)
	if r.Mutation.OperatorScored != 0 {
		t.Fatalf("operator scored %d", r.Mutation.OperatorScored)
	}
	j, err := JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": RunMarkdown(r, 0), "html": string(HTML(r, nil)), "junit": string(j)} {
		if !strings.Contains(out, "n/a") {
			t.Errorf("%s does not print the operator score as n/a", name)
		}
		if strings.Contains(out, "100.0%") {
			t.Errorf("%s prints 100.0%% for a score of nothing", name)
		}
	}
}

// TestWriteCommentLimit (issue 11 item 19): comment.md is cut to the
// comment's limit (64 KB), summary.md only to the summary's (1 MiB).
func TestWriteCommentLimit(t *testing.T) {
	r := bigHead(3000)
	dir := t.TempDir()
	if _, err := Write(dir, r, nil, ".."); err != nil {
		t.Fatal(err)
	}
	c, _ := os.ReadFile(filepath.Join(dir, FileComment))
	s, _ := os.ReadFile(filepath.Join(dir, FileSummary))
	if len(c) > CommentLimit || len(c) < CommentLimit/2 {
		t.Errorf("comment.md is %d bytes, want cut to at most %d", len(c), CommentLimit)
	}
	if len(s) <= CommentLimit || len(s) > SummaryLimit {
		t.Errorf("summary.md is %d bytes, want more than the comment's %d and at most %d", len(s), CommentLimit, SummaryLimit)
	}
}

// baselineStopped is a mutation result as `waitsim mutate` writes it when
// its baseline fails (exit 3): built as the runner builds it, stopped by
// the same call (verdict.Result.StopAtBaseline) and written by the same
// writer (cli.WriteResult): "mutants": null, no counts, scores 0.
func baselineStopped(t *testing.T, commit string) string {
	t.Helper()
	res := &verdict.Result{Version: verdict.ResultVersion, Commit: commit, Suite: verdict.Suite{Pkg: "./scenarios/", Run: "^TestTable$"},
		Options: "target=./waittool/", Ratchet: &verdict.Ratchet{File: "mutants/accepted.yaml", Accepted: []verdict.Accepted{}}, Threshold: 75, BaselineMs: 120,
		Notes: []string{"a note"}}
	res.StopAtBaseline("the unmutated suite fails (TestTable/bad)", &verdict.BaselineFailure{Failed: []string{"TestTable/bad"},
		Repro: "go test ./scenarios/ -run '^TestTable$'", Output: "--- FAIL: TestTable/bad"})
	p := filepath.Join(t.TempDir(), "mutation.json")
	if err := cli.WriteResult(p, res); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []string{`"mutants": null`, `"catalogScore": 0,`, `"exitCode": 3`} {
		if !strings.Contains(string(b), shape) {
			t.Fatalf("the result of a failed baseline does not hold %s:\n%s", shape, b)
		}
	}
	return p
}

// TestReportCampaignStoppedAtBaseline: the mutation result of a campaign
// whose baseline failed is valid input (it says its campaign never ran), not
// an input error: the report heads it ❌ with the reason, never a pass, and
// a comparison with a base that passed is regressed.
func TestReportCampaignStoppedAtBaseline(t *testing.T) {
	s := smallRun().Scenarios
	s.Commit = "c0ffee"
	r, err := Assemble(writeJSON(t, s), baselineStopped(t, "c0ffee"), "", nil)
	if err != nil {
		t.Fatalf("the result of a failed baseline is refused: %v", err)
	}
	icon, line := runHeadline(r)
	if icon != "❌" || !strings.Contains(line, "mutation campaign did not run: baseline failed") || strings.Contains(line, "gate: pass") {
		t.Errorf("headline %s %q, want ❌ and the campaign did not run", icon, line)
	}
	md := RunMarkdown(r, 0)
	if !strings.Contains(md, "No mutant ran") || !strings.Contains(md, "`TestTable/bad`") {
		t.Errorf("the Markdown does not say no mutant ran, and which case failed:\n%s", md)
	}
	j, err := JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), "mutation campaign did not run") {
		t.Errorf("JUnit does not say the campaign did not run:\n%s", j)
	}
	if h := string(HTML(r, nil)); !strings.Contains(h, "Mutants: the campaign did not run") || !strings.Contains(h, `<p class="headline"><span class="badge fail">`) {
		t.Errorf("HTML does not say the campaign did not run, or shows a pass")
	}
	// Its run.json reads back.
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	head, err := model.ParseRun("run.json", b)
	if err != nil {
		t.Fatalf("its run.json is refused: %v", err)
	}
	base := smallRun()
	base.Mutation.Mutants = []verdict.MutantResult{
		{ID: "sanity", Source: verdict.SourceSanity, File: "waittool/tool.go", Status: verdict.StatusKilled},
		{ID: "a", Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusKilled},
	}
	verdict.Evaluate(base.Mutation)
	if c := Compare(base, head); c.Verdict != VerdictRegressed || len(c.MutationNotRun) == 0 {
		t.Errorf("head stopped at its baseline against a passing base: %s (not run: %v), want regressed", c.Verdict, c.MutationNotRun)
	}
}

// TestBaselineFailureWithAnotherExitRefused: a result that records a failed
// baseline is one whose campaign never ran: with a passing gate and exit 0
// it is no file waitsim writes, and is refused naming the field.
func TestBaselineFailureWithAnotherExitRefused(t *testing.T) {
	m := &verdict.Result{Version: verdict.ResultVersion, Threshold: 75, Mutants: []verdict.MutantResult{
		{ID: "sanity", Source: verdict.SourceSanity, File: "waittool/tool.go", Status: verdict.StatusKilled},
		{ID: "a", Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusKilled},
	}}
	verdict.Evaluate(m)
	m.Baseline = &verdict.BaselineFailure{Failed: []string{"TestTable/bad"}}
	_, err := Assemble("", writeJSON(t, m), "", nil)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "exitCode" {
		t.Fatalf("a passing gate with a failed baseline: %v, want an input error on exitCode", err)
	}
}

// wholeCampaign is a mutation result of a whole campaign as the runner
// records it: its mutants, evaluated, and the campaign's selection (the
// count and the hash of the ids, sorted).
func wholeCampaign(ids ...string) *verdict.Result {
	m := &verdict.Result{Version: verdict.ResultVersion, Threshold: 50, Mutants: []verdict.MutantResult{
		{ID: "sanity", Source: verdict.SourceSanity, File: "waittool/tool.go", Status: verdict.StatusKilled}}}
	for _, id := range ids {
		m.Mutants = append(m.Mutants, verdict.MutantResult{ID: id, Source: verdict.SourceCatalog, File: "waittool/tool.go", Status: verdict.StatusKilled})
	}
	m.Campaign = &verdict.Campaign{Total: len(ids), IDsHash: verdict.IDsHash(ids)}
	verdict.Evaluate(m)
	return m
}

// TestCampaignCutConsistentlyRefused: a mutation result cut down with every
// count, score and campaign.total fixed to match, its campaign.idsHash left
// stale or removed, is refused naming campaign.idsHash, never shown as a
// pass; the whole file passes.
func TestCampaignCutConsistentlyRefused(t *testing.T) {
	if _, err := Assemble("", writeJSON(t, wholeCampaign("a", "b", "c")), "", nil); err != nil {
		t.Fatalf("a whole campaign is refused: %v", err)
	}
	stale := wholeCampaign("a", "b", "c")
	cut := wholeCampaign("a", "c") // b (a survivor, say) cut out
	cut.Campaign.IDsHash = stale.Campaign.IDsHash
	removed := wholeCampaign("a", "c")
	removed.Campaign.IDsHash = ""
	for name, m := range map[string]*verdict.Result{"stale hash": cut, "no hash": removed} {
		_, err := Assemble("", writeJSON(t, m), "", nil)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "campaign.idsHash" {
			t.Errorf("%s: %v, want an input error on campaign.idsHash", name, err)
		}
	}
}

// TestKillerNotACaseRefused: with both results, each mutant's killers must
// be cases of the table the scenario result ran (a test of its index, or
// the test or file subtest above one): a killer that is not is an input
// error naming the mutant and the field, in mutation.json and in run.json.
// A kill suite that runs more than the table's test may name other tests;
// a scenario result of a part of the table cannot judge, and is no pass
// anyway.
func TestKillerNotACaseRefused(t *testing.T) {
	scen := func(files ...string) string { // cases of t/a.yaml and t/b.yaml; the table: files
		s := &results.RunResult{Version: results.ResultVersion, Table: &results.Table{Dir: "t", Files: files}}
		for _, f := range []string{"t/a.yaml", "t/b.yaml"} {
			id := strings.TrimSuffix(strings.TrimPrefix(f, "t/"), ".yaml") + "1"
			s.Cases = append(s.Cases, results.CaseResult{ID: id, File: f, Verdict: results.VerdictPass})
			s.Index = append(s.Index, results.IndexEntry{ID: id, File: f, Test: "TestTable/" + strings.TrimPrefix(f, "t/") + "/" + id})
		}
		s.Count()
		return writeJSON(t, s)
	}
	mut := func(run string, killers ...string) *verdict.Result {
		m := wholeCampaign("a")
		m.Suite = verdict.Suite{Pkg: "./scenarios/", Run: run}
		m.Mutants[1].KilledBy = killers
		return m
	}
	whole := scen("t/a.yaml", "t/b.yaml")
	for _, c := range []struct {
		name    string
		scen    string
		m       *verdict.Result
		refused bool
	}{
		{"a case", whole, mut("^TestTable$", "TestTable/b.yaml/b1", "TestTable/a.yaml/a1"), false},
		{"the test itself", whole, mut("^TestTable$", "TestTable"), false},
		{"a file's subtest", whole, mut("^TestTable$", "TestTable/a.yaml"), false},
		{"no case", whole, mut("^TestTable$", "TestTable/a.yaml/a1", "TestTable/a.yaml/forged"), true},
		{"another test", whole, mut("^TestTable$", "TestOther"), true},
		{"another test the suite runs", whole, mut("^(TestTable|TestOther)$", "TestOther"), false},
		{"no case, the suite running more", whole, mut("^(TestTable|TestOther)$", "TestTable/z.yaml/z1"), true},
		{"a part of the table", scen("t/a.yaml", "t/b.yaml", "t/c.yaml"), mut("^TestTable$", "TestTable/c.yaml/c1"), false},
	} {
		mp := writeJSON(t, c.m)
		r, err := Assemble(c.scen, mp, "", nil)
		var ie *InputError
		switch {
		case !c.refused && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.refused && (!errors.As(err, &ie) || ie.File != mp || !strings.HasPrefix(ie.Field, "mutants[1].killedBy[") || !strings.Contains(ie.Msg, "mutant a")):
			t.Errorf("%s: %v, want an input error on mutants[1].killedBy naming mutant a", c.name, err)
		}
		if c.refused {
			// The same Run, as a run.json, is refused too.
			s, _ := Assemble(c.scen, "", "", nil)
			m, _ := Assemble("", mp, "", nil)
			b, _ := (&Run{Version: RunVersion, Scenarios: s.Scenarios, Mutation: m.Mutation}).Marshal()
			if _, err := model.ParseRun("run.json", b); !errors.As(err, &ie) || !strings.HasPrefix(ie.Field, "mutation.mutants[1].killedBy[") {
				t.Errorf("%s: run.json: %v, want an input error on mutation.mutants[1].killedBy", c.name, err)
			}
		} else if err == nil && r.Mutation == nil {
			t.Errorf("%s: no mutation result", c.name)
		}
	}
}
