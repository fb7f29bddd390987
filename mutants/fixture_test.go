package mutants

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/cli"
	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/reports/model"
)

// fixtureConfig is a campaign on testdata/fixture: its own module, suite
// ./calc/ (all tests), catalog testdata/fixture/catalog, no operators.
func fixtureConfig(t *testing.T, mode string) Config {
	t.Helper()
	root, err := filepath.Abs("testdata/fixture")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Root: root, SuitePkg: "./calc/", Target: "./calc/", CatalogDir: "catalog",
		Equivalents: "none.yaml", GremlinsCfg: "gremlins.yaml", NoOperators: true, Workers: 2,
		TimeoutFloor: 3 * time.Second, Mode: mode}
}

func byID(res *verdict.Result) map[string]verdict.MutantResult {
	out := map[string]verdict.MutantResult{}
	for _, m := range res.Mutants {
		out[m.ID] = m
	}
	return out
}

// TestClassification runs every status of the field through both build
// modes: the same verdicts whether mutants share a schemata binary or are
// built one by one.
func TestClassification(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	want := map[string]string{
		"sanity":           verdict.StatusKilled,
		"add-subtracts":    verdict.StatusKilled,
		"clamp-panics":     verdict.StatusKilled,
		"clamp-zero":       verdict.StatusKilled,
		"limit-changes":    verdict.StatusKilled,
		"label-changes":    verdict.StatusSurvived,
		"does-not-compile": verdict.StatusNotViable,
		"fails-vet":        verdict.StatusNotViable,
		"sum-loops":        verdict.StatusTimedOut,
		"source-moved":     verdict.StatusNoApply,
		"greeting-changes": verdict.StatusKilled,
	}
	for _, mode := range []string{campaign.ModeSchemata, campaign.ModeOverlay} {
		t.Run(mode, func(t *testing.T) {
			res, err := Run(context.Background(), fixtureConfig(t, mode))
			if err != nil {
				t.Fatal(err)
			}
			got := byID(res)
			for id, st := range want {
				if got[id].Status != st {
					t.Errorf("%s: status %q, want %q (detail %q)", id, got[id].Status, st, got[id].Detail)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d mutants, want %d", len(got), len(want))
			}
			if kb := got["add-subtracts"].KilledBy; !slices.Equal(kb, []string{"TestAdd"}) {
				t.Errorf("add-subtracts killed by %q, want [TestAdd]", kb)
			}
			if kb := got["limit-changes"].KilledBy; !slices.Equal(kb, []string{"TestClamp/v#01"}) {
				t.Errorf("limit-changes killed by %q, want the leaf subtest only", kb)
			}
			if kb := got["clamp-panics"].KilledBy; !slices.Contains(kb, "TestClamp/v#01") {
				t.Errorf("clamp-panics killed by %q, want TestClamp/v#01", kb)
			}
			if d := got["add-subtracts"].Diff; d == "" || got["add-subtracts"].Line != 12 {
				t.Errorf("add-subtracts: line %d, diff %q", got["add-subtracts"].Line, d)
			}
			if res.ExitCode != verdict.ExitGateFailed {
				t.Errorf("exit %d (%s), want %d", res.ExitCode, res.Gate, verdict.ExitGateFailed)
			}
			if kb := got["greeting-changes"].KilledBy; !slices.Equal(kb, []string{"TestGreet"}) {
				t.Errorf("greeting-changes killed by %q, want [TestGreet]", kb)
			}
			if mode == campaign.ModeSchemata && res.SchemataMs == 0 {
				t.Error("schemata mode built no schemata binary")
			}
			if slices.Contains(res.Notes, errValuesInSchemata) {
				t.Errorf("the schemata binary with the string constant's switch was built again without it: %q", res.Notes)
			}
		})
	}
}

// TestBaselineFails: a suite that fails unmutated stops the campaign.
func TestBaselineFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	cfg.SuiteRun = "^TestNone$"
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != verdict.ExitUntrusted || len(res.Mutants) != 0 {
		t.Fatalf("exit %d, gate %q, %d mutants; want %d and none run", res.ExitCode, res.Gate, len(res.Mutants), verdict.ExitUntrusted)
	}
	// The file `waitsim mutate` writes of it is valid input of a report,
	// which shows that the campaign never ran (reports/trust_test.go).
	p := filepath.Join(t.TempDir(), "mutation.json")
	if err := cli.WriteResult(p, res); err != nil {
		t.Fatal(err)
	}
	if _, err := model.LoadMutation(p); err != nil {
		t.Errorf("a report refuses the result of a failed baseline: %v", err)
	}
}

// TestIncrementalCache: a second run with the same inputs reuses every
// verdict except the timed-out one, and gives the same statuses.
func TestIncrementalCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	cfg.CacheFile = filepath.Join(t.TempDir(), "cache.json")
	cfg.Only = mustRegexp(t, "add-subtracts|label-changes|does-not-compile")
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := byID(first), byID(second)
	for id, m := range b {
		if !m.Cached {
			t.Errorf("%s was run again, want its cached verdict", id)
		}
		if a[id].Cached {
			t.Errorf("%s cached on the first run", id)
		}
		if m.Status != a[id].Status || !slices.Equal(m.KilledBy, a[id].KilledBy) {
			t.Errorf("%s: %s %v, first run %s %v", id, m.Status, m.KilledBy, a[id].Status, a[id].KilledBy)
		}
	}
}

// TestSchemataValueFallback: when a changed value is used where only a
// constant will do (an array length), the schemata binary with its switch
// does not build; it is built again with function bodies alone, the value's
// mutant is built on its own, and the verdicts are unchanged.
func TestSchemataValueFallback(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	root := copyFixture(t)
	src := filepath.Join(root, "calc", "calc.go")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(b, "\n// greetBuf needs Greeting to be a constant.\nvar greetBuf [len(Greeting)]byte\n\nvar _ = greetBuf\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	cfg.Root = root
	cfg.Only = mustRegexp(t, "^(add-subtracts|greeting-changes)$")
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := byID(res)
	for _, id := range []string{"add-subtracts", "greeting-changes"} {
		if got[id].Status != verdict.StatusKilled {
			t.Errorf("%s: %s (%s), want killed", id, got[id].Status, got[id].Detail)
		}
	}
	if !slices.Contains(res.Notes, errValuesInSchemata) || res.SchemataMs == 0 {
		t.Errorf("notes %q, schemata %d ms; want the binary built again without the value's switch", res.Notes, res.SchemataMs)
	}
}

// TestKeptBaseline: a baseline run that passed is kept under the suite's
// inputs; the next campaign on the same inputs reads it instead of running
// it (a note says so) and gives the same verdicts; an edit of an input
// runs it again; a baseline that fails is never kept.
func TestKeptBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	t.Parallel()
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	cfg.Root = copyFixture(t)
	cfg.BinDir = t.TempDir()
	cfg.Only = mustRegexp(t, "add-subtracts|label-changes")
	reused := func(res *verdict.Result) bool {
		return slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "the baseline's outcome reused") })
	}
	kept := func() int {
		m, _ := filepath.Glob(filepath.Join(testbin.KeptDir(cfg.BinDir), "*-baseline-*.json"))
		return len(m)
	}
	run := func(what string, c Config, wantReused bool) *verdict.Result {
		t.Helper()
		res, err := Run(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if reused(res) != wantReused {
			t.Fatalf("%s: baseline reused %v, want %v (notes %q)", what, reused(res), wantReused, res.Notes)
		}
		return res
	}
	first := run("first campaign", cfg, false)
	if kept() != 1 {
		t.Fatalf("%d baselines kept after a passing one, want 1", kept())
	}
	second := run("same inputs", cfg, true)
	if second.BaselineMs != first.BaselineMs {
		t.Errorf("the kept baseline's wall time %d ms, the run's %d ms", second.BaselineMs, first.BaselineMs)
	}
	a, b := byID(first), byID(second)
	for id, m := range a {
		if b[id].Status != m.Status || !slices.Equal(b[id].KilledBy, m.KilledBy) {
			t.Errorf("%s: %s %v with the kept baseline, %s %v with its run", id, b[id].Status, b[id].KilledBy, m.Status, m.KilledBy)
		}
	}
	test := filepath.Join(cfg.Root, "calc", "calc_test.go")
	src, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(test, append(src, "\n// an edit of an input\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	run("an input edited", cfg, false)
	before := kept()
	bad := cfg
	bad.SuiteRun = "^TestNone$"
	if res := run("a failing baseline", bad, false); res.ExitCode != verdict.ExitUntrusted {
		t.Fatalf("a failing baseline: exit %d (%s)", res.ExitCode, res.Gate)
	}
	if kept() != before {
		t.Fatalf("a failing baseline was kept (%d kept, %d before)", kept(), before)
	}
}
