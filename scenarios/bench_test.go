package scenarios

import (
	"flag"
	"testing"
	"time"
)

// oneCount makes testing.RunTests run the nested test once, whatever
// -test.count says, and returns the function that restores the flag.
func oneCount() func() {
	f := flag.Lookup("test.count")
	old := f.Value.String()
	_ = f.Value.Set("1")
	return func() { _ = f.Value.Set(old) }
}

// BenchmarkTable runs the whole scenario table once per op (wall time of the
// table: the goal is under 5 s on 2 cores). synctest needs a *testing.T, so the
// loop runs as a nested test through testing.RunTests.
func BenchmarkTable(b *testing.B) {
	cases, err := Load([]string{"table"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	defer oneCount()()
	ok := testing.RunTests(func(string, string) (bool, error) { return true, nil }, []testing.InternalTest{{
		Name: "table",
		F: func(t *testing.T) {
			for range b.N {
				for _, c := range cases {
					if r := c.Run(t); r.Verdict != VerdictPass {
						t.Fatal(FailureReport(r))
					}
				}
			}
		},
	}})
	wall := time.Since(start)
	b.StopTimer()
	if !ok {
		b.Fatal("a case failed")
	}
	b.ReportMetric(float64(len(cases)), "cases")
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms/table")
}
