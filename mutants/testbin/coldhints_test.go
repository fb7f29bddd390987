package testbin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestColdHints keeps, reads and drops hints: a mutant a hot process died
// on is hinted in the next campaign of the same suite, root and target
// only; a calm one loses its hint; a file past the bound, or not JSON,
// gives what it can; a nil *ColdHints holds and keeps nothing.
func TestColdHints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g := &Go{KeptDir: dir, Root: "/r", Pkg: "./scenarios/"}
	h := g.ColdHints("./waittool/")
	if h.Has("a", "d") {
		t.Fatal("a hint in an empty directory")
	}
	h.Died("a", "d")
	h.Died("b", "d")
	if !h.Save() {
		t.Fatal("Save said the hints were not kept")
	}
	again := g.ColdHints("./waittool/")
	if !again.Has("a", "d") || !again.Has("b", "d") || again.Has("a", "other diff") || again.Has("c", "d") {
		t.Errorf("after Save: a %t, b %t, a with another diff %t, c %t; want true, true, false, false",
			again.Has("a", "d"), again.Has("b", "d"), again.Has("a", "other diff"), again.Has("c", "d"))
	}
	for _, o := range []struct {
		g      *Go
		target string
	}{{g, "./other/"}, {&Go{KeptDir: dir, Root: "/elsewhere", Pkg: "./scenarios/"}, "./waittool/"}, {&Go{KeptDir: dir, Root: "/r", Pkg: "./x/"}, "./waittool/"}} {
		if o.g.ColdHints(o.target).Has("a", "d") {
			t.Errorf("root %s, suite %s, target %s: holds the hint of another campaign", o.g.Root, o.g.Pkg, o.target)
		}
	}
	again.Calm("a", "d")
	again.Save()
	third := g.ColdHints("./waittool/")
	if third.Has("a", "d") || !third.Has("b", "d") {
		t.Errorf("after Calm(a): a %t, b %t; want false, true", third.Has("a", "d"), third.Has("b", "d"))
	}

	// Bounded: a file of more hints than coldHintsMost gives the first.
	many := make([]string, coldHintsMost+10)
	for i := range many {
		many[i] = fmt.Sprintf("k%d", i)
	}
	b, _ := json.Marshal(many)
	if err := os.WriteFile(third.path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := len(g.ColdHints("./waittool/").was); n != coldHintsMost {
		t.Errorf("%d hints read from a file of %d, want %d", n, len(many), coldHintsMost)
	}
	if err := os.WriteFile(third.path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := len(g.ColdHints("./waittool/").was); n != 0 {
		t.Errorf("%d hints read from a file that is not JSON", n)
	}

	// A hints file that is a directory: nothing read, nothing kept, and
	// Save says so.
	if err := os.Remove(third.path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(third.path, 0o755); err != nil {
		t.Fatal(err)
	}
	blocked := g.ColdHints("./waittool/")
	blocked.Died("z", "d")
	if blocked.Has("a", "d") || blocked.Save() {
		t.Error("a hints file that is a directory: a hint read, or Save said the hints were kept")
	}

	var none *ColdHints
	none.Died("a", "d")
	none.Calm("a", "d")
	none.Save()
	if none.Has("a", "d") || (&Go{}).ColdHints("./waittool/") != nil {
		t.Error("a nil ColdHints, or one without a directory, holds a hint")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".hints-*")); len(m) > 0 {
		t.Errorf("temporary files left: %q", m)
	}
}
