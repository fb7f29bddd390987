package testrun

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/waitsim/waitsim/results"
)

// TestParseEvents: the leaf tests that failed, how many passed, the first
// failure's output.
func TestParseEvents(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Test":"TestTable"}`,
		`{"Action":"output","Test":"TestTable/a","Output":"boom\n"}`,
		`{"Action":"fail","Test":"TestTable/a"}`,
		`{"Action":"pass","Test":"TestTable/b"}`,
		`{"Action":"fail","Test":"TestTable"}`,
		`not json`,
		`{"Action":"fail"}`,
	}, "\n")
	rep := ParseEvents(strings.NewReader(in))
	if len(rep.Failed) != 1 || rep.Failed[0] != "TestTable/a" || rep.Passed != 1 || !strings.Contains(rep.Output, "boom") {
		t.Fatalf("%+v", rep)
	}
}

// The tests a run that timed out was in: the leaves started and never
// ended (passed, failed or skipped), in the order they started.
func TestParseEventsHung(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Test":"TestTable"}`,
		`{"Action":"run","Test":"TestTable/a.yaml"}`,
		`{"Action":"run","Test":"TestTable/a.yaml/ok"}`,
		`{"Action":"pass","Test":"TestTable/a.yaml/ok"}`,
		`{"Action":"run","Test":"TestTable/a.yaml/skipped"}`,
		`{"Action":"skip","Test":"TestTable/a.yaml/skipped"}`,
		`{"Action":"run","Test":"TestTable/a.yaml/spins"}`,
		`{"Action":"output","Test":"TestTable/a.yaml/spins","Output":"=== RUN\n"}`,
	}, "\n")
	if rep := ParseEvents(strings.NewReader(in)); !slices.Equal(rep.Hung, []string{"TestTable/a.yaml/spins"}) {
		t.Errorf("hung %q, want the one case that never ended", rep.Hung)
	}
}

// A mutant's kill suite, cold or hot, gets its worlds' watchdog beyond the
// runner's timeout (twice it and the sim's default), so that a mutant that
// spins is ended by the timeout, never by the watchdog; a run without a
// timeout (the baseline) keeps the sim's default, and a params file that
// names a watchdog keeps it.
func TestKillSuiteWatchdog(t *testing.T) {
	p := killSuite(results.Params{GenWorlds: 7}, 10*time.Second)
	if !p.KillSuite || p.GenWorlds != 7 || p.WatchdogMs != 50000 {
		t.Errorf("a 10 s timeout: %+v, want KillSuite, GenWorlds 7 and a watchdog of 50000 ms", p)
	}
	if p := killSuite(results.Params{}, 0); p.WatchdogMs != 0 || !p.KillSuite {
		t.Errorf("no timeout: %+v, want no watchdog of its own", p)
	}
	if p := killSuite(results.Params{WatchdogMs: 5}, 10*time.Second); p.WatchdogMs != 5 {
		t.Errorf("a watchdog given: %+v, want it kept", p)
	}
	if ms := WatchdogMs(40 * time.Second); ms <= (40 * time.Second).Milliseconds() {
		t.Errorf("WatchdogMs(40 s) = %d, not beyond the timeout", ms)
	}
}
