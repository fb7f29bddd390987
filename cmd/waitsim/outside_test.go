package main

import (
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
