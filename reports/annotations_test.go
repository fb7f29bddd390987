package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/reports/model"
)

// ratchetRun is a mutation result of a new survivor (whose intent holds
// every character a workflow command must escape, and a suggested case), an
// accepted survivor, an accepted mutant killed now and a stale entry.
func ratchetRun() *verdict.Result {
	m := &verdict.Result{Version: verdict.ResultVersion, Threshold: 100,
		Options: `target=./calc/ no-catalog=false no-operators=false only="" diff=""`,
		Ratchet: &verdict.Ratchet{File: "waitsim/accepted.yaml", Accepted: []verdict.Accepted{
			{ID: "label-changes", Reason: "nothing reads Label | *yet*", Line: 2},
			{ID: "add-subtracts", Reason: "once a gap", Line: 4},
			{ID: "gone", Reason: "removed", Line: 6},
		}},
		Mutants: []verdict.MutantResult{
			{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled},
			{ID: "add-subtracts", Source: verdict.SourceCatalog, Status: verdict.StatusKilled, File: "calc/calc.go", Line: 12},
			{ID: "label-changes", Source: verdict.SourceCatalog, Status: verdict.StatusSurvived, File: "calc/calc.go", Line: 34, Intent: "Label says w="},
			{ID: "gremlins:calc/calc.go:17:7:CONDITIONALS_BOUNDARY", Source: verdict.SourceGremlins, Status: verdict.StatusSurvived,
				File: "calc/calc.go", Line: 17, Intent: "100% wrong, at a: b\r\nline two",
				Suggested: "# protects: x\n", SuggestedFile: "out/suggested/suggested-x.yaml"},
		}}
	verdict.Evaluate(m)
	return m
}

// TestAnnotations: a ::warning on the line of each new survivor (with its
// intent and its suggested case), none for an accepted one, a ::notice on
// each entry that can go or is stale; every value escaped as GitHub's
// toolkit escapes it.
func TestAnnotations(t *testing.T) {
	var b bytes.Buffer
	n, err := Annotations(&b, ratchetRun(), "sub/mod/")
	if err != nil {
		t.Fatal(err)
	}
	want := "::warning file=sub/mod/calc/calc.go,line=17,title=waitsim%3A new survivor gremlins%3Acalc/calc.go%3A17%3A7%3ACONDITIONALS_BOUNDARY (survived)" +
		"::100%25 wrong, at a: b%0D%0Aline two%0AA case that kills it (waitsim mutate --suggest): sub/mod/out/suggested/suggested-x.yaml" +
		"%0ANew survivor: not in sub/mod/waitsim/accepted.yaml. Add a case that kills it, or accept it there with a reason.\n" +
		"::notice file=sub/mod/waitsim/accepted.yaml,line=4,title=waitsim%3A accepted survivor add-subtracts is killed now::The accepted survivor add-subtracts is killed now: its entry can go.\n" +
		"::notice file=sub/mod/waitsim/accepted.yaml,line=6,title=waitsim%3A stale accepted entry gone::No mutant has the id gone any more (its line moved, or it is gone): remove the entry.\n"
	if b.String() != want || n != 3 {
		t.Errorf("%d annotations:\n%s\nwant:\n%s", n, b.String(), want)
	}
	if strings.Contains(b.String(), "label-changes") {
		t.Error("an accepted survivor was annotated")
	}
	// Without a ratchet (an older result), every survivor is annotated.
	m := ratchetRun()
	m.Ratchet = nil
	verdict.Evaluate(m)
	b.Reset()
	if n, _ := Annotations(&b, m, ""); n != 2 || !strings.Contains(b.String(), "::warning file=calc/calc.go,line=34,title=waitsim%3A survivor label-changes (survived)::Label says w=\n") {
		t.Errorf("no ratchet: %d annotations\n%s", n, b.String())
	}
	// GitHub shows 10 of a kind a step: the tenth says how many more.
	m = ratchetRun()
	for i := 0; i < 12; i++ {
		m.Mutants = append(m.Mutants, verdict.MutantResult{ID: "s" + string(rune('a'+i)), Source: verdict.SourceCatalog, Status: verdict.StatusTimedOut, File: "calc/calc.go", Line: 1 + i})
	}
	verdict.Evaluate(m)
	b.Reset()
	Annotations(&b, m, "")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 12 || lines[9] != "::warning title=waitsim%3A more new survivors::… and 4 more new survivors (GitHub shows 10 annotations of a kind a step): see the job summary or out/mutation.json." {
		t.Errorf("13 new survivors: %d lines, the tenth %q", len(lines), lines[min(9, len(lines)-1)])
	}
}

// TestEscapeWorkflowCommand: GitHub's toolkit's escapes, % first.
func TestEscapeWorkflowCommand(t *testing.T) {
	if got := escapeData("50%\r\n: ,%0A"); got != "50%25%0D%0A: ,%250A" {
		t.Errorf("escapeData: %q", got)
	}
	if got := escapeProperty("a:b,c%d\ne"); got != "a%3Ab%2Cc%25d%0Ae" {
		t.Errorf("escapeProperty: %q", got)
	}
}

// TestRatchetMarkdown: the report lists the new and the accepted survivors
// (with their reasons, escaped), the entries that can go and the stale
// ones, and says under each survivor whether it is accepted or new.
func TestRatchetMarkdown(t *testing.T) {
	md := RunMarkdown(&Run{Mutation: ratchetRun()}, SummaryLimit)
	for _, want := range []string{
		"### Accepted survivors (`waitsim/accepted.yaml`)",
		"**1 new survivor**, not in the accepted file · 1 accepted survivor · 1 entry that can go · 1 stale entry.",
		"- `gremlins:calc/calc.go:17:7:CONDITIONALS_BOUNDARY`\n",
		"| `label-changes` | `waitsim/accepted.yaml:2` | nothing reads Label \\| \\*yet\\* |",
		"- `add-subtracts` is killed now (`waitsim/accepted.yaml:4`)",
		"- `gone` (`waitsim/accepted.yaml:6`)",
		"✅ Accepted (`waitsim/accepted.yaml:2`): nothing reads Label \\| \\*yet\\*",
		"❌ **New survivor**: not in `waitsim/accepted.yaml`.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q\n%s", want, md)
		}
	}
	m := ratchetRun()
	m.Ratchet = nil
	verdict.Evaluate(m)
	if md := RunMarkdown(&Run{Mutation: m}, SummaryLimit); strings.Contains(md, "Accepted survivors") || strings.Contains(md, "New survivor") {
		t.Errorf("a result without a ratchet shows one:\n%s", md)
	}
}

// TestReportRecomputesRatchet: a result file's ratchet is checked, and its
// derived lists recomputed from its entries and mutants, as its gate is.
func TestReportRecomputesRatchet(t *testing.T) {
	write := func(m *verdict.Result) string {
		p := filepath.Join(t.TempDir(), "mutation.json")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	m := ratchetRun()
	m.Ratchet.New, m.Ratchet.Stale = nil, nil // edited: claims nothing new
	got, err := model.LoadMutation(write(m))
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Ratchet; len(r.New) != 1 || len(r.Stale) != 1 {
		t.Errorf("the ratchet was not recomputed: %+v", r)
	}
	m = ratchetRun()
	m.Ratchet.Accepted[1].Reason = " "
	_, err = model.LoadMutation(write(m))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "ratchet.accepted[1].reason" {
		t.Errorf("an accepted survivor without a reason: %v", err)
	}
	m = ratchetRun()
	m.Ratchet.Accepted = m.Ratchet.Accepted[1:] // label-changes is new now: the gate fails
	m.ExitCode, m.Gate = verdict.ExitPass, "pass"
	if _, err := model.LoadMutation(write(m)); !errors.As(err, &ie) || ie.Field != "exitCode" {
		t.Errorf("a pass its accepted survivors do not back: %v", err)
	}
}
