package mutants

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestKilledPastHang: a mutant that makes one test hang and a later one
// fail is killed by the failing test, not timed out because the hanging
// one ran first (the suite runs again without it: pastHang). Before, the
// verdict hung on the order: timed out here, where TestAdd runs first.
func TestKilledPastHang(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	t.Parallel()
	cfg := fixtureConfig(t, "")
	cfg.CatalogDir, cfg.Workers = "hang-catalog", 1
	cfg.Only = regexp.MustCompile(`^add-hangs-sum-wrong$`)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := byID(res)["add-hangs-sum-wrong"]
	if m.Status != verdict.StatusKilled || !slices.Equal(m.KilledBy, []string{"TestSum"}) || !strings.Contains(m.Detail, "leaving out TestAdd") {
		t.Errorf("%s, killed by %q, detail %q; want killed by TestSum after leaving out TestAdd", m.Status, m.KilledBy, m.Detail)
	}
}
