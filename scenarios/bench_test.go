package scenarios_test

import (
	"flag"
	"testing"
	"time"

	"github.com/waitsim/waitsim"
	"github.com/waitsim/waitsim/packs/waitagents"
)

// BenchmarkTable runs the whole scenario table through the door once per op
// (wall time of the table on 2 cores: docs/speed.md). synctest needs a
// *testing.T, so the loop runs as a nested test through testing.RunTests.
func BenchmarkTable(b *testing.B) {
	count := flag.Lookup("test.count")
	old := count.Value.String()
	_ = count.Value.Set("1") // the nested test once, whatever -test.count says
	defer func() { _ = count.Value.Set(old) }()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	ok := testing.RunTests(func(string, string) (bool, error) { return true, nil }, []testing.InternalTest{{
		Name: "table",
		F: func(t *testing.T) {
			for range b.N {
				waitsim.Run(t, waitsim.Params{Dir: "table", Pack: waitagents.Reference()})
			}
		},
	}})
	wall := time.Since(start)
	b.StopTimer()
	if !ok {
		b.Fatal("a case failed")
	}
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms/table")
}
