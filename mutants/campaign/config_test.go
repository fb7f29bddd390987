package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestValidatePackages: --pkg and --target are directories written from the
// module root; "calc/" (an import path, which the go command would look up
// in the standard library and fail as if the machine had) is a usage error
// that names the flag and shows the way to write it.
func TestValidatePackages(t *testing.T) {
	for _, c := range []struct {
		pkg, target string
		want        string // "" : valid
	}{
		{"./calc/", "./calc/", ""},
		{".", "./calc", ""},
		{"", "", ""},
		{"calc/", "", "--pkg calc/: want a package directory of the module, written from its root as ./dir/ (e.g. ./calc/)"},
		{"./calc/", "calc", "--target calc: want a package directory"},
		{"/abs/calc/", "", "(e.g. ./abs/calc/)"},
	} {
		cfg := Config{Root: "/m", SuitePkg: c.pkg, Target: c.target}
		err := cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("--pkg %q --target %q: %v, want no error", c.pkg, c.target, err)
		case c.want != "" && (err == nil || !errors.Is(err, verdict.ErrUsage) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("--pkg %q --target %q: %v, want a usage error with %q", c.pkg, c.target, err, c.want)
		}
	}
}

// A module without a catalog directory runs no catalog, and its campaign
// is whole: its options do not say --no-catalog (a report called it "a
// partial campaign (--no-catalog)"), unless --no-catalog was given.
func TestNoCatalogDirIsNotNoCatalog(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, given := range []bool{false, true} {
		cfg := Config{Root: root, SuitePkg: "./tool/", SuiteRun: "^TestTool$", Target: "./tool/", NoCatalog: given}
		if _, err := cfg.Defaults(); err != nil {
			t.Fatal(err)
		}
		if !cfg.NoCatalog {
			t.Errorf("--no-catalog %t: the catalog is run, and there is none", given)
		}
		if want := fmt.Sprintf("no-catalog=%t", given); !strings.Contains(cfg.Options(), want) {
			t.Errorf("--no-catalog %t: options %q, want %s", given, cfg.Options(), want)
		}
	}
}
