package results

import (
	"fmt"
	"strings"
	"testing"
)

// TestFailureReportCutsLongTimelines: a failure report shows a timeline of
// up to reportTimelineLines lines whole; a longer one by its first and last
// lines, saying how many it left out (a full trace would print megabytes
// into the test's log).
func TestFailureReportCutsLongTimelines(t *testing.T) {
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "%9d ms  tool:1     line %d\n", i, i)
		}
		return b.String()
	}
	short := lines(0, reportTimelineLines)
	if r := FailureReport(CaseResult{ID: "s", Timeline: short}); !strings.Contains(r, short) {
		t.Errorf("a timeline of %d lines was cut:\n%s", reportTimelineLines, r)
	}
	n := 250_000
	r := FailureReport(CaseResult{ID: "l", Timeline: lines(0, n)})
	left := n - reportHeadLines - reportTailLines
	if !strings.Contains(r, lines(0, reportHeadLines)+fmt.Sprintf("… %d lines left out", left)) ||
		!strings.HasSuffix(r, "lines left out (the whole timeline is in the results file: waitsim run --json) …\n"+lines(n-reportTailLines, n)+"re-run: \n") ||
		strings.Contains(r, fmt.Sprintf("line %d\n", reportHeadLines)) || strings.Count(r, "\n") > reportHeadLines+reportTailLines+10 {
		t.Errorf("a timeline of %d lines: report of %d lines, want its first %d, a count of %d left out, its last %d:\n%.2000s",
			n, strings.Count(r, "\n"), reportHeadLines, left, reportTailLines, r)
	}
}

// TestFailureReportOneLines: a failure report writes each message as one
// line of text: an error result's text quoted in an expectation cannot
// forge a line of the report or reach the terminal as control.
func TestFailureReportOneLines(t *testing.T) {
	r := FailureReport(CaseResult{ID: "a", Failures: []string{"A#1: error result = true, want false (boom\x1b[31m\r\nPASS  forged\u202e)"},
		Violation: []Violation{{Invariant: "x", Message: "m\nn"}}, Error: "first line\nsecond\x1b line"})
	for _, bad := range []string{"\x1b", "\r", "\u202e", "\nPASS  forged", "m\nn"} {
		if strings.Contains(r, bad) {
			t.Errorf("the report holds %q:\n%s", bad, r)
		}
	}
	if !strings.Contains(r, "error: first line\nsecond\\x1b line\n") {
		t.Errorf("an error's own lines are kept, each one escaped:\n%s", r)
	}
}
