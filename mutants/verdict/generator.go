package verdict

import (
	"fmt"
	"strings"
)

// GeneratorCampaign is the generator campaign of a result: how it ran and
// its kill rates, catalog and operator, scored as the table's (killed /
// (killed + survived + timed out)), over the mutants it ran on: every
// viable mutant the table ran, except the sanity mutant and operator
// mutants listed as equivalent.
type GeneratorCampaign struct {
	Run        string `json:"run"`        // its -test.run pattern
	Worlds     int    `json:"worlds"`     // worlds drawn per mutant (at most: a kill stops at the first counterexample)
	BaselineMs int64  `json:"baselineMs"` // wall ms of its run on the unmutated code
	TimeoutMs  int64  `json:"timeoutMs"`  // a mutant's generator run times out after this
	// Note says why the campaign did not run ("" when it ran): the
	// generator fails on the unmutated code, or the suite has no such test.
	Note           string  `json:"note,omitempty"`
	CatalogKilled  int     `json:"catalogKilled"`
	CatalogScored  int     `json:"catalogScored"`
	CatalogScore   float64 `json:"catalogScore"`
	OperatorKilled int     `json:"operatorKilled"`
	OperatorScored int     `json:"operatorScored"`
	OperatorScore  float64 `json:"operatorScore"`
	// RunMs is the wall ms of this campaign's generator runs, summed over
	// the mutants run (cached verdicts left out): what the generator adds
	// to the mutants' time.
	RunMs int64 `json:"runMs"`
}

// evaluateGenerator scores res.Generator from res's mutants (a fresh copy:
// a result read from a file is recomputed, never trusted).
func evaluateGenerator(res *Result) {
	if res.Generator == nil {
		return
	}
	g := *res.Generator
	g.CatalogKilled, g.CatalogScored, g.OperatorKilled, g.OperatorScored, g.RunMs = 0, 0, 0, 0, 0
	for _, m := range res.Mutants {
		if !m.Cached {
			g.RunMs += m.GeneratorMs
		}
		if m.Generator == "" {
			continue
		}
		k := 0
		if m.Generator == StatusKilled {
			k = 1
		}
		switch m.Source {
		case SourceCatalog:
			g.CatalogKilled += k
			g.CatalogScored++
		case SourceGremlins:
			g.OperatorKilled += k
			g.OperatorScored++
		}
	}
	g.CatalogScore, g.OperatorScore = score(g.CatalogKilled, g.CatalogScored), score(g.OperatorKilled, g.OperatorScored)
	res.Generator = &g
}

// GeneratorLine is the generator campaign in one line for people: its
// kill rates beside the table's, or why it did not run; "" without one.
func GeneratorLine(res *Result) string {
	g := res.Generator
	if g == nil {
		return ""
	}
	if g.Note != "" {
		return "generator: not run: " + g.Note
	}
	var surv []string
	for _, m := range res.Mutants {
		if m.Generator == StatusSurvived || m.Generator == StatusTimedOut {
			surv = append(surv, m.ID+" ("+m.Generator+")")
		}
	}
	s := fmt.Sprintf("generator alone (%s, %d worlds a mutant): catalog %s, operator %s; baseline %d ms, its runs %.1fs in all",
		g.Run, g.Worlds, killedOf(g.CatalogKilled, g.CatalogScored), killedOf(g.OperatorKilled, g.OperatorScored), g.BaselineMs, float64(g.RunMs)/1000)
	if len(surv) > 0 {
		s += "; not killed by it: " + strings.Join(First(surv, 8), ", ")
	}
	return s
}

// killedOf is "k of n killed (p%)", or "n/a" when n is 0.
func killedOf(k, n int) string {
	if n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d of %d killed (%s)", k, n, FormatScore(score(k, n), n, 100))
}
