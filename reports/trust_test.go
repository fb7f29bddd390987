package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
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
