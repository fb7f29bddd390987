package reports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// How the renderers write a mutation result's figures.

// pct formats a percentage with one decimal.
func pct(v float64) string { return fmt.Sprintf("%.1f%%", v) }

// catalogPct and operatorPct are a result's scores as the command line
// prints them: "n/a" when nothing was scored, never a rounded-up 100.0%
// for a score below its threshold (verdict.FormatScore).
func catalogPct(m *verdict.Result) string {
	return verdict.FormatScore(m.CatalogScore, m.CatalogScored, 100)
}

func operatorPct(m *verdict.Result) string {
	return verdict.FormatScore(m.OperatorScore, m.OperatorScored, m.Threshold)
}

// gateText is a result's gate as the reports print it: "pass", or why it
// failed, and for a partial campaign what narrowed it (a pass there is the
// pass of the mutants it ran, not of the whole campaign).
func gateText(m *verdict.Result) string {
	if sel := m.Selection(); len(sel) > 0 {
		return m.Gate + " on a partial campaign (" + strings.Join(sel, ", ") + ")"
	}
	return m.Gate
}

// notRunText says that m's campaign did not run — its baseline (the kill
// suite on the unmutated code) failed, so no mutant was judged — and why
// (its gate); "" when the campaign ran.
func notRunText(m *verdict.Result) string {
	if m.Baseline == nil {
		return ""
	}
	return "mutation campaign did not run: " + m.Gate
}

// generatorText is the generator campaign's kill rates beside the table's,
// in one sentence; "" when the result has no generator campaign.
func generatorText(m *verdict.Result) string {
	g := m.Generator
	if g == nil {
		return ""
	}
	if g.Note != "" {
		return "Generator alone: not run (" + g.Note + ")."
	}
	return fmt.Sprintf("Generator alone (%d worlds a mutant, no hand-written expectations): catalog %s, operator %s — the table's: catalog %s, operator %s.",
		g.Worlds, killedOf(g.CatalogKilled, g.CatalogScored), killedOf(g.OperatorKilled, g.OperatorScored), catalogPct(m), operatorPct(m))
}

// killedOf is "k of n killed (p%)", or "n/a" when n is 0.
func killedOf(k, n int) string {
	if n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d of %d killed (%s)", k, n, verdict.FormatScore(float64(k)*100/float64(n), n, 100))
}

// thresholdPct is the operator threshold as written in the config.
func thresholdPct(m *verdict.Result) string {
	return strconv.FormatFloat(m.Threshold, 'f', -1, 64) + "%"
}

// ptsOrNA is pts(d), or "n/a" when either side scored nothing.
func ptsOrNA(d float64, baseScored, headScored int) string {
	if baseScored == 0 || headScored == 0 {
		return "n/a"
	}
	return pts(d)
}

// pts formats a change of a percentage in points, signed.
func pts(d float64) string {
	if d > -0.05 && d < 0.05 {
		return "±0.0 pts"
	}
	return fmt.Sprintf("%+.1f pts", d)
}
