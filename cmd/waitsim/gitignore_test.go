package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ignoreOut adds "/out/" to the module's .gitignore unless a line already
// ignores out/ at the root; it keeps what the file held, and ends the last
// line first when it has no line break.
func TestIgnoreOut(t *testing.T) {
	for _, c := range []struct {
		name, before, after string
		said                bool
	}{
		{"no file", "", "/out/\n", true},
		{"other lines", "*.log\nbin", "*.log\nbin\n/out/\n", true},
		{"nested out only", "pkg/out/\n", "pkg/out/\n/out/\n", true},
		{"already", "x\nout/\n", "x\nout/\n", false},
		{"already rooted", "/out\n", "/out\n", false},
	} {
		root := t.TempDir()
		p := filepath.Join(root, ".gitignore")
		if c.name != "no file" {
			if err := os.WriteFile(p, []byte(c.before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		msg, err := ignoreOut(root)
		b, _ := os.ReadFile(p)
		if err != nil || string(b) != c.after || (msg != "") != c.said {
			t.Errorf("%s: .gitignore %q, said %q, %v; want %q, said %t", c.name, b, msg, err, c.after, c.said)
		}
	}
	// A .gitignore that is a directory is left alone, with a note, and no
	// error (init had written its files by then).
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".gitignore"), 0o755); err != nil {
		t.Fatal(err)
	}
	if msg, err := ignoreOut(root); err != nil || !strings.Contains(msg, "left alone") {
		t.Errorf(".gitignore a directory: %q, %v; want a note and no error", msg, err)
	}
}
