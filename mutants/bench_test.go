package mutants

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/waitsim/waitsim/mutants/mutation"
)

// BenchmarkCampaign runs the whole gate on this module as `make mutate`
// does (no cache), plus gremlins' own campaign on the same package for
// comparison, and reports: s/campaign (wall), ms/mutant-median (median
// build-and-run cost of one mutant), ms/mutant-amortized (campaign wall over
// mutants decided), and gremlins-ms/mutant (gremlins' wall over the mutants
// it tested). Run it with: go test -run '^$' -bench Campaign -benchtime 1x ./mutants/
func BenchmarkCampaign(b *testing.B) {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Config{Root: root, MeasureGremlins: os.Getenv("WAITSIM_BENCH_NO_GREMLINS") == ""})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.WallMs)/1000, "s/campaign")
		b.ReportMetric(float64(res.MedianMutantMs), "ms/mutant-median")
		b.ReportMetric(float64(res.WallMs)/float64(max(1, len(res.Mutants))), "ms/mutant-amortized")
		b.ReportMetric(float64(len(res.Mutants)), "mutants")
		if res.Gremlins != nil {
			b.ReportMetric(res.Gremlins.PerMutantMs, "gremlins-ms/mutant")
			b.ReportMetric(float64(res.Gremlins.WallMs)/1000, "gremlins-s")
		}
	}
}

// BenchmarkApplyPatch is the cost of applying one catalog patch in memory.
func BenchmarkApplyPatch(b *testing.B) {
	cat, err := mutation.LoadCatalog("..", "mutants/catalog")
	if err != nil || len(cat) == 0 {
		b.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", cat[0].File))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := mutation.ApplyPatch(src, cat[0].Patch); err != nil {
			b.Fatal(err)
		}
	}
}
