package waitsim

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/check"
	"github.com/waitsim/waitsim/hot"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// DefaultDir is where Run looks for scenario files when Params.Dir is "":
// relative to the test's package directory.
const DefaultDir = "testdata/waitsim"

var update = flag.Bool("waitsim.update", false, "rewrite the golden traces (waitsim.Params.Golden) instead of comparing them")

// Params say what Run tests.
type Params struct {
	// Dir is the directory of scenario files (*.yaml, *.yml, walked),
	// relative to the test's package directory; "" is DefaultDir.
	Dir string
	// Tool registers the tools under test on a server: any Go MCP tool
	// (check.Generic). It runs once per world, inside the world's bubble.
	Tool func(s *mcp.Server)
	// Pack, instead of Tool, is a contract pack: the tool and the checks of
	// its contract (e.g. waitagents.Reference()).
	Pack check.Pack
	// Golden, when not "", is a directory of golden traces, relative to the
	// package directory: each case's trace must equal
	// Golden/<results.SafeFileName(id)>.trace; -waitsim.update rewrites them,
	// and a golden file no case has is stale. Checked under plain go test
	// (not when a waitsim command runs the table).
	Golden string
	// Known are cases known to fail for the tool under test, by id, each
	// with its reason (e.g. a tie the contract's table settles one way and
	// a tool on package time meets the other way): such a case is reported
	// as skipped, with the reason and what failed, for as long as it fails;
	// one that passes fails the test, and so does an id that names no case,
	// so that the list never outlives its reasons.
	Known map[string]string
	// FS, when not nil, holds the scenario files, Dir being a directory in
	// it (e.g. the contract's own table: scenarios.Table, "table"). They are
	// read from a copy in the test's temporary directory; results name them
	// by their path in FS.
	FS fs.FS
}

// pack is the pack p asks for.
func (p Params) pack() (check.Pack, error) {
	switch {
	case p.Pack != nil && p.Tool != nil:
		return nil, fmt.Errorf("waitsim.Params: set Tool or Pack, not both")
	case p.Pack != nil:
		return p.Pack, nil
	case p.Tool != nil:
		return check.Generic{Register: p.Tool}, nil
	}
	return nil, fmt.Errorf("waitsim.Params: set Tool (your tool's registration) or Pack (a contract pack)")
}

// firstTrace keeps each case's first trace across runs of one process
// (go test -count 2 or -cpu 1,2,4 runs the test again), keyed by test and
// case: a later run must give the same one.
var firstTrace = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// Run runs the scenario table of p under t: each file a subtest, each case
// a subtest of it (see the package doc).
func Run(t *testing.T, p Params) {
	t.Helper()
	params, viaCommand, err := results.ReadParams()
	if err != nil {
		t.Fatal(err)
	}
	if params.WatchdogMs > 0 {
		sim.SetWatchdog(time.Duration(params.WatchdogMs) * time.Millisecond)
	}
	// A schemata binary's check: the mutation sites that run, from here
	// (whatever runs before the first case, every case depends on).
	sites := params.Sites != "" && params.Hot == nil && hot.RecordSites()
	pack, err := p.pack()
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{t: t, p: p, params: params, viaCommand: viaCommand, pack: pack, run: results.RunResult{Version: results.ResultVersion}, sites: sites}
	r.root, r.pkgDir = moduleRoot()
	dir := p.Dir
	if dir == "" {
		dir = DefaultDir
	}
	if p.FS != nil {
		tmp := t.TempDir()
		if err := copyFS(p.FS, dir, tmp); err != nil {
			t.Fatalf("waitsim: the scenario files of Params.FS: %v", err)
		}
		r.fsRoot, dir = tmp, filepath.Join(tmp, filepath.FromSlash(dir))
	}
	r.dir = dir
	if params.Hot != nil {
		// A hot runner's process: request after request, each one
		// mutant's run of the table (serveHot), until the runner ends it.
		r.files = &hotFiles{}
		hot.Serve(t, *params.Hot, results.HotTable, func(t *testing.T, req results.HotRequest) results.HotReply {
			return r.serveHot(t, req)
		})
		return
	}
	paths := params.Paths
	if len(paths) == 0 {
		paths = []string{dir}
	}
	if params.Results != "" {
		t.Cleanup(r.writeResults)
		sim.OnWatchdog(r.stopped)
		t.Cleanup(func() { sim.OnWatchdog(nil) })
	}
	opts, err := pack.LoadOptions()
	if err != nil {
		if params.Serve != nil {
			r.run.Serve = &results.ServeResult{Outcome: results.ServeFailed, Error: fmt.Sprintf("%s: the tools under test: %v", pack.Name(), err)}
		}
		t.Fatalf("%s: the tools under test: %v", pack.Name(), err)
	}
	r.opts = opts
	if params.Serve != nil {
		r.serveCase(*params.Serve)
		return
	}
	if failFast() && len(params.Order) > 0 && params.Order[0].File != "" {
		if stopped := r.runLazily(); stopped {
			return
		}
	}
	cases, err := scenario.Load(paths, opts)
	if err != nil {
		r.fail(err)
		return
	}
	r.index(cases)
	if len(params.Cases) > 0 {
		cases = r.only(cases)
	}
	for _, g := range r.byFile(cases) {
		if r.ranFile[g.file] {
			continue
		}
		r.runFile(g.name, g.cases)
	}
	if p.Golden != "" && !viaCommand && len(params.Paths) == 0 {
		r.staleGoldens(cases)
	}
	if len(params.Paths) == 0 && len(params.Cases) == 0 {
		for id := range p.Known {
			if !r.knownSeen[id] {
				t.Errorf("waitsim.Params.Known names %q, which is no case of the table: remove its entry", id)
			}
		}
	}
}

// runner is one Run.
type runner struct {
	t          *testing.T
	p          Params
	params     results.Params
	viaCommand bool
	pack       check.Pack
	opts       scenario.Options
	root       string // the module root ("" when not found)
	pkgDir     string // the test's package directory, relative to root
	dir        string // the table's directory (Params.Dir, or its copy from Params.FS)
	fsRoot     string // the copy of Params.FS ("" without one)

	mu        sync.Mutex
	run       results.RunResult
	ranFile   map[string]bool
	knownSeen map[string]bool // Params.Known entries met
	current   *scenario.Case  // the case running (runCase), for the watchdog (stopped)
	bytesKept int             // about how many bytes of results r.run's cases keep (results.MaxRunResultBytes)

	// hot is the reply of a hot request being served (serveHot), nil
	// otherwise: failures are recorded in it, never reported on t, whose
	// test the hot session's loop does not run.
	hot         *results.HotReply
	stopAtFirst bool          // the hot request stops at its first failing case
	orderOnly   bool          // the hot request runs the cases of its order alone
	sites       bool          // the mutation sites each case runs are recorded (results.Params.Sites)
	ran         results.Sites // the record
	files       *hotFiles     // a hot process's loads, kept for its later requests; nil when not to be used
}

// serveHot runs one hot request (package hot) on a fresh runner: what a
// run of the binary on its own, with -test.failfast when the request stops
// at its first failure and the request's order, would run, reporting the
// failed tests under that run's names.
func (r *runner) serveHot(t *testing.T, req results.HotRequest) results.HotReply {
	h := &runner{t: t, p: r.p, params: results.Params{Order: req.Order, KillSuite: true}, viaCommand: true, pack: r.pack,
		root: r.root, pkgDir: r.pkgDir, dir: r.dir, fsRoot: r.fsRoot, run: results.RunResult{Version: results.ResultVersion},
		hot: &results.HotReply{}, stopAtFirst: req.StopAtFirst, orderOnly: req.Only && req.StopAtFirst}
	if h.orderOnly {
		h.files = r.files // loading never runs the mutant's code (hotFiles)
	}
	opts, err := h.pack.LoadOptions()
	if err != nil {
		h.hotFail(t.Name(), fmt.Sprintf("%s: the tools under test: %v", h.pack.Name(), err))
		return *h.hot
	}
	h.opts = opts
	if h.stopAtFirst && len(h.params.Order) > 0 && h.params.Order[0].File != "" {
		if stopped := h.runInOrder(); stopped {
			return *h.hot
		}
	}
	cases, err := scenario.Load([]string{h.dir}, opts)
	if err != nil {
		h.fail(err)
		return *h.hot
	}
	for _, g := range h.byFile(cases) {
		if h.stopAtFirst && len(h.hot.Failed) > 0 {
			return *h.hot
		}
		if h.ranFile[g.file] {
			continue
		}
		h.runFile(g.name, g.cases)
	}
	if len(h.hot.Failed) == 0 {
		for id := range h.p.Known {
			if !h.knownSeen[id] {
				h.hotFail(t.Name(), fmt.Sprintf("waitsim.Params.Known names %q, which is no case of the table: remove its entry", id))
			}
		}
	}
	return *h.hot
}

// hotFail records a failed test of a hot request.
func (r *runner) hotFail(test, output string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hot.Failed = append(r.hot.Failed, results.HotFailure{Test: test, Output: output})
}

// fail reports file problems (or another load error): on t, and in the
// results file as records.
func (r *runner) fail(err error) {
	var fe *results.FileError
	if e, ok := err.(*results.FileError); ok {
		fe = e
	}
	if r.hot != nil {
		r.hotFail(r.t.Name(), "waitsim: "+err.Error())
		return
	}
	if fe == nil {
		r.t.Fatalf("waitsim: %v", err)
		return
	}
	r.record(fe)
	r.t.Fatal(fe.Error())
}

// record adds the problems of fe to the results file, each file relative
// to the module root.
func (r *runner) record(fe *results.FileError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range fe.Problems {
		p.File = r.rel(p.File)
		r.run.Problems = append(r.run.Problems, p)
	}
}

// fileGroup is the cases of one file, in the table's order.
type fileGroup struct {
	file, name string
	cases      []scenario.Case
}

// byFile groups cases by file, in the order their files first appear; the
// order of the params (kill first) moves files and cases forward.
func (r *runner) byFile(cases []scenario.Case) []fileGroup {
	cases = orderCases(cases, r.params.Order)
	var groups []fileGroup
	at := map[string]int{}
	for _, c := range cases {
		i, ok := at[c.File]
		if !ok {
			i = len(groups)
			at[c.File] = i
			groups = append(groups, fileGroup{file: c.File, name: r.fileName(c.File)})
		}
		groups[i].cases = append(groups[i].cases, c)
	}
	return groups
}

// orderCases moves the cases order names to the front, in its order
// (results.Params.Order); an entry that names no case is ignored.
func orderCases(cases []scenario.Case, order []results.CaseRef) []scenario.Case {
	if len(order) == 0 {
		return cases
	}
	at := make(map[string]int, len(cases))
	for i, c := range cases {
		at[c.ID] = i
	}
	out := make([]scenario.Case, 0, len(cases))
	taken := make([]bool, len(cases))
	for _, o := range order {
		if i, ok := at[o.ID]; ok && !taken[i] {
			taken[i] = true
			out = append(out, cases[i])
		}
	}
	for i, c := range cases {
		if !taken[i] {
			out = append(out, c)
		}
	}
	return out
}

// fileName is the subtest name of a scenario file: its path relative to the
// table's directory, or its base name when it lies elsewhere.
func (r *runner) fileName(file string) string {
	if rel, err := filepath.Rel(r.dir, file); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(file)
}

// runFile runs the cases of one file as the subtest name.
func (r *runner) runFile(name string, cases []scenario.Case) bool {
	if len(cases) > 0 {
		r.mu.Lock()
		if r.ranFile == nil {
			r.ranFile = map[string]bool{}
		}
		r.ranFile[cases[0].File] = true
		r.mu.Unlock()
	}
	return r.t.Run(name, func(t *testing.T) {
		for _, c := range cases {
			if !r.runCase(t, c) && r.hot != nil && r.stopAtFirst {
				return // as -test.failfast skips every later case
			}
		}
	})
}

// runCase runs case c as a subtest of t and records its result.
func (r *runner) runCase(t *testing.T, c scenario.Case) bool {
	if r.sites {
		defer r.recordSites(c)()
	}
	recorded := false
	r.mu.Lock()
	r.current = &c
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.current = nil
		r.mu.Unlock()
	}()
	ok := t.Run(c.ID, func(t *testing.T) {
		res := r.pack.Run(t, &c)
		res.File = r.rel(c.File)
		// A hot process's subtests are entered again and named "#01":
		// the name a run of its own gives is hot.FullName's.
		name := t.Name()
		if r.hot != nil {
			name = hot.FullName(r.t.Name(), r.fileName(c.File), c.ID)
		}
		res.Repro = r.repro(name, c)
		if res.Verdict != results.VerdictError && res.Verdict != results.VerdictSkip {
			r.checkRepeat(t, &c, &res)
			r.checkGolden(t, name, &res)
		}
		r.known(&res)
		kept := r.keep(&res)
		r.mu.Lock()
		r.run.Cases = append(r.run.Cases, kept)
		r.mu.Unlock()
		switch res.Verdict {
		case results.VerdictPass:
		case results.VerdictSkip:
			t.Skip(res.Error)
		default:
			report := results.FailureReport(res)
			if r.hot != nil {
				recorded = true
				r.hotFail(hot.FullName(r.t.Name(), r.fileName(c.File), c.ID), report)
			}
			t.Error(report)
		}
	})
	if r.hot != nil {
		switch {
		case ok:
			r.mu.Lock()
			r.hot.Passed++
			r.mu.Unlock()
		case !recorded:
			r.hotFail(hot.FullName(r.t.Name(), r.fileName(c.File), c.ID), "the case's test failed before its result was recorded (see its log)")
		}
	}
	return ok
}

// known applies Params.Known to res: a known failure is a skip, with its
// reason and what failed; a known failure that passes fails.
func (r *runner) known(res *results.CaseResult) {
	why, ok := r.p.Known[res.ID]
	if !ok {
		return
	}
	r.mu.Lock()
	if r.knownSeen == nil {
		r.knownSeen = map[string]bool{}
	}
	r.knownSeen[res.ID] = true
	r.mu.Unlock()
	switch res.Verdict {
	case results.VerdictPass:
		res.Verdict = results.VerdictFail
		res.Failures = append(res.Failures, fmt.Sprintf("known to fail (Params.Known: %s), yet it passes: remove its entry", why))
	case results.VerdictFail, results.VerdictError:
		what := res.Error
		if len(res.Failures) > 0 {
			what = res.Failures[0]
		} else if len(res.Violation) > 0 {
			what = res.Violation[0].Invariant + ": " + res.Violation[0].Message
		}
		res.Verdict, res.Error = results.VerdictSkip, fmt.Sprintf("known to fail: %s (it failed: %s)", why, what)
	}
}

// checkRepeat runs c again as the params ask (Repeat), and compares its
// trace with the first run of it in this process (-count, -cpu).
func (r *runner) checkRepeat(t *testing.T, c *scenario.Case, res *results.CaseResult) {
	for i := 2; i <= r.params.Repeat; i++ {
		again := r.pack.Run(t, c)
		if again.TraceHash != res.TraceHash {
			res.Verdict = results.VerdictFail
			res.Failures = append(res.Failures, fmt.Sprintf("not deterministic: run %d differs from run 1: %s", i, results.FirstDivergence(res.Trace, again.Trace)))
			return
		}
	}
	if r.hot != nil {
		// A run of its own never meets a case twice: a hot request
		// compares with nothing an earlier request left.
		return
	}
	key := r.t.Name() + "\x00" + c.ID
	firstTrace.Lock()
	defer firstTrace.Unlock()
	prev, ok := firstTrace.m[key]
	if !ok {
		firstTrace.m[key] = res.Timeline
		return
	}
	if prev != res.Timeline {
		res.Verdict = results.VerdictFail
		res.Failures = append(res.Failures, "not deterministic across runs of this process (e.g. -cpu 1,2,4): "+firstLineDiff(prev, res.Timeline))
	}
}

// checkGolden compares the case's trace with its golden file (Params.Golden)
// under plain go test, or rewrites it with -waitsim.update.
func (r *runner) checkGolden(t *testing.T, name string, res *results.CaseResult) {
	if r.p.Golden == "" || r.viaCommand {
		return
	}
	file := filepath.Join(r.p.Golden, results.SafeFileName(res.ID)+".trace")
	if *update {
		if err := os.MkdirAll(r.p.Golden, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(res.Timeline), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		res.Verdict = results.VerdictFail
		res.Failures = append(res.Failures, fmt.Sprintf("no golden trace %s (%v): run go test with -waitsim.update", file, err))
		return
	}
	if string(want) != res.Timeline {
		res.Verdict = results.VerdictFail
		res.Failures = append(res.Failures, fmt.Sprintf("the trace differs from %s at %s (go test -run '%s' -args -waitsim.update rewrites it; then review the diff)",
			file, firstLineDiff(string(want), res.Timeline), results.RunPattern(strings.Split(name, "/")...)))
	}
}

// staleGoldens fails the test for golden files that no case has (or
// removes them with -waitsim.update).
func (r *runner) staleGoldens(cases []scenario.Case) {
	known := map[string]bool{}
	for _, c := range cases {
		known[results.SafeFileName(c.ID)+".trace"] = true
	}
	files, _ := filepath.Glob(filepath.Join(r.p.Golden, "*.trace"))
	for _, f := range files {
		if known[filepath.Base(f)] {
			continue
		}
		if *update {
			_ = os.Remove(f)
			continue
		}
		r.t.Errorf("stale golden trace %s: no case has this id (go test -args -waitsim.update removes it)", f)
	}
}

// runLazily runs the files of the params' order first (of their cases, those
// the params' Cases name, when it names any), loading each when
// the order reaches it, and stops at the first case that fails (stopped:
// -test.failfast would skip every later case anyway), so that a mutant's run
// reads only the files it needs; a file that does not load is left to the
// full load that follows.
func (r *runner) runLazily() (stopped bool) {
	seen := map[string]bool{}
	for _, o := range r.params.Order {
		if o.File == "" || seen[o.File] {
			continue
		}
		seen[o.File] = true
		cases, ok := r.loadFile(o.File)
		if !ok {
			return false
		}
		if len(r.params.Cases) > 0 {
			cases = slices.DeleteFunc(slices.Clone(cases), func(c scenario.Case) bool { return !slices.Contains(r.params.Cases, c.ID) })
			if len(cases) == 0 {
				continue
			}
		}
		cases = orderCases(cases, r.params.Order)
		if !r.runFile(r.fileName(o.File), cases) {
			return true
		}
	}
	return false
}

// runInOrder is a hot request's runLazily: it runs the cases one at a time
// in the exact order the request gives, across files, loading each file
// when the order first reaches it, and stops at the first case that fails
// (and, with the request's Only, after the order's last case).
// A run of its own must group the cases by file (a file's subtest entered
// again would be named "file#01"); a hot request's names come from
// hot.FullName, never from t, so it need not: the likeliest killer met
// first is tried first, not after the rest of an earlier case's file. Both
// run every case until the first failure, so both kill the same mutants;
// the first killer met can differ. The cases of the files it loaded that
// the order does not name run after it; the files are then marked run. A
// file that does not load is left to the full load that follows.
func (r *runner) runInOrder() (stopped bool) {
	type loaded struct {
		cases []scenario.Case
		ran   []bool
	}
	files := map[string]*loaded{}
	var seq []string // the files in the order first met
	for _, o := range r.params.Order {
		if o.File == "" {
			continue
		}
		f, ok := files[o.File]
		if !ok {
			cases, ok := r.loadFile(o.File)
			if !ok {
				return false
			}
			f = &loaded{cases: cases, ran: make([]bool, len(cases))}
			files[o.File] = f
			seq = append(seq, o.File)
		}
		i := slices.IndexFunc(f.cases, func(c scenario.Case) bool { return c.ID == o.ID })
		if i < 0 || f.ran[i] {
			continue
		}
		f.ran[i] = true
		if !r.runFile(r.fileName(o.File), f.cases[i:i+1]) {
			return true
		}
	}
	if r.orderOnly {
		return true // the cases left out cannot fail (results.HotRequest.Only)
	}
	for _, file := range seq {
		f := files[file]
		var rest []scenario.Case
		for i, c := range f.cases {
			if !f.ran[i] {
				rest = append(rest, c)
			}
		}
		if len(rest) > 0 && !r.runFile(r.fileName(file), rest) {
			return true
		}
	}
	return false
}

// loadFile loads one scenario file (scenario.LoadFile; a hot process
// through its kept loads, hotFiles); ok is false when the file has
// problems, which the full load that follows reports.
func (r *runner) loadFile(file string) (cases []scenario.Case, ok bool) {
	if r.files != nil {
		return r.files.load(file, r.opts)
	}
	cases, problems := scenario.LoadFile(file, r.opts)
	return cases, len(problems) == 0
}

// only keeps the cases the params name (results.Params.Cases).
func (r *runner) only(cases []scenario.Case) []scenario.Case {
	want := map[string]bool{}
	for _, id := range r.params.Cases {
		want[id] = true
	}
	var out []scenario.Case
	for _, c := range cases {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		r.t.Fatalf("no case of the table has the id %s", strings.Join(r.params.Cases, ", "))
	}
	return out
}

// index records every case the run loaded (results.RunResult.Index).
func (r *runner) index(cases []scenario.Case) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cases {
		r.run.Index = append(r.run.Index, results.IndexEntry{ID: c.ID, File: c.File,
			Test: r.t.Name() + "/" + results.TestName(r.fileName(c.File)) + "/" + results.TestName(c.ID)})
	}
}

// stoppedReportLimit is how much of the watchdog's report (its message and
// the goroutines' stacks) the stopped case's error keeps, in bytes: the
// message and the first stacks, the hung goroutine's among them as a rule.
const stoppedReportLimit = 6000

// stopped is the wall-clock watchdog's last word (sim.OnWatchdog), called
// while the running case's world hangs, just before the process ends: that
// case is an ERROR saying what the watchdog found, and the results are
// written, so that `waitsim run` shows the cases that ran, the case that
// stopped the table, and how many did not run.
func (r *runner) stopped(world, report string) {
	r.mu.Lock()
	if c := r.current; c != nil {
		if len(report) > stoppedReportLimit {
			report = report[:stoppedReportLimit] + "\n… (the rest of the goroutines' stacks: run the case with go test)"
		}
		msg := strings.TrimSpace(strings.TrimPrefix(report, "waitsim: "))
		if left := len(r.run.Index) - len(r.run.Cases) - 1; left > 0 {
			msg = fmt.Sprintf("the table stopped at this case: %d case(s) after it did not run\n%s", left, msg)
		}
		r.run.Cases = append(r.run.Cases, results.CaseResult{ID: c.ID, File: r.rel(c.File), Line: c.Line, Protects: c.Protects,
			Verdict: results.VerdictError, Error: msg, Repro: r.repro(hot.FullName(r.t.Name(), r.fileName(c.File), c.ID), *c)})
	}
	r.mu.Unlock()
	r.writeResults()
}

// keep returns what the results record of res: res itself, or without its
// trace (Trace, BridgeReqs, ToolEvents, and the Timeline of a case that
// passed or was skipped; a failing case keeps its timeline as a failure
// report shows it, results.CutTimeline; TraceHash stays) under
// results.Params.NoTraces, so that a run that writes no trace holds none
// either. What it keeps counts against results.MaxRunResultBytes (its
// trace, results.ResultBytesPerEntry an entry, and its replies); a case
// that would take the run past them keeps neither, and res becomes an
// ERROR saying so: a result without its trace or replies is never shown as
// a pass.
func (r *runner) keep(res *results.CaseResult) results.CaseResult {
	cost := replyBytes(res.Calls)
	if !r.params.NoTraces {
		cost += results.ResultBytesPerEntry * len(res.Trace)
	}
	r.mu.Lock()
	fits := r.bytesKept+cost <= maxRunResultBytes
	if fits {
		r.bytesKept += cost
	}
	kept := r.bytesKept
	r.mu.Unlock()
	if !fits {
		msg := fmt.Sprintf("its trace (%d entries) and replies, about %d bytes of results, were not kept: this run's results already keep about %d, "+
			"and a run keeps at most %d (a results file holds at most 256 MiB): run this case on its own (--case)",
			len(res.Trace), cost, kept, maxRunResultBytes)
		if res.Error != "" {
			msg += "; and: " + res.Error
		}
		res.Verdict, res.Error = results.VerdictError, msg
		out := *res
		out.Trace, out.BridgeReqs, out.ToolEvents, out.Timeline = nil, nil, nil, ""
		out.Calls = slices.Clone(res.Calls)
		for i := range out.Calls {
			out.Calls[i].Reply = nil
		}
		return out
	}
	if !r.params.NoTraces {
		return *res
	}
	out := *res
	out.Trace, out.BridgeReqs, out.ToolEvents = nil, nil, nil
	out.Timeline = ""
	if res.Verdict == results.VerdictFail || res.Verdict == results.VerdictError {
		// What `waitsim run` prints of a failure: its timeline, cut as a
		// failure report cuts it (bounded, whatever the trace).
		out.Timeline = results.CutTimeline(res.Timeline)
	}
	return out
}

// maxRunResultBytes is results.MaxRunResultBytes (a test of the budget
// lowers it, so as not to build hundreds of megabytes of replies).
var maxRunResultBytes = results.MaxRunResultBytes

// replyBytes is the size of calls' replies as JSON.
func replyBytes(calls []results.CallSummary) int {
	n := 0
	for _, c := range calls {
		if c.Reply != nil {
			b, _ := json.Marshal(c.Reply)
			n += len(b)
		}
	}
	return n
}

// fileHashes are results.RunResult.Files of cases: each case's file, by
// the File it records, and its content's hash now ("unreadable" when it
// cannot be read: then no report takes the results as current).
func (r *runner) fileHashes(cases []results.CaseResult) map[string]string {
	files := map[string]string{}
	for _, c := range cases {
		if _, done := files[c.File]; done || c.File == "" {
			continue
		}
		p := filepath.FromSlash(c.File)
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.root, p)
		}
		h, err := results.FileHash(p)
		if err != nil {
			h = "unreadable"
		}
		files[c.File] = h
	}
	return files
}

// table is results.RunResult.Table: the test's own table (r.dir) and its
// scenario files, listed as scenario.Load lists them, whatever paths the
// command gave instead. A table directory that does not exist holds no
// file; one that cannot be listed gives nil (a report then shows no pass).
func (r *runner) table() *results.Table {
	t := &results.Table{Dir: r.rel(r.dir), Files: []string{}, FS: r.fsRoot != ""}
	if _, err := os.Stat(r.dir); errors.Is(err, fs.ErrNotExist) {
		return t
	}
	files, err := scenario.Expand([]string{r.dir})
	if err != nil {
		return nil
	}
	for _, f := range files {
		t.Files = append(t.Files, r.rel(f))
	}
	slices.Sort(t.Files)
	return t
}

// writeResults writes the results file the params name.
func (r *runner) writeResults() {
	r.mu.Lock()
	run := r.run
	r.mu.Unlock()
	run.Count()
	if r.fsRoot == "" && !r.params.KillSuite {
		run.Files = r.fileHashes(run.Cases)
	}
	if !r.params.KillSuite {
		run.Table = r.table()
	}
	if err := results.WriteRun(r.params.Results, run); err != nil {
		r.t.Errorf("waitsim: writing the results: %v", err)
	}
}

// recordSites starts recording the mutation sites case c runs
// (results.Params.Sites) and returns what records them once it has run.
// With SitesFresh, each case starts from the mutated packages' state at
// init (hot.Reset), as a hot request's first case does; the runner merges
// this record with one of a run in the table's order (testbin.MergeSites).
// What runs before the first case, or in a reset, every case depends on. A
// reset that fails ends the record: no case is left out then.
func (r *runner) recordSites(c scenario.Case) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ran.Cases == nil {
		r.ran.Cases = map[string][]int{}
		r.t.Cleanup(r.writeSites)
	}
	if r.params.SitesFresh && hot.Reset() != nil {
		r.sites, r.ran.Cases = false, nil
		return func() {}
	}
	r.ran.Before = slices.Compact(slices.Sorted(slices.Values(append(r.ran.Before, hot.Sites()...))))
	name := hot.FullName(r.t.Name(), r.fileName(c.File), c.ID)
	return func() {
		ran := hot.Sites()
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.ran.Cases != nil {
			r.ran.Cases[name] = ran
		}
	}
}

// writeSites writes the record of the mutation sites each case ran
// (results.Params.Sites).
func (r *runner) writeSites() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ran.Cases == nil {
		return
	}
	if err := results.WriteSites(r.params.Sites, r.ran); err != nil {
		r.t.Errorf("waitsim: writing the mutation sites: %v", err)
	}
}

// rel is file relative to the module root, or absolute outside it; a file
// of Params.FS by its path in FS.
func (r *runner) rel(file string) string {
	if r.fsRoot != "" {
		if rel, err := filepath.Rel(r.fsRoot, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	abs, err := filepath.Abs(file)
	if err != nil || r.root == "" {
		return file
	}
	rel, err := filepath.Rel(r.root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return abs
	}
	return filepath.ToSlash(rel)
}

// repro is the one command, run from the module root, that re-runs just
// case c, each word shell-quoted: go test of this package when the case is
// in the test's own files, else `waitsim run` of its file.
func (r *runner) repro(test string, c scenario.Case) string {
	if len(r.params.Paths) > 0 {
		return results.Command("go", "tool", "waitsim", "run", r.rel(c.File), "--case", c.ID)
	}
	pkg := "./" + r.pkgDir
	if r.pkgDir == "" || r.pkgDir == "." {
		pkg = "."
	}
	if !strings.HasSuffix(pkg, "/") && pkg != "." {
		pkg += "/"
	}
	return results.Command("go", "test", pkg, "-count=1", "-run", results.RunPattern(strings.Split(test, "/")...))
}

// copyFS copies the directory dir of fsys, and what it holds, to the same
// path under to.
func copyFS(fsys fs.FS, dir, to string) error {
	return fs.WalkDir(fsys, dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(to, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// moduleRoot finds the module root above the working directory (go test
// runs a test in its package's directory) and the package directory
// relative to it.
func moduleRoot() (root, pkgDir string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && st.Mode().IsRegular() {
			rel, _ := filepath.Rel(d, wd)
			return d, filepath.ToSlash(rel)
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// failFast reports whether the binary runs with -test.failfast.
func failFast() bool {
	f := flag.Lookup("test.failfast")
	return f != nil && f.Value.String() == "true"
}

// firstLineDiff names the first line where two timelines differ.
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
