package campaign

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A failure's output is cut to a limit at its head and at its tail; a cut
// inside a character showed as "…�ééé" in every generator verdict whose
// world's dump held non-ASCII names (46 of 101 on 2 December 2026).
func TestHeadTailWholeCharacters(t *testing.T) {
	s := "invariants broken:\nbudget\n" + strings.Repeat("é", 2000)
	for n := 1; n < 40; n++ {
		for _, cut := range []string{Tail(s, n), Head(s, n)} {
			if !utf8.ValidString(cut) {
				t.Fatalf("n=%d: %q is not valid UTF-8", n, cut)
			}
			if len(cut) > n+len("…") {
				t.Fatalf("n=%d: %d bytes kept", n, len(cut))
			}
		}
	}
	if got := Head(s, 30); !strings.HasPrefix(got, "invariants broken:\nbudget") {
		t.Fatalf("Head kept %q", got)
	}
	if Tail("short", 10) != "short" || Head("short", 10) != "short" {
		t.Fatal("a short string is kept whole")
	}
}
