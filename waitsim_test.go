package waitsim

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim/timeline"
)

// fakePack runs no world: a case passes unless its id is in fail. It
// records the order in which cases ran.
type fakePack struct {
	fail map[string]bool
	mu   sync.Mutex
	ran  []string
}

func (*fakePack) Name() string { return "fake" }
func (*fakePack) LoadOptions() (scenario.Options, error) {
	return scenario.Options{Pack: scenario.PackGeneric}, nil
}
func (p *fakePack) Run(t *testing.T, c *scenario.Case) results.CaseResult {
	p.mu.Lock()
	p.ran = append(p.ran, c.ID)
	p.mu.Unlock()
	r := results.CaseResult{ID: c.ID, Verdict: results.VerdictPass, Timeline: "0 ms  x  y\n"}
	if p.fail[c.ID] {
		r.Verdict, r.Failures = results.VerdictFail, []string{"broken on purpose"}
	}
	return r
}

// one is a scenario file of minimal cases named ids.
func one(ids ...string) string {
	s := "# protects: nothing\n"
	for _, id := range ids {
		s += "- name: " + id + "\n  callers:\n    - name: A\n"
	}
	return s
}

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// nested runs f as a test of its own (its failures do not fail t) with the
// given flags set for its run, and reports whether it passed.
func nested(t *testing.T, flags map[string]string, f func(t *testing.T)) bool {
	t.Helper()
	restore := map[string]string{}
	for name, v := range flags {
		fl := flag.Lookup(name)
		restore[name] = fl.Value.String()
		_ = fl.Value.Set(v)
	}
	count := flag.Lookup("test.count")
	oldCount := count.Value.String()
	_ = count.Value.Set("1")
	defer func() {
		_ = count.Value.Set(oldCount)
		for name, v := range restore {
			_ = flag.Lookup(name).Value.Set(v)
		}
	}()
	// The nested test's output would read as a failure of this one.
	devnull, _ := os.Open(os.DevNull)
	stdout := os.Stdout
	os.Stdout = devnull
	defer func() { os.Stdout = stdout; devnull.Close() }()
	return testing.RunTests(func(string, string) (bool, error) { return true, nil }, []testing.InternalTest{{Name: "Nested", F: f}})
}

// withParams makes the door read p as a command's params file.
func withParams(t *testing.T, p results.Params) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "params.json")
	if err := results.WriteParams(f, p); err != nil {
		t.Fatal(err)
	}
	t.Setenv(results.ParamsEnv, f)
}

// A command's params: the paths it gives (one with a comma and a space in
// its name) replace the test's own files; every case is a subtest of its
// file's subtest; the results file holds every case, its verdict and the
// index of the table.
func TestParamsPathsAndResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a, b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f1 := writeFile(t, dir, "x y.yaml", one("x1", "x2"))
	f2 := writeFile(t, dir, "z.yaml", one("z1"))
	out := filepath.Join(t.TempDir(), "results.json")
	withParams(t, results.Params{Paths: []string{dir}, Results: out})
	p := &fakePack{fail: map[string]bool{"x2": true}}
	if nested(t, nil, func(t *testing.T) { Run(t, Params{Pack: p}) }) {
		t.Error("a failing case passed the test")
	}
	run, err := results.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	if run.Passed != 2 || run.Failed != 1 || len(run.Cases) != 3 {
		t.Errorf("results: %d passed, %d failed, %d cases; want 2, 1, 3", run.Passed, run.Failed, len(run.Cases))
	}
	var tests []string
	for _, e := range run.Index {
		tests = append(tests, e.Test)
	}
	want := []string{"Nested/x_y.yaml/x1", "Nested/x_y.yaml/x2", "Nested/z.yaml/z1"}
	if !slices.Equal(tests, want) || run.Index[0].File != f1 || run.Index[2].File != f2 {
		t.Errorf("index %+v, want tests %q in files %s, %s", run.Index, want, f1, f2)
	}
	for _, c := range run.Cases {
		if !strings.Contains(c.Repro, "--case") || !strings.Contains(c.Repro, "'") {
			t.Errorf("%s: repro %q: want `waitsim run` of its quoted file and case", c.ID, c.Repro)
		}
	}
	// Each scenario file's content hash, for a report's staleness check.
	for _, f := range []string{f1, f2} {
		if h, err := results.FileHash(f); err != nil || run.Files[run.Cases[0].File] == "" || run.Files[f] != h {
			t.Errorf("files %v: want %s hashed (%s, %v)", run.Files, f, h, err)
		}
	}
}

// The results record the test's own table (Params.Dir) and every scenario
// file in it, also when a command's paths replace it, so that a report can
// tell a run of a part of the table from a run of all of it.
func TestResultsRecordTheTable(t *testing.T) {
	table := t.TempDir()
	if err := os.MkdirAll(filepath.Join(table, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t1 := writeFile(t, table, "t1.yaml", one("t1"))
	t2 := writeFile(t, filepath.Join(table, "sub"), "t2.yml", one("t2"))
	writeFile(t, table, "notes.txt", "not a scenario")
	other := writeFile(t, t.TempDir(), "o.yaml", one("o1"))
	for _, c := range []struct {
		name  string
		paths []string
		cases int
	}{{"the table", nil, 2}, {"paths instead", []string{other}, 1}} {
		out := filepath.Join(t.TempDir(), "results.json")
		withParams(t, results.Params{Paths: c.paths, Results: out})
		if !nested(t, nil, func(t *testing.T) { Run(t, Params{Dir: table, Pack: &fakePack{}}) }) {
			t.Fatalf("%s: the run failed", c.name)
		}
		run, err := results.ReadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Cases) != c.cases {
			t.Errorf("%s: %d cases, want %d", c.name, len(run.Cases), c.cases)
		}
		want := &results.Table{Dir: table, Files: slices.Sorted(slices.Values([]string{t1, t2}))}
		if run.Table == nil || run.Table.Dir != want.Dir || !slices.Equal(run.Table.Files, want.Files) || run.Table.FS {
			t.Errorf("%s: table %+v, want %+v", c.name, run.Table, want)
		}
	}
}

// tracePack is a fakePack whose cases have every trace field filled.
type tracePack struct{ fakePack }

func (p *tracePack) Run(t *testing.T, c *scenario.Case) results.CaseResult {
	r := p.fakePack.Run(t, c)
	r.TraceHash = "h-" + c.ID
	r.Trace = []timeline.Entry{{}}
	r.BridgeReqs = []results.BridgeRequest{{}}
	r.ToolEvents = []results.ToolEvent{{}}
	r.Calls = []results.CallSummary{{Caller: "A"}}
	return r
}

// Params.NoTraces: the results file keeps each case's verdict, failures,
// calls and trace hash, the timeline of a failing case alone, and leaves
// the structured views out; without it they are there.
func TestParamsNoTraces(t *testing.T) {
	for _, noTraces := range []bool{false, true} {
		dir := t.TempDir()
		writeFile(t, dir, "a.yaml", one("a1", "a2"))
		out := filepath.Join(t.TempDir(), "results.json")
		withParams(t, results.Params{Paths: []string{dir}, Results: out, NoTraces: noTraces})
		p := &tracePack{fakePack{fail: map[string]bool{"a2": true}}}
		nested(t, nil, func(t *testing.T) { Run(t, Params{Pack: p}) })
		run, err := results.ReadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Cases) != 2 || run.Failed != 1 {
			t.Fatalf("noTraces %t: %d cases, %d failed; want 2 and 1", noTraces, len(run.Cases), run.Failed)
		}
		for _, c := range run.Cases {
			all := c.Timeline != "" && c.Trace != nil && c.BridgeReqs != nil && c.ToolEvents != nil
			// A failing case keeps its timeline (what `waitsim run` prints
			// of it), a passing one none.
			none := (c.Timeline == "") == (c.ID != "a2") && c.Trace == nil && c.BridgeReqs == nil && c.ToolEvents == nil
			if (noTraces && !none) || (!noTraces && !all) || c.TraceHash != "h-"+c.ID || len(c.Calls) != 1 || (c.ID == "a2") != (len(c.Failures) == 1) {
				t.Errorf("noTraces %t: case %s: timeline %q, %d entries, %d requests, %d events, hash %q, %d calls, failures %q",
					noTraces, c.ID, c.Timeline, len(c.Trace), len(c.BridgeReqs), len(c.ToolEvents), c.TraceHash, len(c.Calls), c.Failures)
			}
		}
	}
}

// bigTracePack is a fakePack whose case id names its trace's length and
// the length of its one call's reply.
type bigTracePack struct {
	fakePack
	entries, reply map[string]int
}

func (p *bigTracePack) Run(t *testing.T, c *scenario.Case) results.CaseResult {
	r := p.fakePack.Run(t, c)
	r.Trace = make([]timeline.Entry, p.entries[c.ID])
	r.Calls = []results.CallSummary{{Caller: "A", Index: 1, Reply: map[string]any{"s": strings.Repeat("x", p.reply[c.ID])}}}
	return r
}

// A run keeps at most results.MaxRunResultBytes of results over its cases,
// traces and replies: a case that would pass them is an ERROR that says so,
// its trace and replies not kept, and a later case that fits is kept; with
// NoTraces its replies still count (they are kept), its trace not.
func TestRunResultBudget(t *testing.T) {
	defer func(b int) { maxRunResultBytes = b }(maxRunResultBytes)
	maxRunResultBytes = 1 << 20
	big := maxRunResultBytes/results.ResultBytesPerEntry/2 + 1
	entries := map[string]int{"a1": big, "a2": big, "a3": 10}
	reply := map[string]int{"b1": maxRunResultBytes / 2, "b2": maxRunResultBytes / 2, "b3": 10}
	for _, noTraces := range []bool{false, true} {
		dir := t.TempDir()
		writeFile(t, dir, "a.yaml", one("a1", "a2", "a3", "b1", "b2", "b3"))
		out := filepath.Join(t.TempDir(), "results.json")
		withParams(t, results.Params{Paths: []string{dir}, Results: out, NoTraces: noTraces})
		nested(t, nil, func(t *testing.T) { Run(t, Params{Pack: &bigTracePack{entries: entries, reply: reply}}) })
		run, err := results.ReadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range run.Cases {
			s, _ := c.Calls[0].Reply["s"].(string)
			got[c.ID] = fmt.Sprintf("%s %d %d", c.Verdict, len(c.Trace), len(s))
			if c.Verdict == results.VerdictError && !strings.Contains(c.Error, "were not kept") {
				t.Errorf("noTraces %t: %s: error %q does not say what was not kept", noTraces, c.ID, c.Error)
			}
		}
		// With traces, a1 and a2 take the budget's two halves: a2, and
		// every case after it but the smallest, does not fit.
		want := map[string]string{"a1": fmt.Sprintf("pass %d 0", big), "a2": "error 0 0", "a3": "pass 10 0",
			"b1": "error 0 0", "b2": "error 0 0", "b3": "pass 0 10"}
		if noTraces {
			want = map[string]string{"a1": "pass 0 0", "a2": "pass 0 0", "a3": "pass 0 0",
				"b1": fmt.Sprintf("pass 0 %d", reply["b1"]), "b2": "error 0 0", "b3": "pass 0 10"}
		}
		if !maps.Equal(got, want) {
			t.Errorf("noTraces %t: cases %v\nwant %v", noTraces, got, want)
		}
	}
}

// A file with problems: nothing runs, and the results file holds every
// problem as a record (file, line, column, field, message).
func TestParamsProblems(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "# protects: nothing\nname: bad\ncallers:\n  - name: A\n    startMs: -1\n")
	out := filepath.Join(t.TempDir(), "results.json")
	withParams(t, results.Params{Paths: []string{bad}, Results: out})
	p := &fakePack{}
	if nested(t, nil, func(t *testing.T) { Run(t, Params{Pack: p}) }) {
		t.Error("a file with problems passed")
	}
	run, err := results.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Problems) != 1 || len(p.ran) != 0 {
		t.Fatalf("problems %+v, ran %q: want one problem and nothing run", run.Problems, p.ran)
	}
	if got := run.Problems[0]; got.Line != 5 || got.Column != 14 || got.Field != "callers[0].startMs" || !strings.Contains(got.Message, "from 0") {
		t.Errorf("problem %+v: want line 5, column 14, field callers[0].startMs", got)
	}
}

// Kill first: the params' order runs first, its file loaded alone; with
// -test.failfast the run stops at the first failing case, before a later
// file (here, one that does not even load) is read; without it every case
// runs, ordered ones first. The failfast run is a child process (go test's
// count of failures is the process's: a failure of another test would stop
// it before it starts).
func TestOrderAndLazyLoad(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", one("a1", "a2", "a3"))
	b := writeFile(t, dir, "b.yaml", "not: [a scenario\n")
	order := []results.CaseRef{{ID: "a2", File: a}, {ID: "nope", File: a}, {ID: "a1", File: a}, {ID: "b1", File: b}}
	if os.Getenv("WAITSIM_TEST_LAZY_CHILD") == "1" {
		p := &fakePack{fail: map[string]bool{"a1": true}}
		defer func() { os.WriteFile(os.Getenv("WAITSIM_TEST_LAZY_OUT"), []byte(strings.Join(p.ran, ",")), 0o644) }()
		Run(t, Params{Pack: p, Dir: dir})
		return
	}
	f := filepath.Join(t.TempDir(), "params.json")
	if err := results.WriteParams(f, results.Params{Order: order}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command(os.Args[0], "-test.run=^TestOrderAndLazyLoad$", "-test.failfast", "-test.count=1")
	cmd.Env = append(os.Environ(), "WAITSIM_TEST_LAZY_CHILD=1", "WAITSIM_TEST_LAZY_OUT="+out, results.ParamsEnv+"="+f)
	if b, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the child passed with a failing case:\n%s", b)
	}
	if ran, _ := os.ReadFile(out); string(ran) != "a2,a1" {
		t.Errorf("failfast: ran %q, want a2 then a1 and a stop (b.yaml never read)", ran)
	}
	p := &fakePack{}
	withParams(t, results.Params{Paths: []string{a}, Order: order})
	if !nested(t, nil, func(t *testing.T) { Run(t, Params{Pack: p, Dir: dir}) }) || !slices.Equal(p.ran, []string{"a2", "a1", "a3"}) {
		t.Errorf("no failfast: ran %q, want a2, a1, a3", p.ran)
	}
}

// Kill first's lazy run keeps to the params' Cases: a case they leave out
// (a mutation runner's run past a case that hung) does not run, though the
// order names it and its file is loaded for the others.
func TestLazyLoadKeepsToCases(t *testing.T) {
	if dir := os.Getenv("WAITSIM_TEST_LAZY_CASES_DIR"); dir != "" {
		p := &fakePack{}
		defer func() { os.WriteFile(os.Getenv("WAITSIM_TEST_LAZY_OUT"), []byte(strings.Join(p.ran, ",")), 0o644) }()
		Run(t, Params{Pack: p, Dir: dir})
		return
	}
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", one("a1", "a2", "a3"))
	f := filepath.Join(t.TempDir(), "params.json")
	order := []results.CaseRef{{ID: "a2", File: a}, {ID: "a3", File: a}}
	if err := results.WriteParams(f, results.Params{Order: order, Cases: []string{"a1", "a3"}}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLazyLoadKeepsToCases$", "-test.failfast", "-test.count=1")
	cmd.Env = append(os.Environ(), "WAITSIM_TEST_LAZY_CASES_DIR="+dir, "WAITSIM_TEST_LAZY_OUT="+out, results.ParamsEnv+"="+f)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child failed: %v\n%s", err, b)
	}
	if ran, _ := os.ReadFile(out); string(ran) != "a3,a1" {
		t.Errorf("ran %q, want a3 then a1 (a2 left out)", ran)
	}
}

// The re-run line of a case selects that case alone, however odd its id,
// and pastes safely into a shell.
func TestRepro(t *testing.T) {
	r := &runner{pkgDir: "scenarios"}
	for _, id := range []string{"boundary[timeoutMs=30500]", "x'; touch pwned; echo '", "p=a b", "zero\u200bwidth", `back\slash`} {
		c := scenario.Case{ID: id, File: "scenarios/table/x.yaml"}
		test := "TestTable/x.yaml/" + id
		line := r.repro(test, c)
		if !strings.HasPrefix(line, "go test ./scenarios/ -count=1 -run ") {
			t.Errorf("%q: %s", id, line)
		}
		// The shell's view of the last word: the quoted pattern, unquoted.
		pat := unquote(t, strings.TrimPrefix(line, "go test ./scenarios/ -count=1 -run "))
		elems := splitPattern(pat)
		names := []string{"TestTable", "x.yaml", results.TestName(id)}
		if len(elems) != 3 {
			t.Errorf("%q: pattern %q has %d levels, want 3", id, pat, len(elems))
			continue
		}
		for i, e := range elems {
			re, err := regexp.Compile(e)
			if err != nil || !re.MatchString(names[i]) {
				t.Errorf("%q: level %d pattern %q (%v) does not match %q", id, i, e, err, names[i])
			}
		}
	}
}

// unquote undoes ShellQuote of one word.
func unquote(t *testing.T, w string) string {
	if !strings.HasPrefix(w, "'") {
		return w
	}
	if !strings.HasSuffix(w, "'") {
		t.Fatalf("not one quoted word: %s", w)
	}
	inner := w[1 : len(w)-1]
	if strings.Contains(strings.ReplaceAll(inner, `'\''`, ""), "'") {
		t.Fatalf("a quote escapes the word: %s", w)
	}
	return strings.ReplaceAll(inner, `'\''`, "'")
}

// splitPattern splits a -run pattern into its levels as go test does: at a
// / outside brackets and not escaped.
func splitPattern(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth = max(0, depth-1)
		case '/':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// orderCases: named cases first, in the order's order; unknown ids and
// repeats are ignored; the rest keep the table's order.
func TestOrderCases(t *testing.T) {
	cases := []scenario.Case{{ID: "a"}, {ID: "b[x=1]"}, {ID: "c d"}, {ID: "e"}}
	var ids []string
	for _, c := range orderCases(cases, []results.CaseRef{{ID: "e"}, {ID: "c d"}, {ID: "nope"}, {ID: "e"}, {ID: "b[x=1]"}}) {
		ids = append(ids, c.ID)
	}
	if want := []string{"e", "c d", "b[x=1]", "a"}; !slices.Equal(ids, want) {
		t.Fatalf("order %q, want %q", ids, want)
	}
}

// A hot request runs its cases in the request's exact order across files
// (a run of its own groups them by file), stops at the first failure, and
// names a failure, and its re-run line, as a run of its own would: a file's
// subtest entered again in the same process is "b.yaml#01" to the testing
// package, never in what the runner reads.
func TestHotOrderAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", one("a1", "a2"))
	b := writeFile(t, dir, "b.yaml", one("b1", "b2"))
	p := &fakePack{fail: map[string]bool{"b2": true}}
	order := []results.CaseRef{{ID: "b1", File: b}, {ID: "a1", File: a}, {ID: "b2", File: b}, {ID: "a2", File: a}}
	var ran [][]string
	var reps []results.HotReply
	var door string
	// The door's test, as a hot process's: its subtests fail, it goes on.
	nested(t, nil, func(t *testing.T) {
		door = t.Name()
		r := &runner{t: t, p: Params{Pack: p}, pack: p, dir: dir, pkgDir: "pkg"}
		for round := 0; round < 2; round++ { // the second meets every file's subtest again
			p.ran = nil
			reps = append(reps, r.serveHot(t, results.HotRequest{Kind: results.HotTable, Order: order, StopAtFirst: true}))
			ran = append(ran, p.ran)
		}
	})
	for round, rep := range reps {
		if !slices.Equal(ran[round], []string{"b1", "a1", "b2"}) {
			t.Fatalf("round %d: ran %q, want b1, a1, b2 and a stop", round, ran[round])
		}
		want := door + "/b.yaml/b2"
		if len(rep.Failed) != 1 || rep.Failed[0].Test != want {
			t.Fatalf("round %d: failed %+v, want %s alone", round, rep.Failed, want)
		}
		if out := rep.Failed[0].Output; strings.Contains(out, "#0") || !strings.Contains(out, `^b\.yaml$/^b2$`) {
			t.Fatalf("round %d: the failure's re-run line is not a run of its own's:\n%s", round, out)
		}
	}
}

// TestHotOnly: a hot request with Only runs the cases its order names and
// no other (they cannot fail: results.HotRequest.Only); without it, the
// cases the order leaves out run after it.
func TestHotOnly(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", one("a1", "a2"))
	writeFile(t, dir, "b.yaml", one("b1"))
	order := []results.CaseRef{{ID: "a2", File: a}}
	for _, only := range []bool{true, false} {
		p := &fakePack{}
		var rep results.HotReply
		nested(t, nil, func(t *testing.T) {
			r := &runner{t: t, p: Params{Pack: p}, pack: p, dir: dir, pkgDir: "pkg"}
			rep = r.serveHot(t, results.HotRequest{Kind: results.HotTable, Order: order, StopAtFirst: true, Only: only})
		})
		want := []string{"a2"}
		if !only {
			want = []string{"a2", "a1", "b1"}
		}
		if !slices.Equal(p.ran, want) || len(rep.Failed) != 0 {
			t.Errorf("only %t: ran %q (failed %+v), want %q", only, p.ran, rep.Failed, want)
		}
	}
}
