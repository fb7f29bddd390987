package suggest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/packs/waitagents/gen"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/workspace"
	"pgregory.net/rapid"
)

// Build is one test binary of the scenario suite (./scenarios/) and the
// environment it needs (e.g. the switch of a schemata mutant).
type Build struct {
	Bin string
	Env []string
}

// Runner runs b with args (test flags) in the suite's package directory and
// returns when it exits. A test that fails is not an error (exit code 1);
// a binary that panics, times out or cannot start is.
type Runner func(ctx context.Context, b Build, args ...string) error

// Job is one search, for one surviving mutant.
type Job struct {
	ID     string // the mutant's id, for the "# protects:" line
	Intent string // the mutant's intent, for the case's description
	Head   Build
	Mutant Build
	Run    Runner
	Tmp    string        // a private scratch directory
	Worlds int           // generated worlds to search; default 400
	Seed   int           // the first world's seed (world i has seed Seed+i); default 1
	Budget time.Duration // wall time for search and shrink; default DefaultBudget
	// TestRun is the -test.run pattern of the suite's table test (the one
	// that calls waitsim.Run); default "^TestTable$".
	TestRun string
}

// Found is a suggested case.
type Found struct {
	Name string // the case's name (its id in the table)
	YAML []byte // the file
	Why  string // what differs between head and the mutant, one line
}

// DefaultBudget is a search's wall time (Job.Budget) when the job sets none:
// a bound, not a measurement — the three searches of
// TestSuggestDemonstration end in 3–25 s.
const DefaultBudget = 90 * time.Second

// batch is how many scenario files one run of a build takes.
const batch = 40

// Search looks for a case that kills j's mutant. It returns nil and a note
// saying why when it finds none; the error is the runner's own failure (or
// ctx's).
func Search(ctx context.Context, j Job) (*Found, string, error) {
	if j.Worlds <= 0 {
		j.Worlds = 400
	}
	if j.Seed == 0 {
		j.Seed = 1
	}
	if j.Budget <= 0 {
		j.Budget = DefaultBudget
	}
	deadline := time.Now().Add(j.Budget)
	s := &searcher{j: j}
	worlds := rapid.Custom(gen.Generate)
	var cur *scenario.Scenario
	var why string
	for first := 0; first < j.Worlds && cur == nil; first += batch {
		if time.Now().After(deadline) {
			return nil, fmt.Sprintf("no generated world told head and the mutant apart within the search's %v (%d worlds tried)", j.Budget, first), nil
		}
		var ws []scenario.Scenario
		for i := first; i < min(first+batch, j.Worlds); i++ {
			ws = append(ws, worlds.Example(j.Seed+i))
		}
		k, w, err := s.firstDiff(ctx, ws)
		if err != nil {
			return nil, "", err
		}
		if k >= 0 {
			cur, why = &ws[k], w
		}
	}
	if cur == nil {
		return nil, fmt.Sprintf("none of %d generated worlds tells head and the mutant apart in a reply, a resolve time, a read count or an invariant", j.Worlds), nil
	}
	// Shrink: take the first simplification that still tells them apart.
	for round := 0; round < 200 && time.Now().Before(deadline); round++ {
		cands := simplify(*cur)
		improved := false
		for from := 0; from < len(cands) && !improved; from += batch {
			k, w, err := s.firstDiff(ctx, cands[from:min(from+batch, len(cands))])
			if err != nil {
				return nil, "", err
			}
			if k >= 0 {
				c := cands[from+k]
				cur, why, improved = &c, w, true
			}
		}
		if !improved {
			break
		}
	}
	f, err := s.finish(ctx, *cur, why)
	if err != nil || f == nil {
		return nil, "the shrunk world tells head and the mutant apart, but no case written from head's outcome fails the mutant", err
	}
	return f, "", nil
}

// loadOptions check the worlds as the reference tool's table does.
var loadOptions = func() scenario.Options {
	o, err := waitagents.Reference().LoadOptions()
	if err != nil {
		panic(err) // the reference tool's own schema always resolves
	}
	return o
}()

// searcher runs worlds on both builds.
type searcher struct {
	j Job
	n int // runs so far, for file names
}

// outcome is one world's run on one build.
type outcome struct {
	verdict string
	fails   string            // failures, violations and error, joined
	expect  []scenario.Expect // what it showed, as expectations
}

// firstDiff runs ws (each valid or not) on head and the mutant and returns
// the index of the first world head passes and the mutant shows differently
// (-1: none) and what differs.
//
// The worlds are checked by head's own run: a world head's suite refuses to
// load (a problem record in its results file; then no case ran) is left out
// and the rest run again. Loading each world in this process first would cost
// more: about 1 in 90 of the worlds TestSuggestDemonstration searches is
// refused (8 of 731, 3 December 2026), and under -race that in-process load
// of every world took about 20 s of the test's CPU.
func (s *searcher) firstDiff(ctx context.Context, ws []scenario.Scenario) (int, string, error) {
	s.n++
	dir := filepath.Join(s.j.Tmp, fmt.Sprintf("b%04d", s.n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return -1, "", err
	}
	defer os.RemoveAll(dir)
	index := map[string]int{}  // case id → index in ws
	files := map[string]bool{} // the files written, by path
	for i, w := range ws {
		w.Name = fmt.Sprintf("w%03d", i)
		w.Expect = nil
		b, err := scenario.MarshalScenario(w, "a world searched by waitsim mutate --suggest")
		if err != nil {
			continue
		}
		f := filepath.Join(dir, w.Name+".yaml")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			return -1, "", err
		}
		files[f] = true
		index[w.Name] = i
	}
	for len(files) > 0 {
		head, mut, refused, err := s.both(ctx, dir)
		if err != nil {
			return -1, "", err
		}
		if len(refused) > 0 {
			left := len(files)
			for _, p := range refused {
				f := filepath.Join(dir, filepath.Base(p.File))
				if p.File != "" && files[f] {
					delete(files, f)
					os.Remove(f)
				}
			}
			if len(files) == left {
				return -1, "", fmt.Errorf("head's run refused the generated worlds for a problem in no world's file: %s", refused[0])
			}
			continue
		}
		best, why := -1, ""
		for id, h := range head {
			i := index[id]
			if h.verdict != results.VerdictPass || (best >= 0 && i > best) {
				continue
			}
			m, ok := mut[id]
			if w := differs(h, m, ok); w != "" {
				best, why = i, w
			}
		}
		return best, why, nil
	}
	return -1, "", nil
}

// both runs the scenario files of dir on head and on the mutant, at once,
// and returns their outcomes and the problems head's run found in the files
// (then neither has outcomes). A mutant whose run ends without a result (a
// crash) has no outcomes.
func (s *searcher) both(ctx context.Context, dir string) (head, mut map[string]outcome, refused []results.Problem, err error) {
	var wg sync.WaitGroup
	var herr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		head, refused, herr = s.run(ctx, s.j.Head, dir, "head")
	}()
	go func() {
		defer wg.Done()
		mut, _, _ = s.run(ctx, s.j.Mutant, dir, "mutant")
	}()
	wg.Wait()
	if ctx.Err() != nil {
		return nil, nil, nil, ctx.Err()
	}
	if herr != nil {
		return nil, nil, nil, fmt.Errorf("head's run of generated worlds: %w", herr)
	}
	if len(refused) > 0 {
		return nil, nil, refused, nil
	}
	return head, mut, nil, nil
}

// run runs b over dir's files and reads each case's outcome, or the
// problems the run found in the files.
func (s *searcher) run(ctx context.Context, b Build, dir, who string) (map[string]outcome, []results.Problem, error) {
	out := filepath.Join(dir, who+".json")
	params := filepath.Join(dir, who+"-params.json")
	if err := results.WriteParams(params, results.Params{Paths: []string{dir}, Results: out, NoTraces: true}); err != nil {
		return nil, nil, err
	}
	b.Env = append(workspace.SuiteEnv(b.Env), results.ParamsEnv+"="+params)
	run := s.j.TestRun
	if run == "" {
		run = "^TestTable$"
	}
	err := s.j.Run(ctx, b, "-test.run", run)
	rr, rerr := results.ReadRun(out)
	if rerr != nil {
		if err == nil {
			err = rerr
		}
		return nil, nil, err
	}
	if len(rr.Problems) > 0 {
		return nil, rr.Problems, nil
	}
	res := map[string]outcome{}
	for _, c := range rr.Cases {
		var fails []string
		fails = append(fails, c.Failures...)
		for _, v := range c.Violation {
			fails = append(fails, v.Invariant+": "+v.Message)
		}
		if c.Error != "" {
			fails = append(fails, c.Error)
		}
		res[c.ID] = outcome{verdict: c.Verdict, fails: strings.Join(fails, "; "), expect: Observed(c)}
	}
	return res, nil, nil
}

// differs says how the mutant's outcome m differs from head's h, or "".
func differs(h, m outcome, ran bool) string {
	switch {
	case !ran:
		return "the mutant's run ended without a result (it crashed or hung)"
	case m.verdict != results.VerdictPass:
		return "the mutant breaks " + firstOf(m.fails)
	}
	hb, _ := json.Marshal(h.expect)
	mb, _ := json.Marshal(m.expect)
	if string(hb) == string(mb) {
		return ""
	}
	return describe(h.expect, m.expect)
}

func firstOf(s string) string {
	if i := strings.Index(s, "; "); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// finish writes the shrunk world with head's outcome as its expectations
// (only the counts that tell the builds apart, beside every call's resolve
// time and reply), and checks it: head passes it, the mutant fails it.
// With the fields pruned it may no longer fail the mutant; then every
// observed field is kept.
func (s *searcher) finish(ctx context.Context, w scenario.Scenario, why string) (*Found, error) {
	name := CaseName(s.j.ID)
	w.Name = name
	w.Description = fmt.Sprintf("Suggested by waitsim mutate --suggest: head passes this case and mutant %s fails it (%s). The expectations are head's observed outcome.", s.j.ID, why)
	if s.j.Intent != "" {
		w.Description += " The mutant: " + s.j.Intent + "."
	}
	for _, full := range []bool{false, true} {
		dir := filepath.Join(s.j.Tmp, "final")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		w.Expect = nil
		probe := w
		b, err := scenario.MarshalScenario(probe, s.j.ID)
		if err != nil {
			return nil, err
		}
		f := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			return nil, err
		}
		head, mut, refused, err := s.both(ctx, dir)
		if err != nil {
			return nil, err
		}
		if len(refused) > 0 {
			return nil, fmt.Errorf("the shrunk world does not load: %s", refused[0])
		}
		h, m := head[name], mut[name]
		if full {
			w.Expect = h.expect
		} else {
			w.Expect = prune(h.expect, m.expect)
		}
		b, err = scenario.MarshalScenario(w, s.j.ID)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			return nil, err
		}
		if _, probs := scenario.LoadFile(f, loadOptions); len(probs) > 0 {
			return nil, fmt.Errorf("the suggested case does not load: %s", probs[0])
		}
		head, mut, refused, err = s.both(ctx, dir)
		os.RemoveAll(dir)
		if err != nil {
			return nil, err
		}
		if len(refused) > 0 {
			return nil, fmt.Errorf("the suggested case does not load in head's suite: %s", refused[0])
		}
		if hv, ok := head[name]; !ok || hv.verdict != results.VerdictPass {
			return nil, errors.New("head fails the suggested case: " + hv.fails)
		}
		if mv, ok := mut[name]; ok && mv.verdict == results.VerdictPass {
			continue
		}
		return &Found{Name: name, YAML: b, Why: why}, nil
	}
	return nil, nil
}

// CaseName is the name of the case suggested for mutant id: "suggested-"
// and the id in letters, digits, "-", "_" and "."; when anything had to be
// replaced, "-" and 8 hex digits of the id's sha256 follow, so two ids
// never share a name.
func CaseName(id string) string {
	var b strings.Builder
	changed := false
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			changed = true
			if !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	name := "suggested-" + strings.Trim(b.String(), "_")
	if changed {
		sum := sha256.Sum256([]byte(id))
		name += fmt.Sprintf("-%x", sum[:4])
	}
	return name
}
