package mutants

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/waitsim/waitsim/mutants/campaign"
)

// TestEnumerationRunsNoTest: gremlins' dry run, which lists the operator
// mutants, runs none of the target's tests (its coverage run gets -run=^$):
// a test of the fixture's package that the kill suite does not select
// leaves a file when it runs, and a campaign with operators must not leave
// it, while its operator mutants are still listed.
func TestEnumerationRunsNoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	t.Parallel() // its own copy of the fixture
	root := copyFixture(t)
	marker := filepath.Join(t.TempDir(), "ran")
	src := fmt.Sprintf("package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMarker(t *testing.T) {\n\tif err := os.WriteFile(%q, nil, 0o644); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n", marker)
	if err := os.WriteFile(filepath.Join(root, "calc", "marker_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	cfg.Root, cfg.NoOperators, cfg.NoVet = root, false, true
	cfg.SuiteRun = "^Test(Add|Clamp|Sum|Gen|Greet)$"
	cfg.Only = regexp.MustCompile(`^gremlins:calc/calc\.go:`)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Mutants) < 2 { // the sanity mutant and at least one of gremlins'
		t.Fatalf("%d mutants, want operator mutants listed (notes %q)", len(res.Mutants), res.Notes)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a test the kill suite does not select ran during the campaign: gremlins' dry run ran the target's tests")
	}
}
