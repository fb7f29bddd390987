package reports

import (
	"fmt"
	"strings"

	"github.com/waitsim/waitsim/conformance"
)

// conformanceDisagreementLines bounds the disagreeing calls listed in Markdown.
const conformanceDisagreementLines = 20

// LoadConformance reads and checks out/conformance.json (`make conformance`).
// Besides the version and types, its totals must match its results: a report
// whose verdict its own rows contradict is an *InputError, never shown as a pass.
func LoadConformance(path string) (*conformance.Report, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(path, data, "version", conformance.ReportVersion); err != nil {
		return nil, err
	}
	var c conformance.Report
	if err := decode(path, data, &c); err != nil {
		return nil, err
	}
	if c.Runs != len(c.Results) {
		return nil, &InputError{path, "runs", fmt.Sprintf("is %d but results has %d runs", c.Runs, len(c.Results))}
	}
	calls, bad := 0, 0
	agree := len(c.Results) > 0
	for i, e := range c.Results {
		runAgrees := e.Error == ""
		for _, cc := range e.Calls {
			calls++
			if len(cc.Mismatches) > 0 {
				bad++
				runAgrees = false
			}
		}
		if e.Agree && !runAgrees {
			return nil, &InputError{path, fmt.Sprintf("results[%d].agree", i), "is true but the run has an error or a mismatch"}
		}
		agree = agree && e.Agree
	}
	switch {
	case calls != c.Calls:
		return nil, &InputError{path, "calls", fmt.Sprintf("is %d but the results hold %d calls", c.Calls, calls)}
	case bad != c.Disagreements:
		return nil, &InputError{path, "disagreements", fmt.Sprintf("is %d but %d calls have mismatches", c.Disagreements, bad)}
	case c.Agree != agree:
		return nil, &InputError{path, "agree", fmt.Sprintf("is %v but the results say %v", c.Agree, agree)}
	}
	return &c, nil
}

// conformanceVerdict is the one-line verdict of a conformance report for run
// r: it says "stale" when the report comes from another commit than r's.
func conformanceVerdict(r *Run) (icon, text string) {
	c := r.Conformance
	icon, text = "✅", fmt.Sprintf("all %d calls of %d client runs agree with the simulation", c.Calls, c.Runs)
	if !c.Agree {
		icon, text = "❌", fmt.Sprintf("%d of %d calls disagree with the simulation (%d client runs)", c.Disagreements, c.Calls, c.Runs)
	}
	if c.Runs == 0 {
		icon, text = "❌", "no client runs"
	}
	text += fmt.Sprintf("; %s; largest |real − simulated| %.1f ms; %d real replies lost their outputs",
		c.ToleranceText(), c.MaxAbsDiffMs, c.LostOutputs)
	if c.Commit != r.Commit {
		if icon == "✅" {
			icon = "⚠️"
		}
		text += fmt.Sprintf(" — STALE: measured at commit %s, not this run's %s", short(c.Commit), short(r.Commit))
	}
	return icon, text
}

// conformanceMarkdown adds the "simulation vs real" section.
func conformanceMarkdown(b *mdBuilder, r *Run) {
	c := r.Conformance
	if c == nil {
		return
	}
	icon, text := conformanceVerdict(r)
	b.line("### Simulation vs real (`make conformance`)")
	b.blank()
	b.line("%s %s", icon, cell(text))
	b.blank()
	b.line("| client | transport | runs | calls | disagree | lost outputs | max \\|real − sim\\| ms |")
	b.line("|---|---|---:|---:|---:|---:|---:|")
	for _, p := range c.Profiles {
		b.line("| %s | %s | %d | %d | %d | %d | %.1f |", cell(p.Client), cell(p.Transport), p.Runs, p.Calls, p.Disagreements, p.LostOutputs, p.MaxAbsDiffMs)
	}
	b.blank()
	var lines []string
	for _, e := range c.Results {
		if e.Error != "" {
			lines = append(lines, fmt.Sprintf("- %s · %s · %s run %d: %s", code(e.Case), cell(e.Client), cell(e.Transport), e.Run, cell(e.Error)))
		}
		for _, cc := range e.Calls {
			if len(cc.Mismatches) > 0 {
				lines = append(lines, fmt.Sprintf("- %s · %s · %s run %d · %s#%d: %s", code(e.Case), cell(e.Client), cell(e.Transport), e.Run,
					cell(cc.Caller), cc.Index, cell(strings.Join(cc.Mismatches, "; "))))
			}
		}
	}
	if len(lines) > 0 {
		shown := lines[:min(len(lines), conformanceDisagreementLines)]
		for _, l := range shown {
			b.line("%s", l)
		}
		if len(lines) > len(shown) {
			b.line("- … and %d more (out/conformance.json)", len(lines)-len(shown))
		}
		b.blank()
	}
}

// htmlConformance adds the "simulation vs real" section: the profiles, then
// every call of every run.
func htmlConformance(b *strings.Builder, r *Run) {
	c := r.Conformance
	if c == nil {
		return
	}
	icon, text := conformanceVerdict(r)
	b.WriteString("<h2 id=\"conformance\">Simulation vs real</h2>\n")
	fmt.Fprintf(b, "<p class=\"headline\">%s %s</p>\n", icon, esc(text))
	b.WriteString("<p class=\"note\">Real MCP clients against <code>waitsim serve</code> on the real clock, each call compared with the simulation of the same scenario file: lost or received, every reply field exactly (remainingMs within the tolerance), the resolve time within the tolerance. Times are wall ms since the first caller's start.</p>\n")
	b.WriteString("<table class=\"cases\">\n<thead><tr><th>client</th><th>transport</th><th>runs</th><th>calls</th><th>disagree</th><th>lost outputs</th><th>max |real − sim| ms</th></tr></thead>\n<tbody>\n")
	for _, p := range c.Profiles {
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%.1f</td></tr>\n",
			esc(p.Client), esc(p.Transport), p.Runs, p.Calls, p.Disagreements, p.LostOutputs, p.MaxAbsDiffMs)
	}
	b.WriteString("</tbody>\n</table>\n")
	b.WriteString("<table class=\"cases\">\n<thead><tr><th>verdict</th><th>case</th><th>client</th><th>transport</th><th>run</th><th>call</th><th>simulation (ms)</th><th>real (ms)</th><th>diff (ms)</th><th>tolerance (ms)</th><th>mismatches</th></tr></thead>\n<tbody>\n")
	for _, e := range c.Results {
		if e.Error != "" {
			fmt.Fprintf(b, "<tr><td><span class=\"badge error\">error</span></td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td colspan=\"6\">%s</td></tr>\n",
				esc(e.Case), esc(e.Client), esc(e.Transport), e.Run, esc(e.Error))
		}
		for _, cc := range e.Calls {
			v := "pass"
			if len(cc.Mismatches) > 0 {
				v = "fail"
			}
			sim, real := fmt.Sprint(cc.SimEndMs), fmt.Sprintf("%.1f", cc.RealEndMs)
			if cc.SimLost {
				sim += " LOST"
			}
			if cc.RealLost {
				real += " LOST"
			}
			fmt.Fprintf(b, "<tr><td><span class=\"badge %s\">%s</span></td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s#%d</td><td>%s</td><td>%s</td><td>%.1f</td><td>%.0f</td><td>%s</td></tr>\n",
				v, v, esc(e.Case), esc(e.Client), esc(e.Transport), e.Run, esc(cc.Caller), cc.Index, sim, real, cc.DiffMs, e.ToleranceMs, esc(strings.Join(cc.Mismatches, "; ")))
		}
	}
	b.WriteString("</tbody>\n</table>\n")
}
