package waitagents

import (
	"fmt"
	"unicode/utf8"
)

// clipBytes is how much of a value a failure message quotes.
const clipBytes = 300

// clip shortens s for a failure message: its first clipBytes bytes, never
// cut inside a character (a generated world's names are not ASCII), and
// its full length.
func clip(s string) string {
	if len(s) <= clipBytes {
		return s
	}
	i := clipBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + fmt.Sprintf("…(%d bytes)", len(s))
}
