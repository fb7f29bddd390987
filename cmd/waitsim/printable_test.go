package main

import "testing"

// TestPrintableNamesCharacters: a character that is not printable is
// written as its escape, never as a replacement character that names
// nothing; printable text is kept as it is.
func TestPrintableNamesCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"f.yaml:4:1: yaml: found character '\t' here": `f.yaml:4:1: yaml: found character '\t' here`,
		"bell \a, nul \x00, zero width \u200b":        `bell \x07, nul \x00, zero width \u200b`,
		"kept: é ✓ §2 — \"x\"":                        "kept: é ✓ §2 — \"x\"",
		"bad byte \xff, kept \uFFFD":                  "bad byte \\xff, kept \uFFFD",
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
