package mutants

import (
	"bytes"
	"strings"
	"testing"
)

// TestKilledOutsideAnyTest: a mutant whose test binary panics outside any
// test (at init, in a package-level var) is killed with no test to name;
// its log line says so and gives the panic's first line, where it used to
// end with nothing after the mutant's id.
func TestKilledOutsideAnyTest(t *testing.T) {
	initPanic := strings.Join([]string{
		`{"Action":"start","Package":"x/scenarios"}`,
		`{"Action":"output","Package":"x/scenarios","Output":"panic: assignment to entry in nil map\n"}`,
		`{"Action":"output","Package":"x/scenarios","Output":"\n"}`,
		`{"Action":"output","Package":"x/scenarios","Output":"goroutine 1 [running]:\n"}`,
		`{"Action":"output","Package":"x/scenarios","Output":"x/waittool.init()\n"}`,
		`{"Action":"fail","Package":"x/scenarios"}`,
	}, "\n")
	rep := parseEvents(strings.NewReader(initPanic))
	rep.exit = 2
	atInit := MutantResult{ID: "gremlins:waittool/tool.go:12:3:INVERT_NEGATIVES"}
	classify(&atInit, rep, 0)
	exited := MutantResult{ID: "exits", Status: StatusKilled, Detail: "the test binary exited 1 outside any test\nFAIL"}
	byTests := MutantResult{ID: "no-cap", Status: StatusKilled, KilledBy: []string{"TestTable/a", "TestTable/b", "TestTable/c", "TestTable/d"}}
	survived := MutantResult{ID: "s", Status: StatusSurvived, Detail: "panic: not a kill"}
	var b bytes.Buffer
	p := newProgress(&b, false, 4)
	for _, r := range []MutantResult{atInit, exited, byTests, survived} {
		p.done(r)
	}
	want := []string{
		"[1/4] killed                  gremlins:waittool/tool.go:12:3:INVERT_NEGATIVES (0.0s build + run) by a panic outside any test: assignment to entry in nil map",
		"[2/4] killed                  exits (0.0s build + run) outside any test: the test binary exited 1",
		"[3/4] killed                  no-cap (0.0s build + run) by TestTable/a, TestTable/b, TestTable/c, … 1 more",
		"[4/4] survived                s (0.0s build + run)",
	}
	if got := strings.TrimSuffix(b.String(), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
