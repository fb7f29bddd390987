package mutants

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/cli"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
)

func mustRegexp(t *testing.T, s string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

const fixtureSrc = "package p\n\nfunc A() int {\n\treturn 1 + 2\n}\n\nfunc B() int {\n\treturn 3\n}\n"

const patchB = `--- a/p.go
+++ b/p.go
@@ -7,3 +7,3 @@
 func B() int {
-	return 3
+	return 4
 }
`

func TestApplyPatch(t *testing.T) {
	out, ap, err := mutation.ApplyPatch([]byte(fixtureSrc), patchB)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(fixtureSrc, "return 3", "return 4", 1); string(out) != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	if ap.Offset != 0 || len(ap.Lines) != 1 || ap.Lines[0] != 8 {
		t.Fatalf("applied %+v, want line 8 at offset 0", ap)
	}
}

// TestApplyPatchOffset: lines inserted above the hunk do not stop it.
func TestApplyPatchOffset(t *testing.T) {
	src := strings.Replace(fixtureSrc, "package p\n", "package p\n\n// one\n// two\n", 1)
	out, ap, err := mutation.ApplyPatch([]byte(src), patchB)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "return 4") || strings.Contains(string(out), "return 3") || ap.Offset != 3 || ap.Lines[0] != 11 {
		t.Fatalf("got %q, applied %+v", out, ap)
	}
}

// TestApplyPatchNoLongerApplies: the patch's own line changed.
func TestApplyPatchNoLongerApplies(t *testing.T) {
	src := strings.Replace(fixtureSrc, "return 3", "return 5", 1)
	_, _, err := mutation.ApplyPatch([]byte(src), patchB)
	if !errors.Is(err, mutation.ErrNoLongerApplies) || !strings.Contains(err.Error(), `"\treturn 3"`) {
		t.Fatalf("err = %v, want ErrNoLongerApplies naming the line", err)
	}
	if _, _, err := mutation.ApplyPatch([]byte(fixtureSrc), "not a patch"); err == nil || errors.Is(err, mutation.ErrNoLongerApplies) {
		t.Fatalf("a malformed patch: err = %v", err)
	}
}

// TestUnifiedDiffRoundTrip: the diff a mutant reports applies to the source
// and gives the mutant back.
func TestUnifiedDiffRoundTrip(t *testing.T) {
	mut := strings.Replace(fixtureSrc, "1 + 2", "1 - 2", 1)
	d := mutation.UnifiedDiff("p.go", []byte(fixtureSrc), []byte(mut))
	out, _, err := mutation.ApplyPatch([]byte(fixtureSrc), d)
	if err != nil || string(out) != mut {
		t.Fatalf("diff\n%s\napplied: %q, %v", d, out, err)
	}
	if mutation.UnifiedDiff("p.go", []byte(fixtureSrc), []byte(fixtureSrc)) != "" {
		t.Fatal("a diff of equal files")
	}
}

// TestCatalogApplies: every entry of the real catalog loads and applies to
// the current waittool source (a moved source shows up here first).
func TestCatalogApplies(t *testing.T) {
	cat, err := mutation.LoadCatalog("..", "mutants/catalog")
	if err != nil {
		t.Fatal(err)
	}
	if len(cat) < 28 {
		t.Fatalf("%d catalog entries, want at least the 28 of contract §5", len(cat))
	}
	for _, e := range cat {
		src, err := os.ReadFile("../" + e.File)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := mutation.ApplyPatch(src, e.Patch)
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		if string(out) == string(src) {
			t.Errorf("%s changes nothing", e.ID)
		}
	}
}

func TestMutateOperator(t *testing.T) {
	out, desc, err := mutation.MutateOperator("p.go", []byte(fixtureSrc), 4, 11, "ARITHMETIC_BASE")
	if err != nil || !strings.Contains(string(out), "return 1 - 2") || desc != "+ → -" {
		t.Fatalf("%q %q %v", out, desc, err)
	}
	if _, _, err := mutation.MutateOperator("p.go", []byte(fixtureSrc), 4, 10, "ARITHMETIC_BASE"); err == nil {
		t.Fatal("no token at 4:10, want an error")
	}
	if _, _, err := mutation.MutateOperator("p.go", []byte(fixtureSrc), 4, 11, "CONDITIONALS_NEGATION"); err == nil {
		t.Fatal("CONDITIONALS_NEGATION does not apply to +, want an error")
	}
}

func TestParseGremlinsOutput(t *testing.T) {
	j := `{"go_module":"m","files":[{"file_name":"tool.go","mutations":[{"type":"CONDITIONALS_NEGATION","status":"RUNNABLE","line":25,"column":16},{"type":"ARITHMETIC_BASE","status":"NOT COVERED","line":3,"column":2}]}]}`
	sites, st, err := mutation.ParseGremlinsOutput([]byte(j), "./waittool/")
	if err != nil || len(sites) != 2 {
		t.Fatal(sites, err)
	}
	if id := sites[0].ID(); id != "gremlins:waittool/tool.go:3:2:ARITHMETIC_BASE" || sites[0].Covered || st[id] != "NOT COVERED" {
		t.Fatalf("%s %+v %v", id, sites[0], st)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		rep  testrun.Report
		want string
	}{
		{testrun.Report{Exit: 0}, verdict.StatusSurvived},
		{testrun.Report{Exit: 1, Failed: []string{"T/a"}}, verdict.StatusKilled},
		{testrun.Report{Exit: 2, Failed: []string{"T/a"}}, verdict.StatusKilled},
		{testrun.Report{Exit: 2, TimedOut: true}, verdict.StatusTimedOut},
	} {
		var m verdict.MutantResult
		classify(&m, c.rep, 0)
		if m.Status != c.want {
			t.Errorf("%+v: %s, want %s", c.rep, m.Status, c.want)
		}
	}
}

// TestPanicLineKept (issue 11 item 13): a killed mutant's detail keeps the
// line that says what happened, however long the stack after it.
func TestPanicLineKept(t *testing.T) {
	const what = "panic: runtime error: index out of range [5] with length 3"
	stack := strings.Repeat("goroutine 7 [running]:\nexample.com/x.f(0x1)\n\t/src/x.go:12 +0x1d\n", 60)
	in := strings.Join([]string{
		`{"Action":"run","Test":"TestTable/a"}`,
		`{"Action":"output","Test":"TestTable/a","Output":"--- FAIL: TestTable/a\n"}`,
		fmt.Sprintf(`{"Action":"output","Test":"TestTable/a","Output":%q}`, what+"\n"),
		fmt.Sprintf(`{"Action":"output","Test":"TestTable/a","Output":%q}`, stack),
		`{"Action":"fail","Test":"TestTable/a"}`,
	}, "\n")
	rep := testrun.ParseEvents(strings.NewReader(in))
	rep.Exit = 2
	var m verdict.MutantResult
	classify(&m, rep, 0)
	if m.Status != verdict.StatusKilled || !strings.Contains(m.Detail, what) {
		t.Fatalf("%s, detail %q: the panic's message is lost", m.Status, m.Detail)
	}
	if testrun.PanicLine("x\n"+what+"\ny") != what {
		t.Error("PanicLine")
	}
}

// TestTestbinVet: the runner's builds leave go test's vet out only when the
// kill suite's package is not the target, whose files alone are mutated;
// a suite that is the target, however its path is written, keeps it (a
// mutant that vet refuses is then not viable).
func TestTestbinVet(t *testing.T) {
	for _, c := range []struct {
		suite, target string
		noVet         bool
	}{
		{"./scenarios/", "./waittool/", true},
		{"./calc/", "./calc/", false},
		{"./calc", "calc/", false},
		{"./packs/waitagents/", "./packs/waitagents/bridge/", true},
	} {
		r := &runner{cfg: Config{Target: c.target}, suite: verdict.Suite{Pkg: c.suite}}
		if got := r.testbin().NoVet; got != c.noVet {
			t.Errorf("suite %s, target %s: NoVet %t, want %t", c.suite, c.target, got, c.noVet)
		}
	}
}

// TestCacheKeyInvalidation (issue 11 items 14 and 19): a cached verdict is
// reused only while everything it depends on is unchanged: any input file
// of the suite, the mutated bytes, and every option that changes verdicts
// (the timeout's floor and factor, vet) change the key.
func TestCacheKeyInvalidation(t *testing.T) {
	env := []string{"go1.27.3", "linux", "amd64", ""}
	suite := verdict.Suite{Pkg: "./scenarios/", Run: "^TestTable$"}
	cfg := Config{TimeoutFactor: 10, TimeoutFloor: 5 * time.Second}
	mk := func(c Config, inputs map[string]string) *runner {
		return &runner{salt: cacheSalt(env, suite, &c), inputs: inputs}
	}
	in := map[string]string{"go.mod": "a", "scenarios/table/x.yaml": "b", "waittool/tool.go": "c"}
	files := map[string][]byte{"waittool/tool.go": []byte("mutated")}
	base := mk(cfg, in).mutantKey(files)
	if again := mk(cfg, map[string]string{"go.mod": "a", "scenarios/table/x.yaml": "b", "waittool/tool.go": "c"}).mutantKey(files); again != base {
		t.Fatal("the same inputs give another key: nothing could be reused")
	}
	if k := mk(cfg, map[string]string{"go.mod": "a", "scenarios/table/x.yaml": "b", "waittool/tool.go": "other"}).mutantKey(files); k != base {
		t.Error("the overlaid file's original bytes changed the key (its mutated bytes stand for it)")
	}
	for name, k := range map[string]string{
		"a scenario file changed": mk(cfg, map[string]string{"go.mod": "a", "scenarios/table/x.yaml": "B", "waittool/tool.go": "c"}).mutantKey(files),
		"go.mod changed":          mk(cfg, map[string]string{"go.mod": "A", "scenarios/table/x.yaml": "b", "waittool/tool.go": "c"}).mutantKey(files),
		"an input added":          mk(cfg, map[string]string{"go.mod": "a", "scenarios/table/x.yaml": "b", "scenarios/table/y.yaml": "d", "waittool/tool.go": "c"}).mutantKey(files),
		"the mutant changed":      mk(cfg, in).mutantKey(map[string][]byte{"waittool/tool.go": []byte("mutated differently")}),
		"--timeout-floor":         mk(Config{TimeoutFactor: 10, TimeoutFloor: 150 * time.Millisecond}, in).mutantKey(files),
		"--timeout-factor":        mk(Config{TimeoutFactor: 2, TimeoutFloor: 5 * time.Second}, in).mutantKey(files),
		"--no-vet":                mk(Config{TimeoutFactor: 10, TimeoutFloor: 5 * time.Second, NoVet: true}, in).mutantKey(files),
	} {
		if k == base {
			t.Errorf("%s: same cache key, the old verdict would be reused", name)
		}
	}
}

func TestShardSplitMerge(t *testing.T) {
	if _, err := verdict.ParseShard("3/2"); err == nil {
		t.Fatal("3/2 accepted")
	}
	const n, total = 3, 10
	seen := map[int]int{}
	var shards []*verdict.Result
	var all []string
	for i := 0; i < total; i++ {
		all = append(all, string(rune('a'+i)))
	}
	camp := &verdict.Campaign{Total: total, IDsHash: verdict.IDsHash(all)}
	for k := 1; k <= n; k++ {
		s, err := verdict.ParseShard(strings.Join([]string{string(rune('0' + k)), "3"}, "/"))
		if err != nil {
			t.Fatal(err)
		}
		res := &verdict.Result{Version: verdict.ResultVersion, Shard: s.String(), Threshold: 50, Campaign: camp,
			Mutants: []verdict.MutantResult{{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled}}}
		for i := 0; i < total; i++ {
			if s.Has(i) {
				seen[i]++
				st := verdict.StatusKilled
				if i == 4 {
					st = verdict.StatusSurvived
				}
				res.Mutants = append(res.Mutants, verdict.MutantResult{ID: string(rune('a' + i)), Source: verdict.SourceGremlins, Status: st})
			}
		}
		verdict.Evaluate(res)
		shards = append(shards, res)
	}
	for i := 0; i < total; i++ {
		if seen[i] != 1 {
			t.Fatalf("mutant %d in %d shards", i, seen[i])
		}
	}
	m, err := verdict.Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Mutants) != total+1 || m.Counts[verdict.StatusKilled] != 9 || m.OperatorScore != 90 || m.ExitCode != verdict.ExitPass || m.Shard != "" {
		t.Fatalf("merged: %d mutants, counts %v, score %v, exit %d (%s)", len(m.Mutants), m.Counts, m.OperatorScore, m.ExitCode, m.Gate)
	}
	if _, err := verdict.Merge(shards[:2]); err == nil || !strings.Contains(err.Error(), "3/3 is missing") {
		t.Fatalf("a missing shard: %v", err)
	}
	if _, err := verdict.Merge([]*verdict.Result{shards[0], shards[0], shards[1]}); err == nil {
		t.Fatal("a shard given twice was merged")
	}
}

func TestEvaluate(t *testing.T) {
	mk := func(ms ...verdict.MutantResult) *verdict.Result {
		r := &verdict.Result{Threshold: 80, Mutants: append([]verdict.MutantResult{{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled}}, ms...)}
		verdict.Evaluate(r)
		return r
	}
	cat := func(st string) verdict.MutantResult {
		return verdict.MutantResult{ID: "c-" + st, Source: verdict.SourceCatalog, Status: st}
	}
	op := func(id, st string) verdict.MutantResult {
		return verdict.MutantResult{ID: id, Source: verdict.SourceGremlins, Status: st}
	}
	for _, c := range []struct {
		name string
		res  *verdict.Result
		exit int
	}{
		{"all killed", mk(cat(verdict.StatusKilled), op("a", verdict.StatusKilled)), verdict.ExitPass},
		{"catalog survived", mk(cat(verdict.StatusSurvived)), verdict.ExitGateFailed},
		{"catalog timed out", mk(cat(verdict.StatusTimedOut)), verdict.ExitGateFailed},
		{"catalog no longer applies", mk(cat(verdict.StatusKilled), cat(verdict.StatusNoApply)), verdict.ExitGateFailed},
		{"catalog not viable", mk(cat(verdict.StatusKilled), cat(verdict.StatusNotViable), op("a", verdict.StatusKilled)), verdict.ExitGateFailed},
		{"operator score below", mk(op("a", verdict.StatusKilled), op("b", verdict.StatusSurvived)), verdict.ExitGateFailed},
		{"operator score at threshold", mk(op("a", verdict.StatusKilled), op("b", verdict.StatusKilled), op("c", verdict.StatusKilled), op("d", verdict.StatusKilled), op("e", verdict.StatusSurvived)), verdict.ExitPass},
		{"not viable and equivalent do not count", mk(op("a", verdict.StatusKilled), op("b", verdict.StatusNotViable), op("c", verdict.StatusEquivalent)), verdict.ExitPass},
		{"nothing tested", mk(op("b", verdict.StatusNotViable)), verdict.ExitNothingTested},
		{"only a catalog mutant, no longer applies", mk(cat(verdict.StatusNoApply)), verdict.ExitGateFailed},
		{"only a catalog mutant, not viable", mk(cat(verdict.StatusNotViable)), verdict.ExitGateFailed},
		{"sanity survived", &verdict.Result{Mutants: []verdict.MutantResult{{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusSurvived}, cat(verdict.StatusKilled)}}, verdict.ExitUntrusted},
	} {
		if c.name == "sanity survived" {
			verdict.Evaluate(c.res)
		}
		if c.res.ExitCode != c.exit {
			t.Errorf("%s: exit %d (%s), want %d", c.name, c.res.ExitCode, c.res.Gate, c.exit)
		}
	}
}

// TestGateExactScore (issue 11 item 2): the operator score is compared with
// the threshold as an exact fraction, never rounded first; and the message
// never prints a failing score as equal to its threshold (item 15), and
// names the config the threshold came from.
func TestGateExactScore(t *testing.T) {
	ops := func(killed, survived int, th float64, opts string) *verdict.Result {
		r := &verdict.Result{Threshold: th, Options: opts, Mutants: []verdict.MutantResult{{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled}}}
		for i := 0; i < killed+survived; i++ {
			st := verdict.StatusKilled
			if i >= killed {
				st = verdict.StatusSurvived
			}
			r.Mutants = append(r.Mutants, verdict.MutantResult{ID: fmt.Sprintf("op%05d", i), Source: verdict.SourceGremlins, Status: st})
		}
		verdict.Evaluate(r)
		return r
	}
	for _, c := range []struct {
		name             string
		killed, survived int
		th               float64
		exit             int
	}{
		{"46/47 against 97.88", 46, 1, 97.88, verdict.ExitGateFailed},
		{"46/47 against 97.87", 46, 1, 97.87, verdict.ExitPass},
		{"2000/2001 against 100", 2000, 1, 100, verdict.ExitGateFailed},
		{"1/2 against 50", 1, 1, 50, verdict.ExitPass},
		{"2/3 against 66.67", 2, 1, 66.67, verdict.ExitGateFailed},
		{"2/3 against 66.66", 2, 1, 66.66, verdict.ExitPass},
		{"999/2000 against 49.96", 999, 1001, 49.96, verdict.ExitGateFailed},
	} {
		r := ops(c.killed, c.survived, c.th, "config=my-gremlins.yaml")
		if r.ExitCode != c.exit {
			t.Errorf("%s: exit %d (%s), want %d", c.name, r.ExitCode, r.Gate, c.exit)
		}
		if c.exit == verdict.ExitGateFailed {
			if !strings.Contains(r.Gate, "my-gremlins.yaml") {
				t.Errorf("%s: the gate does not name the config file: %s", c.name, r.Gate)
			}
			sc, th := verdict.ScoreAndThreshold(c.killed, c.killed+c.survived, c.th)
			if sc == th || !strings.Contains(r.Gate, sc+" ("+fmt.Sprint(c.killed)) {
				t.Errorf("%s: score %s printed as its threshold %s: %s", c.name, sc, th, r.Gate)
			}
			var b bytes.Buffer
			cli.Summary(&b, r)
			if strings.Contains(b.String(), "operator 100.0%") {
				t.Errorf("%s: the summary rounds a failing score up to 100.0%%:\n%s", c.name, b.String())
			}
		}
	}
	// With no config the threshold is the default, and the gate names no
	// file that is not there.
	if r := ops(2, 1, 100, "config=-"); !strings.Contains(r.Gate, "(the default: no .gremlins.yaml sets unleash.threshold.efficacy)") {
		t.Errorf("the default threshold: %s", r.Gate)
	}
}

// TestSchemataTakesValues: the fixture's string constant mutant gets a
// switch when values are allowed, and only then; a function body mutant
// gets one either way.
func TestSchemataTakesValues(t *testing.T) {
	const file = "calc/calc.go"
	orig, err := os.ReadFile(filepath.Join("testdata", "fixture", file))
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", "fixture", p)) }
	mut := func(old, new string) *mutant {
		b := strings.Replace(string(orig), old, new, 1)
		if b == string(orig) {
			t.Fatalf("%q not in %s", old, file)
		}
		return &mutant{files: map[string][]byte{file: []byte(b)}}
	}
	muts := []*mutant{mut(`const Greeting = "hello"`, `const Greeting = "hallo"`), mut("return a + b", "return a - b")}
	for _, allow := range []bool{true, false} {
		files, nums, values, err := schemata(muts, read, allow)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := nums[0]; ok != allow || values != allow {
			t.Errorf("values allowed %v: the constant's mutant has a switch %v, values %v", allow, ok, values)
		}
		if _, ok := nums[1]; !ok {
			t.Errorf("values allowed %v: the body mutant has no switch", allow)
		}
		if got := strings.Contains(string(files[file]), `var Greeting = func() string { switch waitsimMutant {`); got != allow {
			t.Errorf("values allowed %v: Greeting switched %v:\n%s", allow, got, files[file])
		}
	}
}

// TestOnlyMatchingNothing: an --only pattern that matches no mutant is a
// usage error naming the pattern, not a campaign that tested nothing.
func TestOnlyMatchingNothing(t *testing.T) {
	muts := []*mutant{{res: verdict.MutantResult{ID: "no-cap"}}, {res: verdict.MutantResult{ID: "cap-90s"}}}
	r := &runner{cfg: Config{Only: regexp.MustCompile("nosuch")}}
	if _, err := r.filter(context.Background(), muts); !errors.Is(err, verdict.ErrUsage) || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), "no-cap") {
		t.Fatalf("err %v, want a usage error naming the pattern and some ids", err)
	}
	r.cfg.Only = regexp.MustCompile("^no-cap$")
	if keep, err := r.filter(context.Background(), muts); err != nil || len(keep) != 1 {
		t.Fatalf("kept %d, err %v; want no-cap alone", len(keep), err)
	}
}
