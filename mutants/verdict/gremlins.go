package verdict

import (
	"sort"
	"time"
)

// CompareGremlins is gremlins' own campaign (its status by mutant id, as
// mutation.ParseGremlinsOutput reads them; its wall time and exit code)
// beside the gate's verdicts ms: the statuses counted, the time per tested
// mutant, and the operator mutants on which the two disagree in a way that
// matters. A mutant gremlins counts KILLED that the gate found not viable is
// gremlins' known fault (it counts a mutant that does not compile as
// killed).
func CompareGremlins(status map[string]string, wall time.Duration, code int, ms []MutantResult) *GremlinsRun {
	g := &GremlinsRun{WallMs: wall.Milliseconds(), Statuses: map[string]int{}, ExitCode: code}
	for _, st := range status {
		g.Statuses[st]++
		switch st {
		case "KILLED", "LIVED", "NOT VIABLE", "TIMED OUT":
			g.Tested++
		}
	}
	if g.Tested > 0 {
		g.PerMutantMs = float64(g.WallMs) / float64(g.Tested)
	}
	for _, m := range ms {
		st, ok := status[m.ID]
		if !ok || m.Source != SourceGremlins {
			continue
		}
		switch {
		case st == "KILLED" && m.Status == StatusNotViable:
			g.Disagreements = append(g.Disagreements, m.ID+": gremlins KILLED, but it is not viable ("+FirstLine(m.Detail)+")")
		case st == "TIMED OUT" && m.Status != StatusTimedOut:
			g.Disagreements = append(g.Disagreements, m.ID+": gremlins TIMED OUT, the gate: "+m.Status)
		}
	}
	sort.Strings(g.Disagreements)
	return g
}
