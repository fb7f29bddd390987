package mutants

import (
	"bytes"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/cli"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestKilledOutsideAnyTest: a mutant whose test binary panics outside any
// test (at init, in a package-level var) is killed with no test to name;
// its log line says so and gives the panic's first line, where it used to
// end with nothing after the mutant's id. A panic inside a test names the
// test, although test2json, reading the binary's output from a pipe as the
// runner feeds it, sends no "fail" event for it: the test's "--- FAIL:" and
// "panic:" lines show it (those mutants' lines named nothing either).
func TestKilledOutsideAnyTest(t *testing.T) {
	const pkg = `"Package":"x/scenarios"`
	initPanic := strings.Join([]string{
		`{"Action":"start",` + pkg + `}`,
		`{"Action":"output",` + pkg + `,"Output":"panic: assignment to entry in nil map\n"}`,
		`{"Action":"output",` + pkg + `,"Output":"\n"}`,
		`{"Action":"output",` + pkg + `,"Output":"goroutine 1 [running]:\n"}`,
		`{"Action":"output",` + pkg + `,"Output":"x/waittool.init()\n"}`,
	}, "\n")
	// As test2json writes a test that panics when it reads a pipe (seen
	// with a mutant of results.SingleLine under make mutate-checker).
	inTest := strings.Join([]string{
		`{"Action":"start",` + pkg + `}`,
		`{"Action":"run",` + pkg + `,"Test":"TestA"}`,
		`{"Action":"pass",` + pkg + `,"Test":"TestA"}`,
		`{"Action":"run",` + pkg + `,"Test":"TestB"}`,
		`{"Action":"run",` + pkg + `,"Test":"TestB/sub"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestB/sub","Output":"=== RUN   TestB/sub\n","OutputType":"frame"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestB/sub","Output":"--- FAIL: TestB/sub (0.00s)\n","OutputType":"frame"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n","OutputType":"frame"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestB","Output":"panic: runtime error: slice bounds out of range [:5] with length 4 [recovered, repanicked]\n"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestB","Output":"goroutine 6 [running]:\n"}`,
	}, "\n")
	// A panic whose test prints no "--- FAIL:" line first.
	bare := strings.Join([]string{
		`{"Action":"run",` + pkg + `,"Test":"TestC"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestC","Output":"panic: boom\n"}`,
	}, "\n")
	result := func(id, events string) verdict.MutantResult {
		rep := testrun.ParseEvents(strings.NewReader(events))
		rep.Exit = 2
		m := verdict.MutantResult{ID: id}
		classify(&m, rep, 0)
		return m
	}
	atInit := result("gremlins:waittool/tool.go:12:3:INVERT_NEGATIVES", initPanic)
	exited := verdict.MutantResult{ID: "exits", Status: verdict.StatusKilled, Detail: "the test binary exited 1 outside any test\nFAIL"}
	same := verdict.MutantResult{ID: "twin", Status: verdict.StatusKilled, Detail: "the same mutated source as exits"}
	byTests := verdict.MutantResult{ID: "no-cap", Status: verdict.StatusKilled, KilledBy: []string{"TestTable/a", "TestTable/b", "TestTable/c", "TestTable/d"}, DurationMs: 1234}
	survived := verdict.MutantResult{ID: "s", Status: verdict.StatusSurvived, Detail: "panic: not a kill"}
	var b bytes.Buffer
	p := cli.NewProgress(&b, false, 7)
	for _, r := range []verdict.MutantResult{atInit, result("in-test", inTest), result("bare", bare), exited, same, byTests, survived} {
		p.Done(r)
	}
	want := []string{
		"[1/7] killed                  gremlins:waittool/tool.go:12:3:INVERT_NEGATIVES (0 ms build + run) by a panic outside any test: assignment to entry in nil map",
		"[2/7] killed                  in-test (0 ms build + run) by TestB/sub",
		"[3/7] killed                  bare (0 ms build + run) by TestC",
		"[4/7] killed                  exits (0 ms build + run) — the test binary exited 1 outside any test",
		"[5/7] killed                  twin (0 ms build + run) — the same mutated source as exits",
		"[6/7] killed                  no-cap (1.2s build + run) by TestTable/a, TestTable/b, TestTable/c, … 1 more",
		"[7/7] survived                s (0 ms build + run)",
	}
	if got := strings.TrimSuffix(b.String(), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
