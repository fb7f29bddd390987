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
