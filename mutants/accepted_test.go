package mutants

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/cli"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// writeAccepted writes src as the accepted file waitsim/accepted.yaml of a
// new module root and returns the root.
func writeAccepted(t *testing.T, src string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "waitsim"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "waitsim", "accepted.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestLoadRatchet: the accepted file's entries with their lines; none when
// it is missing, empty or []; the committed file of this module loads.
func TestLoadRatchet(t *testing.T) {
	root := writeAccepted(t, "# accepted\n- id: label-changes\n  reason: nothing reads Label\n\n- id: \"gremlins:calc/calc.go:17:7:CONDITIONALS_BOUNDARY\"\n  reason: >-\n    a folded\n    reason\n")
	r, err := verdict.LoadRatchet(root, "waitsim/accepted.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []verdict.Accepted{{ID: "label-changes", Reason: "nothing reads Label", Line: 2},
		{ID: "gremlins:calc/calc.go:17:7:CONDITIONALS_BOUNDARY", Reason: "a folded reason", Line: 5}}
	if r.File != "waitsim/accepted.yaml" || !slices.Equal(r.Accepted, want) {
		t.Errorf("got %+v, want %+v", r, want)
	}
	for _, src := range []string{"", "# only a comment\n", "[]\n", "~\n"} {
		r, err := verdict.LoadRatchet(writeAccepted(t, src), "waitsim/accepted.yaml")
		if err != nil || r == nil || r.Accepted == nil || len(r.Accepted) != 0 {
			t.Errorf("%q: %+v, %v; want no entries", src, r, err)
		}
	}
	if r, err := verdict.LoadRatchet(t.TempDir(), "waitsim/accepted.yaml"); err != nil || len(r.Accepted) != 0 || r.File != "waitsim/accepted.yaml" {
		t.Errorf("a missing file: %+v, %v; want no entries", r, err)
	}
	if _, err := verdict.LoadRatchet(t.TempDir(), "../accepted.yaml"); !errors.Is(err, verdict.ErrUsage) || !strings.Contains(err.Error(), "not a file of the module") {
		t.Errorf("a file outside the module: %v", err)
	}
	if r, err := verdict.LoadRatchet("..", "mutants/accepted.yaml"); err != nil || len(r.Accepted) != 0 {
		t.Errorf("this module's mutants/accepted.yaml: %+v, %v", r, err)
	}
}

// TestAcceptedProblems: every problem of an accepted file, one a line as
// file:line:column: field: message, and a usage error.
func TestAcceptedProblems(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"reason missing", "- id: a\n", []string{"waitsim/accepted.yaml:1:3: accepted[0].reason: required field is missing (an entry has id and reason)"}},
		{"reason empty", "- id: a\n  reason: \"  \"\n", []string{"waitsim/accepted.yaml:2:11: accepted[0].reason: empty: say why the survivor may stay (the reason is required)"}},
		{"reason null", "- id: a\n  reason:\n", []string{"waitsim/accepted.yaml:2:3: accepted[0].reason: empty: say why the survivor may stay (the reason is required)"}},
		{"id a number", "- id: 12\n  reason: r\n", []string{"waitsim/accepted.yaml:1:7: accepted[0].id: want a string"}},
		{"id missing, unknown field", "- reason: r\n  source: x\n", []string{
			"waitsim/accepted.yaml:1:3: accepted[0].id: required field is missing (an entry has id and reason)",
			"waitsim/accepted.yaml:2:3: accepted[0].source: unknown field (an entry has id and reason)"}},
		{"second entry's id repeats the first", "- id: a\n  reason: r\n- id: a\n  reason: s\n", []string{"waitsim/accepted.yaml:3:7: accepted[1].id: \"a\" is accepted already by accepted[0]"}},
		{"id with a space", "- id: a b\n  reason: r\n", []string{"waitsim/accepted.yaml:1:7: accepted[0].id: \"a b\": a mutant's id has no white space"}},
		{"two-line reason", "- id: a\n  reason: |\n    one\n    two\n", []string{"waitsim/accepted.yaml:2:11: accepted[0].reason: must be one line"}},
		{"the sanity mutant", "- id: sanity\n  reason: r\n", []string{"waitsim/accepted.yaml:1:7: accepted[0].id: the sanity mutant must be killed: it cannot be accepted"}},
		{"not a list", "id: a\nreason: r\n", []string{"waitsim/accepted.yaml:1:3: accepted: want a list of entries, each a mapping of id and reason"}},
		{"an entry that is not a mapping", "- a\n", []string{"waitsim/accepted.yaml:1:3: accepted[0]: want a mapping of id and reason"}},
		{"not YAML", "- id: [a\n", []string{"waitsim/accepted.yaml:1:7: yaml: sequence end token ']' not found"}},
		{"nested too deep (the loaders' limits)", "- id: " + strings.Repeat("[", 40) + "\n", []string{"waitsim/accepted.yaml:1:13: yaml: nested more than 8 levels deep (docs/scenarios.md: Limits)"}},
		{"too large (the loaders' limits)", "# " + strings.Repeat("x", 300<<10) + "\n", []string{"waitsim/accepted.yaml:1:1: file: is 307203 bytes, more than the limit of 262144 for the accepted survivors file (docs/scenarios.md: Limits)"}},
		{"not UTF-8", "- id: a\n  reason: \xff\n", []string{"waitsim/accepted.yaml:2:11: file: byte 0xff is not UTF-8 text: the accepted survivors file is YAML, written in UTF-8"}},
	} {
		_, err := verdict.LoadRatchet(writeAccepted(t, c.src), "waitsim/accepted.yaml")
		var ae *verdict.AcceptedError
		if !errors.As(err, &ae) || !errors.Is(err, verdict.ErrUsage) {
			t.Errorf("%s: %v, want an *AcceptedError, a usage error", c.name, err)
			continue
		}
		if !slices.Equal(ae.Problems, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, ae.Problems, c.want)
		}
	}
}

// ratchetResult is a campaign of catalog mutant "cat-survives" (survived),
// "cat-killed" (killed), operator mutants of ./calc/ "gremlins:calc/c.go:…"
// (one killed, one survived, one timed out), with the accepted entries
// given, evaluated.
func ratchetResult(accepted []verdict.Accepted, options string) *verdict.Result {
	r := &verdict.Result{Threshold: 100, Options: options, Ratchet: &verdict.Ratchet{File: "waitsim/accepted.yaml", Accepted: accepted},
		Mutants: []verdict.MutantResult{
			{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled},
			{ID: "cat-killed", Source: verdict.SourceCatalog, Status: verdict.StatusKilled},
			{ID: "cat-survives", Source: verdict.SourceCatalog, Status: verdict.StatusSurvived},
			{ID: "gremlins:calc/c.go:1:1:ARITHMETIC_BASE", Source: verdict.SourceGremlins, Status: verdict.StatusKilled},
			{ID: "gremlins:calc/c.go:2:1:CONDITIONALS_BOUNDARY", Source: verdict.SourceGremlins, Status: verdict.StatusSurvived},
			{ID: "gremlins:calc/c.go:3:1:INVERT_LOGICAL", Source: verdict.SourceGremlins, Status: verdict.StatusTimedOut},
		}}
	verdict.Evaluate(r)
	return r
}

const wholeCampaign = `target=./calc/ catalog=cat no-catalog=false no-operators=false only="" diff=""`

// TestRatchetGate: the gate fails only on a survivor the accepted file does
// not list; it names the new ones, keeps the scores honest, and lists the
// accepted mutants that are killed now and the stale entries, neither a
// failure.
func TestRatchetGate(t *testing.T) {
	all := []verdict.Accepted{{ID: "cat-survives", Reason: "r", Line: 1},
		{ID: "gremlins:calc/c.go:2:1:CONDITIONALS_BOUNDARY", Reason: "r", Line: 3},
		{ID: "gremlins:calc/c.go:3:1:INVERT_LOGICAL", Reason: "r", Line: 5}}
	r := ratchetResult(all, wholeCampaign)
	if r.ExitCode != verdict.ExitPass || r.Gate != "pass" {
		t.Errorf("every survivor accepted: exit %d (%s), want a pass", r.ExitCode, r.Gate)
	}
	if r.OperatorScored != 3 || r.CatalogScored != 2 || r.Counts[verdict.StatusSurvived] != 2 {
		t.Errorf("accepted survivors left the scores: operator %d scored, catalog %d, counts %v", r.OperatorScored, r.CatalogScored, r.Counts)
	}
	if len(r.Ratchet.New) != 0 || len(r.Ratchet.Held) != 3 {
		t.Errorf("new %q, held %q", r.Ratchet.New, r.Ratchet.Held)
	}

	r = ratchetResult(all[1:], wholeCampaign) // the catalog survivor is new
	if r.ExitCode != verdict.ExitGateFailed || !strings.Contains(r.Gate, "cat-survives (survived, not in waitsim/accepted.yaml)") {
		t.Errorf("a new catalog survivor: exit %d (%s)", r.ExitCode, r.Gate)
	}
	r = ratchetResult(all[:2], wholeCampaign) // the timed-out operator mutant is new
	if r.ExitCode != verdict.ExitGateFailed || !strings.Contains(r.Gate, "without the 1 accepted survivor(s) of waitsim/accepted.yaml 50.0% (1 of 2 killed)") ||
		!strings.HasSuffix(r.Gate, "1 new survivor(s), not in waitsim/accepted.yaml: gremlins:calc/c.go:3:1:INVERT_LOGICAL") {
		t.Errorf("a new operator survivor: exit %d (%s)", r.ExitCode, r.Gate)
	}
	if !slices.Equal(r.Ratchet.New, []string{"gremlins:calc/c.go:3:1:INVERT_LOGICAL"}) {
		t.Errorf("new %q", r.Ratchet.New)
	}
	// Without a ratchet, every survivor fails as before.
	r = ratchetResult(all, wholeCampaign)
	r.Ratchet = nil
	verdict.Evaluate(r)
	if r.ExitCode != verdict.ExitGateFailed || !strings.Contains(r.Gate, "cat-survives (survived)") || !strings.Contains(r.Gate, "(1 of 3 killed) is below") {
		t.Errorf("no ratchet: exit %d (%s)", r.ExitCode, r.Gate)
	}

	// Killed now, and stale: listed, not failures.
	more := append(slices.Clone(all), verdict.Accepted{ID: "cat-killed", Reason: "r", Line: 7}, verdict.Accepted{ID: "gone", Reason: "r", Line: 9},
		verdict.Accepted{ID: "gremlins:calc/c.go:9:1:INVERT_LOGICAL", Reason: "r", Line: 11}, verdict.Accepted{ID: "gremlins:other/o.go:1:1:INVERT_LOGICAL", Reason: "another campaign's", Line: 13})
	r = ratchetResult(more, wholeCampaign)
	if r.ExitCode != verdict.ExitPass {
		t.Errorf("resolved and stale entries failed the gate: %s", r.Gate)
	}
	if want := []verdict.Resolved{{ID: "cat-killed", Status: verdict.StatusKilled}}; !slices.Equal(r.Ratchet.Resolved, want) {
		t.Errorf("resolved %+v, want %+v", r.Ratchet.Resolved, want)
	}
	if want := []string{"gone", "gremlins:calc/c.go:9:1:INVERT_LOGICAL"}; !slices.Equal(r.Ratchet.Stale, want) {
		t.Errorf("stale %q, want %q", r.Ratchet.Stale, want)
	}
	var b bytes.Buffer
	cli.Summary(&b, r)
	for _, want := range []string{
		"    accepted (waitsim/accepted.yaml:1): r\n",
		"ratchet: 0 new survivor(s), 3 accepted survivor(s) of 7 entries in waitsim/accepted.yaml\n",
		"accepted survivor cat-killed is killed now: its entry can go (waitsim/accepted.yaml:7)\n",
		"stale accepted entry gone: no mutant has this id any more; remove it (waitsim/accepted.yaml:9)\n",
		"gate: pass (exit 0)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, b.String())
		}
	}
	// Stale is judged on whole campaigns only, and per kind of mutant run.
	for _, c := range []struct {
		name, options, shard string
		want                 []string
	}{
		{"--only", strings.Replace(wholeCampaign, `only=""`, `only="cat"`, 1), "", nil},
		{"--diff", strings.Replace(wholeCampaign, `diff=""`, `diff="main"`, 1), "", nil},
		{"a shard", wholeCampaign, "1/2", nil},
		{"--no-catalog", strings.Replace(wholeCampaign, "no-catalog=false", "no-catalog=true", 1), "", []string{"gremlins:calc/c.go:9:1:INVERT_LOGICAL"}},
		{"--no-operators", strings.Replace(wholeCampaign, "no-operators=false", "no-operators=true", 1), "", []string{"gone"}},
	} {
		r := ratchetResult(more, c.options)
		r.Shard = c.shard
		verdict.Evaluate(r)
		if !slices.Equal(r.Ratchet.Stale, c.want) {
			t.Errorf("%s: stale %q, want %q", c.name, r.Ratchet.Stale, c.want)
		}
	}
	// A new survivor is told where to go.
	r = ratchetResult(nil, wholeCampaign)
	b.Reset()
	cli.Summary(&b, r)
	if !strings.Contains(b.String(), "    new: not in waitsim/accepted.yaml (add a case that kills it, or accept it there with a reason)\n") {
		t.Errorf("the summary does not say a survivor is new:\n%s", b.String())
	}
}

// TestRatchetCheckAndMerge: a result's accepted entries are checked like
// its mutants; shards of different accepted files are not merged, and the
// merge judges the stale entries no shard could.
func TestRatchetCheckAndMerge(t *testing.T) {
	for _, c := range []struct {
		r     verdict.Ratchet
		field string
	}{
		{verdict.Ratchet{File: "../x.yaml"}, "ratchet.file"},
		{verdict.Ratchet{File: "a.yaml", Accepted: []verdict.Accepted{{ID: "a"}}}, "ratchet.accepted[0].reason"},
		{verdict.Ratchet{File: "a.yaml", Accepted: []verdict.Accepted{{ID: "a", Reason: "r"}, {ID: "a", Reason: "r"}}}, "ratchet.accepted[1].id"},
	} {
		r := &verdict.Result{Mutants: []verdict.MutantResult{}, Ratchet: &c.r}
		var fe *verdict.FieldError
		if err := r.Check(); !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: %v, want a problem of field %s", c.r, err, c.field)
		}
	}
	acc := []verdict.Accepted{{ID: "m03", Reason: "r"}, {ID: "m99", Reason: "gone"}}
	shards := shardSet(t, 2, 6, wholeCampaign)
	for _, s := range shards {
		s.Ratchet = &verdict.Ratchet{File: "waitsim/accepted.yaml", Accepted: acc}
		verdict.Evaluate(s)
		if len(s.Ratchet.Stale) != 0 {
			t.Errorf("shard %s judged stale entries: %q", s.Shard, s.Ratchet.Stale)
		}
	}
	m, err := verdict.Merge(shards, "a.json", "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Ratchet == nil || !slices.Equal(m.Ratchet.Stale, []string{"m99"}) || !slices.Equal(m.Ratchet.Resolved, []verdict.Resolved{{ID: "m03", Status: verdict.StatusKilled}}) {
		t.Errorf("merged ratchet %+v", m.Ratchet)
	}
	shards[1].Ratchet = &verdict.Ratchet{File: "waitsim/accepted.yaml", Accepted: acc[:1]}
	if _, err := verdict.Merge(shards, "a.json", "b.json"); !errors.Is(err, verdict.ErrUsage) || !strings.Contains(err.Error(), "b.json ran with waitsim/accepted.yaml (1 entries), a.json with waitsim/accepted.yaml (2 entries)") {
		t.Errorf("shards of different accepted files: %v", err)
	}
}
