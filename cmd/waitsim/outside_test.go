package main

import (
	"os"
	"path/filepath"
	"testing"
)

// `waitsim run --json` refuses a scenario file outside the module before
// it runs: its results file would name it by an absolute path, which
// `waitsim report` refuses (before, the run wrote out/scenarios.json and
// the report then failed with "path … is absolute").
func TestOutsideModule(t *testing.T) {
	root := filepath.FromSlash("/m/mod")
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{[]string{"/m/mod/scenarios/a.yaml", "/m/mod"}, ""},
		{[]string{"/m/mod/a.yaml", "/m/other/b.yaml"}, "/m/other/b.yaml"},
		{[]string{"/m/mod-x/a.yaml"}, "/m/mod-x/a.yaml"},
		{[]string{"/tmp/we ird,dir/m.yaml"}, "/tmp/we ird,dir/m.yaml"},
	} {
		for i := range tc.paths {
			tc.paths[i] = filepath.FromSlash(tc.paths[i])
		}
		if got := outsideModule(root, tc.paths); got != filepath.FromSlash(tc.want) {
			t.Errorf("outsideModule(%v) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

// init writes nothing outside the module through a symbolic link: a --dir
// whose existing part leads out is refused; a new or plain one is not.
func TestInitInsideReal(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := insideReal(root, filepath.Join(root, "escape", "pkg", "testdata")); err == nil {
		t.Error("a --dir through a link out of the module: no error")
	}
	for _, dir := range []string{filepath.Join(root, "pkg", "testdata", "waitsim"), root} {
		if err := insideReal(root, dir); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
}
