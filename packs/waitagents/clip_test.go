package waitagents

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A failure message quotes a value clipped at a character's start: one cut
// inside "é" showed as "…é�…" in a generator verdict.
func TestClipWholeCharacters(t *testing.T) {
	for pad := 0; pad < 4; pad++ {
		s := strings.Repeat("a", pad) + strings.Repeat("é", clipBytes)
		got := clip(s)
		if !utf8.ValidString(got) || !strings.HasPrefix(s, got[:strings.Index(got, "…")]) {
			t.Fatalf("pad %d: clip gave %q", pad, got)
		}
		if kept := strings.Index(got, "…"); kept > clipBytes || kept < clipBytes-1 {
			t.Fatalf("pad %d: %d bytes kept, want %d or one less", pad, kept, clipBytes)
		}
	}
	if clip("short") != "short" {
		t.Fatal("a short value is quoted whole")
	}
}
