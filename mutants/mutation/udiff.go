package mutation

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// UnifiedDiff renders the change from old to new of the file at path (relative
// to the module root) as a unified diff with a/ and b/ prefixes, in one hunk
// that spans from the first to the last differing line with diffContext lines
// of context around it. It is exact for the mutants of this package, which
// change one region of one file; for scattered changes it is still a correct
// diff, only not a minimal one. It returns "" when old and new are equal.
func UnifiedDiff(path string, old, new []byte) string {
	a, b := SplitLines(old), SplitLines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	if pre == len(a) && pre == len(b) {
		return ""
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	start := max(0, pre-diffContext)
	endA := min(len(a), len(a)-suf+diffContext)
	endB := min(len(b), len(b)-suf+diffContext)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", path, path)
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(start, endA-start), hunkRange(start, endB-start))
	line := func(prefix, l string) {
		sb.WriteString(prefix)
		sb.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for _, l := range a[start:pre] {
		line(" ", l)
	}
	for _, l := range a[pre : len(a)-suf] {
		line("-", l)
	}
	for _, l := range b[pre : len(b)-suf] {
		line("+", l)
	}
	for _, l := range a[len(a)-suf : endA] {
		line(" ", l)
	}
	return sb.String()
}

// hunkRange formats a hunk range: 1-based start and count, with the empty
// range written as the line before it, as diff -u does.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
