package testrun

import "strings"

// BrokenInvariant is the first broken invariant a generator failure names
// in out: the line after "invariants broken", or "". Give it the
// failure's head (Report.Head): the world's dump follows the broken
// invariants and fills the tail.
func BrokenInvariant(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "invariants broken") && i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
	}
	return ""
}
