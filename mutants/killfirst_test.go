package mutants

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
)

// TestCostOrder: the baseline's leaf tests, cheapest first, ties by name;
// a test with subtests is left out.
func TestCostOrder(t *testing.T) {
	ms := time.Millisecond
	got := costOrder(map[string]time.Duration{
		"TestTable": 90 * ms, "TestTable/b": 5 * ms, "TestTable/a": 5 * ms, "TestTable/c": 1 * ms,
		"TestTable/c/x": 1 * ms, "TestOther": 2 * ms,
	})
	want := []string{"TestTable/c/x", "TestOther", "TestTable/a", "TestTable/b"}
	if !slices.Equal(got, want) {
		t.Fatalf("costOrder = %q, want %q", got, want)
	}
}

// TestCaseOrderLastKiller: a mutant's last killer (the cache's record,
// kept across runs) comes first, then the cases that killed other mutants,
// then the cost order.
func TestCaseOrderLastKiller(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.json")
	c := campaign.LoadCache(path)
	c.PutRun("k1", verdict.MutantResult{ID: "m", Status: verdict.StatusKilled, KilledBy: []string{"TestTable/slow"}}, false)
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	r := &runner{cache: campaign.LoadCache(path), costOrder: []string{"TestTable/fast", "TestTable/slow"}}
	if got := r.caseOrder(&mutant{res: verdict.MutantResult{ID: "m"}}); !slices.Equal(got, []string{"TestTable/slow", "TestTable/fast", "TestTable/slow"}) {
		t.Errorf("order of m = %q, want its last killer first", got)
	}
	if got := r.caseOrder(&mutant{res: verdict.MutantResult{ID: "other"}}); !slices.Equal(got, r.costOrder) {
		t.Errorf("order of a mutant never killed = %q, want the cost order", got)
	}
	r.kills.add("TestTable/slow")
	if got := r.caseOrder(&mutant{res: verdict.MutantResult{ID: "other"}}); !slices.Equal(got, []string{"TestTable/slow", "TestTable/fast"}) {
		t.Errorf("order after a kill by the slow case = %q, want the killer first", got)
	}
}

// TestKillFirstSameVerdicts: the whole fixture campaign — every status of
// the field — gives the same verdict for every mutant with kill first (the
// default) and with --all-killers, each run on its own (no shared cache); a
// kill-first killedBy is one of the full list's killers, and a mutant two
// cases kill lists one of them with kill first and both with
// --all-killers. Then, from the kill-first run's cache, --all-killers runs a
// killed mutant again for its full list and reuses a survivor's verdict.
func TestKillFirstSameVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	cache := filepath.Join(t.TempDir(), "cache.json")
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	cfg.CacheFile = cache
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AllKillers, cfg.CacheFile = true, ""
	all, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := byID(first), byID(all)
	if len(a) != len(b) || len(a) < 9 {
		t.Fatalf("%d mutants with kill first, %d with --all-killers", len(a), len(b))
	}
	for id, m := range a {
		o := b[id]
		if m.Status != o.Status {
			t.Errorf("%s: %q with kill first, %q with --all-killers", id, m.Status, o.Status)
		}
		if m.Status == verdict.StatusKilled && id != "sanity" && (len(m.KilledBy) != 1 || !slices.Contains(o.KilledBy, m.KilledBy[0])) {
			t.Errorf("%s: killed by %q with kill first, %q with --all-killers", id, m.KilledBy, o.KilledBy)
		}
	}
	if kb := b["clamp-zero"].KilledBy; !slices.Equal(kb, []string{"TestClamp/v", "TestClamp/v#01"}) {
		t.Errorf("clamp-zero with --all-killers: killed by %q, want both cases", kb)
	}
	if first.ExitCode != all.ExitCode || first.Gate != all.Gate {
		t.Errorf("gate %q (exit %d) with kill first, %q (exit %d) with --all-killers", first.Gate, first.ExitCode, all.Gate, all.ExitCode)
	}

	cfg.CacheFile = cache
	cfg.Only = mustRegexp(t, "^(clamp-zero|label-changes)$")
	again, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := byID(again)
	if m := c["clamp-zero"]; m.Cached || !slices.Equal(m.KilledBy, []string{"TestClamp/v", "TestClamp/v#01"}) {
		t.Errorf("clamp-zero with --all-killers after a kill-first run: cached %t, killed by %q; want a new run with both killers", m.Cached, m.KilledBy)
	}
	if m := c["label-changes"]; !m.Cached || m.Status != verdict.StatusSurvived {
		t.Errorf("label-changes with --all-killers after a kill-first run: cached %t, %q; want the cached survivor", m.Cached, m.Status)
	}
}

// TestReadCaseIndex: the index a baseline run writes in its results file
// (results.RunResult.Index) reads back as go test name → case and file; a
// missing results file gives nothing.
func TestReadCaseIndex(t *testing.T) {
	p := filepath.Join(t.TempDir(), "results.json")
	run := results.RunResult{Index: []results.IndexEntry{
		{ID: "a", File: "scenarios/table/a.yaml", Test: "TestTable/a.yaml/a"},
		{ID: "b[x=1]", File: "scenarios/table/b, c.yaml", Test: "TestTable/b,_c.yaml/b[x=1]"},
	}}
	if err := results.WriteRun(p, run); err != nil {
		t.Fatal(err)
	}
	got := readCaseIndex(p)
	want := map[string]results.CaseRef{"TestTable/a.yaml/a": {ID: "a", File: "scenarios/table/a.yaml"},
		"TestTable/b,_c.yaml/b[x=1]": {ID: "b[x=1]", File: "scenarios/table/b, c.yaml"}}
	if !maps.Equal(got, want) {
		t.Fatalf("index %v, want %v", got, want)
	}
	if got := readCaseIndex(filepath.Join(t.TempDir(), "missing")); got != nil {
		t.Fatalf("a missing index gave %v", got)
	}
}
