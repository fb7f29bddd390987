package campaign

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// ResolveSuite turns the configured suite into a runnable one: when pkg is
// the default "./scenarios/" and that directory has no test files yet, it
// falls back to "./waittool/" (all its tests) and says so in Note.
func ResolveSuite(root, pkg, run string) (verdict.Suite, error) {
	dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, "./")))
	if hasTests(dir) {
		return verdict.Suite{Pkg: pkg, Run: run, Dir: dir}, nil
	}
	if path := filepath.ToSlash(filepath.Clean(strings.TrimPrefix(pkg, "./"))); path == "scenarios" {
		fb := filepath.Join(root, "waittool")
		if hasTests(fb) {
			return verdict.Suite{Pkg: "./waittool/", Dir: fb,
				Note: "suite: ./scenarios/ has no test files yet; falling back to the Go tests of ./waittool/"}, nil
		}
	}
	return verdict.Suite{}, fmt.Errorf("%w: suite %s has no test files", verdict.ErrUsage, pkg)
}

func hasTests(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	return len(m) > 0
}
