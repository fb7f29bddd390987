package mutants

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/verdict"
)

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
	r.kills.Add("TestTable/slow")
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
