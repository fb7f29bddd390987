package mutants

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestHotSameVerdicts runs one campaign on this module with both runners
// and wants the same verdict for every mutant, table and generator. Its
// catalog (testdata/hot-catalog) has a mutant of each kind the hot runner
// handles differently: one it serves (a-schema-bound) that changes the
// published schemas, which the package builds once — so the survivor after
// it in the same process (b-unobservable) survives only because the
// package is reset between requests —, one whose goroutine panics and ends
// the process (judged by a run of its own), one that hangs past its
// timeout (the process is ended: timed out), one that changes a value
// chosen at init (run in a process of its own), and the sanity mutant.
// One worker, so that every mutant meets the one before it in the same
// process. Its own directory of cold hints, empty at first, so that the
// panicking mutant meets a hot process whatever campaigns ran before on
// this machine; a third campaign, hot again, reads the hint the first kept
// and runs that mutant cold from the start, with the same verdicts.
//
// The hanging mutant runs in campaigns of its own with a short timeout:
// it waits out its whole timeout again and again (the table, the runs past
// its hang, the generator: six times hot, five cold), which at the others'
// timeout would cost 25 s each (a baseline of 5.7 s kept under load, × 3;
// measured 3 December 2026), and it meets no mutant after it in its
// process (the one after it, e-description, runs in a process of its own). The campaigns run two and three at a time: they
// share no file but the kept builds, which are written atomically.
func TestHotSameVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// A timeout of 3 × the baseline, at least 8 s: the survivor runs the
	// whole suite, as the baseline did, so it ends well inside it however
	// loaded the machine (at 0.5 × the baseline it timed out under -race at
	// load 18); d-hangs is ended by it, not by the sim's wall-clock
	// watchdog, which the runner puts beyond it (testrun.WatchdogMs).
	cfg := Config{Root: root, CatalogDir: "mutants/testdata/hot-catalog", NoOperators: true, NoVet: true, Workers: 1,
		TimeoutFactor: 3, TimeoutFloor: 8 * time.Second, GenWorlds: 10, HintsDir: t.TempDir(),
		Only: regexp.MustCompile(`^(a-schema-bound|b-unobservable|c-goroutine-panics|e-description)$`)}
	// d-hangs: the floor, 2 s, is its timeout (0.1 × any baseline under
	// 20 s is less); the only other mutant of its campaigns, sanity, is
	// killed by the first case it runs (21 ms hot, warm).
	hangs := cfg
	hangs.TimeoutFactor, hangs.TimeoutFloor, hangs.HintsDir = 0.1, 2*time.Second, t.TempDir()
	hangs.Only = regexp.MustCompile(`^d-hangs$`)
	want := map[string][2]string{ // table, generator
		"sanity":             {verdict.StatusKilled, ""},
		"a-schema-bound":     {verdict.StatusKilled, ""},
		"b-unobservable":     {verdict.StatusSurvived, verdict.StatusSurvived},
		"c-goroutine-panics": {verdict.StatusKilled, ""},
		"d-hangs":            {verdict.StatusTimedOut, ""},
		"e-description":      {verdict.StatusKilled, ""},
	}
	type campaignRun struct {
		name string
		cfg  Config
		res  *verdict.Result
		err  error
	}
	var todo []*campaignRun
	for _, runner := range []string{campaign.RunnerHot, campaign.RunnerCold} {
		for _, c := range []Config{cfg, hangs} {
			c.Runner = runner
			if c.Runner == campaign.RunnerCold {
				c.HintsDir = t.TempDir() // the first hot campaign's hints stay its own
			}
			todo = append(todo, &campaignRun{name: runner + " " + c.Only.String(), cfg: c})
		}
	}
	// The first hot campaign keeps a hint for the mutant whose process
	// died; a third campaign, hot again on the same hints, runs it cold
	// from the start, and b-unobservable (served hot after it, in the same
	// process, in the first campaign) still in a hot process.
	hinted := &campaignRun{name: "hinted", cfg: cfg}
	hinted.cfg.Only = regexp.MustCompile(`^(c-goroutine-panics|b-unobservable)$`)
	runAll := func(crs ...*campaignRun) {
		var wg sync.WaitGroup
		for _, cr := range crs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cr.res, cr.err = Run(context.Background(), cr.cfg)
			}()
		}
		wg.Wait()
	}
	// The hot campaigns first, beside each other (they build different
	// schemata binaries); then the cold ones and the hinted one, which
	// find those binaries kept.
	runAll(todo[0], todo[1])
	runAll(todo[2], todo[3], hinted)
	runs := map[string]map[string]verdict.MutantResult{}
	notes := map[string][]string{}
	for _, cr := range todo {
		runner, res := cr.cfg.Runner, cr.res
		if cr.err != nil {
			t.Fatalf("%s: %v", cr.name, cr.err)
		}
		if runs[runner] == nil {
			runs[runner] = map[string]verdict.MutantResult{}
		}
		for id, m := range byID(res) {
			if id != "sanity" || runs[runner][id].ID == "" {
				runs[runner][id] = m
			} else if m.Status != verdict.StatusKilled {
				runs[runner][id] = m // a sanity mutant not killed shows
			}
		}
		if cr.cfg.Only != hangs.Only {
			notes[runner] = res.Notes
		}
		t.Logf("%s: %.1fs, notes %q", cr.name, float64(res.WallMs)/1000, res.Notes)
		// The hot runs left out the cases that never run their mutant's
		// site (testbin/sites.go); runs of their own never do.
		sites := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "mutation sites: ") })
		if cr.cfg.Only != hangs.Only && sites != (runner == campaign.RunnerHot) {
			t.Errorf("%s: a note on mutation sites is %t, want %t", cr.name, sites, runner == campaign.RunnerHot)
		}
	}
	for _, runner := range []string{campaign.RunnerHot, campaign.RunnerCold} {
		for id, w := range want {
			m := runs[runner][id]
			if m.Status != w[0] || (w[1] != "" && m.Generator != w[1]) {
				t.Errorf("%s runner: %s: table %q, generator %q; want %q and %q (%s)", runner, id, m.Status, m.Generator, w[0], w[1], m.Detail)
			}
		}
		if len(runs[runner]) != len(want) {
			t.Errorf("%s runner: %d mutants, want %d", runner, len(runs[runner]), len(want))
		}
	}
	hot, cold := runs[campaign.RunnerHot], runs[campaign.RunnerCold]
	for id, h := range hot {
		c := cold[id]
		if h.Status != c.Status || h.Generator != c.Generator || (h.Status == verdict.StatusKilled) != (len(h.KilledBy) > 0 || h.ID == "sanity") {
			t.Errorf("%s: hot %q (generator %q, killed by %q), cold %q (generator %q, killed by %q)", id, h.Status, h.Generator, h.KilledBy, c.Status, c.Generator, c.KilledBy)
		}
		if c.Runner != "" {
			t.Errorf("%s: the cold runner says it ran %q", id, c.Runner)
		}
	}
	for _, id := range []string{"a-schema-bound", "b-unobservable", "d-hangs"} {
		if hot[id].Runner != campaign.RunnerHot {
			t.Errorf("%s: judged by a run of its own under the hot runner, want a hot process's verdict", id)
		}
	}
	for _, id := range []string{"c-goroutine-panics", "e-description"} {
		if hot[id].Runner != "" {
			t.Errorf("%s: judged in a hot process, want a run of its own (%s)", id, hot[id].Detail)
		}
	}
	if n := hintNote(notes[campaign.RunnerHot], "ran cold from the start"); n != "" {
		t.Errorf("the first hot campaign ran mutants cold on a hint: %q", n)
	}
	if n := hintNote(notes[campaign.RunnerHot], "ended the process"); !strings.HasPrefix(n, "hot processes: 1 mutant(s) ended the process that served them") {
		t.Errorf("the first hot campaign's note on processes that died is %q, want one for 1 (notes %q)", n, notes[campaign.RunnerHot])
	}

	res, err := hinted.res, hinted.err
	if err != nil {
		t.Fatalf("hinted: %v", err)
	}
	got := byID(res)
	for _, id := range []string{"c-goroutine-panics", "b-unobservable"} {
		if h, w := got[id], hot[id]; h.Status != w.Status || h.Generator != w.Generator {
			t.Errorf("hinted: %s: %q (generator %q), want %q (generator %q)", id, h.Status, h.Generator, w.Status, w.Generator)
		}
	}
	if got["b-unobservable"].Runner != campaign.RunnerHot {
		t.Errorf("hinted: b-unobservable judged by a run of its own, want a hot process's verdict")
	}
	if n := hintNote(res.Notes, "ran cold from the start"); !strings.HasPrefix(n, "hot processes: 1 mutants ran cold from the start") {
		t.Errorf("hinted: the note on cold hints is %q, want one for 1 mutant (notes %q)", n, res.Notes)
	}
	if n := hintNote(res.Notes, "died serving"); n != "" {
		t.Errorf("hinted: a hot process died: %q", n)
	}
	// Its cold runs panicked again: the hint stays.
	files, _ := filepath.Glob(filepath.Join(cfg.HintsDir, "*-coldhints-*.json"))
	var kept []string
	if len(files) != 1 {
		t.Fatalf("hint files %q, want 1", files)
	}
	if b, err := os.ReadFile(files[0]); err != nil || json.Unmarshal(b, &kept) != nil || len(kept) != 1 {
		t.Errorf("after the hinted campaign the hints are %s (%v), want 1", b, err)
	}
}

// hintNote is the note of notes that holds s, or "".
func hintNote(notes []string, s string) string {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return n
		}
	}
	return ""
}
