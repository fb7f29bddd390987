package mutants

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/cli"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestGeneratorCampaign runs the generator campaign on the fixture, whose
// TestGen checks only Label: it kills label-changes (which the table lets
// survive) and lets add-subtracts live (which the table kills); a mutant
// that does not compile gets no generator verdict. The rates are scored
// and printed beside the table's.
func TestGeneratorCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	cfg.Only = mustRegexp(t, "^(add-subtracts|label-changes|does-not-compile)$")
	cfg.GenWorlds, cfg.GenRun = 3, "^TestGen$"
	var progress bytes.Buffer
	cfg.Progress = &progress
	res, err := Run(context.Background(), cfg)
	cfg.Progress = nil
	if err != nil {
		t.Fatal(err)
	}
	// A mutant's table and generator runs are two parts (jobs.go): it is
	// reported done once, when both are over.
	if lines := strings.Split(strings.TrimSpace(progress.String()), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[3], "[4/4] ") {
		t.Errorf("progress: %d lines, want each of the 4 mutants once:\n%s", len(lines), progress.String())
	}
	got := byID(res)
	for id, want := range map[string][2]string{
		"add-subtracts":    {verdict.StatusKilled, verdict.StatusSurvived},
		"label-changes":    {verdict.StatusSurvived, verdict.StatusKilled},
		"does-not-compile": {verdict.StatusNotViable, ""},
		"sanity":           {verdict.StatusKilled, ""},
	} {
		if m := got[id]; m.Status != want[0] || m.Generator != want[1] {
			t.Errorf("%s: table %q, generator %q; want %q and %q (%s)", id, m.Status, m.Generator, want[0], want[1], m.Detail)
		}
	}
	if d := got["label-changes"].GeneratorDetail; !strings.Contains(d, "Label(0)") {
		t.Errorf("label-changes: generator detail %q, want the counterexample's first line", d)
	}
	g := res.Generator
	if g == nil || g.Note != "" || g.CatalogKilled != 1 || g.CatalogScored != 2 || g.Worlds != 3 {
		t.Fatalf("generator campaign %+v, want 1 of 2 catalog mutants killed over 3 worlds", g)
	}
	if !strings.Contains(res.Options, "generator=^TestGen$:3") {
		t.Errorf("options %q do not record the generator campaign", res.Options)
	}
	var out bytes.Buffer
	cli.Summary(&out, res)
	if !strings.Contains(out.String(), "generator alone (^TestGen$, 3 worlds a mutant): catalog 1 of 2 killed (50.0%)") ||
		!strings.Contains(out.String(), "not killed by it: add-subtracts (survived)") {
		t.Errorf("summary lacks the generator's rate:\n%s", out.String())
	}

	// A generator that matches no test is not run, and says why.
	cfg.GenRun = "^TestNone$"
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Generator; g == nil || !strings.Contains(g.Note, "no test matching ^TestNone$") || byID(res)["label-changes"].Generator != "" {
		t.Fatalf("generator %+v, label-changes %q: want a campaign that did not run and says why", g, byID(res)["label-changes"].Generator)
	}
}

// TestEvaluateGenerator: the generator's rates are recomputed from the
// mutants (never trusted from a file), operator equivalents and mutants it
// did not run on left out; Check refuses an unknown generator status, a
// generator verdict without a campaign, and a suggestion for a killed mutant.
func TestEvaluateGenerator(t *testing.T) {
	res := &verdict.Result{Threshold: 100, Generator: &verdict.GeneratorCampaign{Worlds: 5, CatalogKilled: 9, CatalogScored: 9}, Mutants: []verdict.MutantResult{
		{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled},
		{ID: "a", Source: verdict.SourceCatalog, Status: verdict.StatusKilled, Generator: verdict.StatusKilled},
		{ID: "b", Source: verdict.SourceCatalog, Status: verdict.StatusKilled, Generator: verdict.StatusSurvived},
		{ID: "c", Source: verdict.SourceCatalog, Status: verdict.StatusNotViable},
		{ID: "d", Source: verdict.SourceGremlins, Status: verdict.StatusKilled, Generator: verdict.StatusTimedOut},
		{ID: "e", Source: verdict.SourceGremlins, Status: verdict.StatusSurvived, Generator: verdict.StatusKilled},
		{ID: "f", Source: verdict.SourceGremlins, Status: verdict.StatusEquivalent},
	}}
	verdict.Evaluate(res)
	g := res.Generator
	if g.CatalogKilled != 1 || g.CatalogScored != 2 || g.OperatorKilled != 1 || g.OperatorScored != 2 || g.CatalogScore != 50 {
		t.Fatalf("generator %+v, want catalog 1 of 2 and operator 1 of 2", g)
	}
	if err := res.Check(); err != nil {
		t.Fatal(err)
	}
	bad := *res
	bad.Mutants = append([]verdict.MutantResult{}, res.Mutants...)
	bad.Mutants[1].Generator = "maybe"
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "mutants[1].generator") {
		t.Errorf("unknown generator status: %v", err)
	}
	bad.Mutants[1].Generator, bad.Generator = verdict.StatusKilled, nil
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "records no generator campaign") {
		t.Errorf("generator verdict without campaign: %v", err)
	}
	bad.Generator = res.Generator
	bad.Mutants[1].Suggested = "# protects: a\n"
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "mutants[1].suggested") {
		t.Errorf("a suggestion for a killed mutant: %v", err)
	}
}

// A generator kill's detail is its first broken invariant, read from the
// head of the failure's output: the dump of the world that follows it
// fills the tail a report keeps (46 of 101 details once read "…�ééé").
func TestGenDetailFromHead(t *testing.T) {
	out := "invariants broken (not shrunk: a mutation run):\nresolves-by-deadline: A#1: resolved at 60000 ms\n" + strings.Repeat("- name: é\n", 400)
	rep := testrun.Report{Output: campaign.Tail(out, testrun.OutputLimit), Head: campaign.Head(out, testrun.OutputLimit)}
	killed := verdict.MutantResult{Status: verdict.StatusKilled, Detail: "the suite failed"}
	if got, want := genDetail(killed, rep), "resolves-by-deadline: A#1: resolved at 60000 ms"; got != want {
		t.Fatalf("detail %q, want %q", got, want)
	}
	if got := genDetail(killed, testrun.Report{}); got != "the suite failed" {
		t.Fatalf("without a broken invariant: %q, want the verdict's first line", got)
	}
}

// TestGenOrder: a hot generator request tries every world, those that
// killed the most mutants so far first (ties by cost), then the rest by
// their cost in the baseline, cheapest first (ties by index); without
// costs, the killers alone (the generator runs the rest by index).
func TestGenOrder(t *testing.T) {
	r := &runner{}
	for _, w := range []int{4, 2, 4, 0} {
		r.worlds.Add(w)
	}
	if got := r.genOrder(); !slices.Equal(got, []int{4, 0, 2}) {
		t.Fatalf("without costs: %v, want the killers [4 0 2]", got)
	}
	r.gen.costOrder = worldsByCost([]float64{5, 0.5, 3, 0.5, 3, 1})
	if !slices.Equal(r.gen.costOrder, []int{1, 3, 5, 2, 4, 0}) {
		t.Fatalf("worldsByCost: %v, want [1 3 5 2 4 0] (ties by index)", r.gen.costOrder)
	}
	if got := r.genOrder(); !slices.Equal(got, []int{4, 2, 0, 1, 3, 5}) {
		t.Fatalf("with costs: %v, want [4 2 0 1 3 5]", got)
	}
}
