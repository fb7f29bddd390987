package scenarios

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/waitsim/waitsim/sim"
)

// GoldenPath is where the golden trace of case id lives, relative to the
// scenarios package directory.
func GoldenPath(id string) string {
	return filepath.Join("golden", strings.ReplaceAll(id, "/", "_")+".trace")
}

// FailureReport renders a failed case for people: what differed, which
// invariants broke, the timeline, and the one line that re-runs it.
func FailureReport(r CaseResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %s (%s:%d) — protects: %s\n", r.ID, r.File, r.Line, r.Protects)
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "expectation: %s\n", f)
	}
	for _, v := range r.Violation {
		fmt.Fprintf(&b, "invariant %s: %s\n", v.Invariant, v.Message)
	}
	fmt.Fprintf(&b, "timeline (virtual ms):\n%s", r.Timeline)
	fmt.Fprintf(&b, "re-run: %s\n", r.Repro)
	return b.String()
}

// FirstDivergence describes the first entry where two traces differ.
func FirstDivergence(a, b []sim.Entry) string {
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(a):
			return fmt.Sprintf("entry %d only in the second: %s", i+1, sim.FormatEntries(b[i:i+1]))
		case i >= len(b):
			return fmt.Sprintf("entry %d only in the first: %s", i+1, sim.FormatEntries(a[i:i+1]))
		case a[i] != b[i]:
			return fmt.Sprintf("entry %d:\n  first:  %s  second: %s", i+1, sim.FormatEntries(a[i:i+1]), sim.FormatEntries(b[i:i+1]))
		}
	}
	return "(identical)"
}
