package scenarios

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/waitsim/waitsim/sim"
)

var (
	flagPaths  = flag.String("waitsim.paths", "table", "comma-separated scenario files or directories")
	flagOut    = flag.String("waitsim.out", "", "write the run's results (RunResult JSON) to this file")
	flagRepeat = flag.Int("waitsim.repeat", 1, "run every case N times and fail on any trace difference")
	flagUpdate = flag.Bool("update", false, "rewrite the golden traces under golden/")
)

func paths() []string { return strings.Split(*flagPaths, ",") }

// firstHash keeps each case's first trace hash across repeated runs of
// TestTable in one process (go test -cpu 1,2,4 runs it once per GOMAXPROCS).
var firstHash = struct {
	sync.Mutex
	m map[string][]sim.Entry
}{m: map[string][]sim.Entry{}}

// seen keeps the timeline TestTable got for each case at the current
// GOMAXPROCS, so that TestGolden, run after it in the same process (make test,
// make determinism: -run '^(TestTable|TestGolden)$', with -cpu 1,2,4),
// compares that run with the golden trace instead of running every world a
// second time. Run alone, TestGolden runs the worlds itself.
var seen = struct {
	sync.Mutex
	procs     int
	timelines map[string]string
}{}

// seenTimeline returns the timeline TestTable recorded for case id at this
// GOMAXPROCS, if any.
func seenTimeline(id string) (string, bool) {
	seen.Lock()
	defer seen.Unlock()
	if seen.procs != runtime.GOMAXPROCS(0) {
		return "", false
	}
	tl, ok := seen.timelines[id]
	return tl, ok
}

// moduleRelative returns file relative to the module root (the parent of
// this package's directory, where go test runs), or absolute when outside it.
func moduleRelative(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return file
	}
	root, err := filepath.Abs("..")
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return abs
	}
	return filepath.ToSlash(rel)
}

// TestTable runs the scenario table: every case's expectations and every
// invariant. Subtests are named by case id.
func TestTable(t *testing.T) {
	var mu sync.Mutex
	run := RunResult{Version: ResultVersion}
	seen.Lock()
	seen.procs, seen.timelines = runtime.GOMAXPROCS(0), map[string]string{}
	seen.Unlock()
	runCase := func(c Case) bool {
		return t.Run(c.ID, func(t *testing.T) {
			r := c.Run(t)
			seen.Lock()
			seen.timelines[r.ID] = r.Timeline
			seen.Unlock()
			for i := 2; i <= *flagRepeat && r.Verdict != VerdictError; i++ {
				again := c.Run(t)
				if again.TraceHash != r.TraceHash {
					r.Verdict = VerdictFail
					r.Failures = append(r.Failures, fmt.Sprintf("not deterministic: run %d differs from run 1: %s", i, FirstDivergence(r.Trace, again.Trace)))
					break
				}
			}
			if r.Verdict != VerdictError {
				firstHash.Lock()
				if prev, ok := firstHash.m[r.ID]; !ok {
					firstHash.m[r.ID] = r.Trace
				} else if d := FirstDivergence(prev, r.Trace); d != "(identical)" {
					r.Verdict = VerdictFail
					r.Failures = append(r.Failures, "not deterministic across runs of this process (e.g. -cpu 1,2,4): "+d)
				}
				firstHash.Unlock()
			}
			mu.Lock()
			run.Cases = append(run.Cases, r)
			mu.Unlock()
			if r.Verdict != VerdictPass {
				t.Error(FailureReport(r))
			}
		})
	}
	// The mutation runner's kill first: likely killers run first, and a
	// run that stops at its first failure loads only the files it reached.
	order := caseOrder()
	ran := map[string]bool{}
	if failFast() && len(order) > 0 {
		if _, f := SplitCaseLine(order[0]); f != "" {
			if stopped := runLazily(order, ran, runCase); stopped {
				return
			}
		}
	}
	cases, err := Load(paths())
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		cases[i].File = moduleRelative(cases[i].File)
	}
	writeCaseIndex(t, cases)
	for _, c := range OrderCases(cases, order) {
		if !ran[c.ID] {
			runCase(c)
		}
	}
	for _, r := range run.Cases {
		switch r.Verdict {
		case VerdictPass:
			run.Passed++
		case VerdictFail:
			run.Failed++
		default:
			run.Errors++
		}
	}
	if *flagOut != "" {
		b, err := json.MarshalIndent(run, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*flagOut, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// failFast reports whether the binary runs with -test.failfast.
func failFast() bool {
	f := flag.Lookup("test.failfast")
	return f != nil && f.Value.String() == "true"
}

// runLazily runs the cases order lists with a file, in order, loading each
// file (from the module root) when its first case is reached, and marks
// them in ran; runCase reports whether a case passed. It stops at the first
// case that fails (stopped: -test.failfast would skip every later case
// anyway), and at a file that does not load or does not hold the case (the
// full load that follows reports or runs it).
func runLazily(order []string, ran map[string]bool, runCase func(Case) bool) (stopped bool) {
	loaded := map[string]map[string]Case{}
	for _, l := range order {
		name, file := SplitCaseLine(l)
		id, ok := strings.CutPrefix(name, "TestTable/")
		if !ok || file == "" {
			continue
		}
		byID, ok := loaded[file]
		if !ok {
			path := file
			if !filepath.IsAbs(path) {
				path = filepath.Join("..", filepath.FromSlash(file))
			}
			cs, problems := LoadFile(path)
			if len(problems) > 0 {
				return false
			}
			byID = map[string]Case{}
			for _, c := range cs {
				c.File = file
				byID[c.ID] = c
				byID[strings.ReplaceAll(c.ID, " ", "_")] = c
			}
			loaded[file] = byID
		}
		c, ok := byID[id]
		if !ok {
			return false
		}
		if ran[c.ID] {
			continue
		}
		ran[c.ID] = true
		if !runCase(c) {
			return true
		}
	}
	return false
}

// writeCaseIndex writes the file CaseIndexEnv names, if set: each case's
// test name and file.
func writeCaseIndex(t *testing.T, cases []Case) {
	p := os.Getenv(CaseIndexEnv)
	if p == "" {
		return
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString(CaseLine("TestTable/"+strings.ReplaceAll(c.ID, " ", "_"), c.File) + "\n")
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGolden compares every case's timeline with its golden trace under
// golden/; -update rewrites them, so a pull request shows timeline changes as
// diffs. After TestTable in the same process and at the same GOMAXPROCS it
// compares the timelines TestTable got (seen) rather than running each world
// again.
func TestGolden(t *testing.T) {
	cases, err := Load(paths())
	if err != nil {
		t.Fatal(err)
	}
	if *flagPaths == "table" {
		// Golden traces of cases that no longer exist are stale.
		known := map[string]bool{}
		for _, c := range cases {
			known[GoldenPath(c.ID)] = true
		}
		files, _ := filepath.Glob(filepath.Join("golden", "*.trace"))
		for _, f := range files {
			if !known[f] {
				if *flagUpdate {
					_ = os.Remove(f)
				} else {
					t.Errorf("stale golden trace %s: no case has this id (go test ./scenarios/ -run TestGolden -update removes it)", f)
				}
			}
		}
	}
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			file := GoldenPath(c.ID)
			timeline, ok := seenTimeline(c.ID)
			if !ok || *flagUpdate {
				timeline = sim.RunWorld(t, c.World()).Timeline
			}
			if *flagUpdate {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(timeline), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("no golden trace for %s (%v): run go test ./scenarios/ -run TestGolden -update", c.ID, err)
			}
			if string(want) != timeline {
				t.Errorf("%s: the timeline differs from %s at %s\nre-run: go test ./scenarios/ -run TestGolden -update (then review the diff)",
					c.ID, file, firstLineDiff(string(want), timeline))
			}
		})
	}
}

func firstLineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  golden: %s\n  now:    %s", i+1, a, b)
		}
	}
	return "(no line differs)"
}
