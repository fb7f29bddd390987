package results

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/waitsim/waitsim/sim/timeline"
)

// maxNameLen bounds the readable part of a SafeFileName.
const maxNameLen = 96

// SafeFileName is a file name for case id that shells, globs and every
// common file system take as it is (issue 11 item 16): the id's letters,
// digits and . _ - = kept, every run of other characters ([ ] { } " , : /
// spaces …) written as one _, cut to 96 bytes; when anything was replaced
// or cut, "-" and the first 8 hex digits of the id's sha256 follow, so two
// ids never share a name. Stable: it depends on the id alone. An id that is
// already safe is its own name.
func SafeFileName(id string) string {
	var b strings.Builder
	changed := false
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '=':
			b.WriteRune(r)
		default:
			changed = true
			if !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	name := strings.TrimRight(b.String(), "_")
	if len(name) > maxNameLen {
		name, changed = name[:maxNameLen], true
	}
	if name == "" || name[0] == '.' || name[0] == '-' {
		name, changed = "case"+name, true
	}
	if changed {
		h := sha256.Sum256([]byte(id))
		name += "-" + hex.EncodeToString(h[:4])
	}
	return name
}

// Failure reports show a timeline of up to reportTimelineLines lines
// whole; a longer one keeps its first reportHeadLines and last
// reportTailLines lines (the replies a failure names come at the end as a
// rule) and says how many lines were left out: a world of
// timeline.MaxTraceEntries would otherwise print about 13 MB into the test's
// log. The whole timeline is in the results file.
const (
	reportTimelineLines = 1000
	reportHeadLines     = 100
	reportTailLines     = 400
)

// FailureReport renders a failed case for people: what differed, which
// invariants broke, the timeline (cut when long, see reportTimelineLines),
// and the one line that re-runs it.
func FailureReport(r CaseResult) string {
	var b strings.Builder
	// What a tool returned can be in any of these (an error result's text
	// in an expectation's message): each line is written as a timeline's
	// (timeline.OneLine), so that none can forge a line or reach the
	// terminal as control.
	line := timeline.OneLine
	fmt.Fprintf(&b, "case %s (%s:%d) — protects: %s\n", line(r.ID), line(r.File), r.Line, line(r.Protects))
	if r.Error != "" {
		lines := strings.Split(r.Error, "\n")
		for i := range lines {
			lines[i] = line(lines[i])
		}
		fmt.Fprintf(&b, "error: %s\n", strings.Join(lines, "\n"))
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "expectation: %s\n", line(f))
	}
	for _, v := range r.Violation {
		fmt.Fprintf(&b, "invariant %s: %s\n", line(v.Invariant), line(v.Message))
	}
	fmt.Fprintf(&b, "timeline (virtual ms):\n%s", CutTimeline(r.Timeline))
	fmt.Fprintf(&b, "re-run: %s\n", r.Repro)
	return b.String()
}

// CutTimeline is a rendered timeline as a failure report shows it: whole up
// to reportTimelineLines lines, else its head and tail around a line that
// counts what was left out (at most about 500 lines, whatever the trace).
func CutTimeline(tl string) string {
	n := strings.Count(tl, "\n")
	if n <= reportTimelineLines {
		return tl
	}
	head := tl
	for i, at := 0, 0; i < reportHeadLines; i++ {
		at += strings.IndexByte(tl[at:], '\n') + 1
		head = tl[:at]
	}
	tail := tl
	for i, at := 0, len(tl)-1; i < reportTailLines; i++ {
		at = strings.LastIndexByte(tl[:at], '\n')
		tail = tl[at+1:]
	}
	return fmt.Sprintf("%s… %d lines left out (the whole timeline is in the results file: waitsim run --json) …\n%s",
		head, n-reportHeadLines-reportTailLines, tail)
}

// FirstDivergence describes the first entry where two traces differ.
func FirstDivergence(a, b []timeline.Entry) string {
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(a):
			return fmt.Sprintf("entry %d only in the second: %s", i+1, timeline.FormatEntries(b[i:i+1]))
		case i >= len(b):
			return fmt.Sprintf("entry %d only in the first: %s", i+1, timeline.FormatEntries(a[i:i+1]))
		case a[i] != b[i]:
			return fmt.Sprintf("entry %d:\n  first:  %s  second: %s", i+1, timeline.FormatEntries(a[i:i+1]), timeline.FormatEntries(b[i:i+1]))
		}
	}
	return "(identical)"
}
