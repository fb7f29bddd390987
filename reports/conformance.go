package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/waitsim/waitsim/conformance"
	"github.com/waitsim/waitsim/reports/text"
)

// conformanceDisagreementLines bounds the disagreeing calls listed in Markdown.
const conformanceDisagreementLines = 20

// conformanceVerdict is the one-line verdict of a conformance report for run
// r: it says "stale" when the report comes from another commit than r's, or
// from another tree (r's tree recorded, the report's another or none).
func conformanceVerdict(r *Run) (icon, msg string) {
	c := r.Conformance
	icon, msg = "✅", fmt.Sprintf("all %d calls of %d client runs agree with the simulation", c.Calls, c.Runs)
	if !c.Agree {
		icon, msg = "❌", fmt.Sprintf("%d of %d calls disagree with the simulation (%d client runs)", c.Disagreements, c.Calls, c.Runs)
	}
	switch {
	case c.Runs == 0:
		icon, msg = "❌", "no client runs"
	case c.Calls == 0:
		icon, msg = "❌", fmt.Sprintf("no call compared in %d client runs: nothing agrees with the simulation", c.Runs)
	}
	msg += fmt.Sprintf("; %s; largest |real − simulated| %.1f ms; %d real replies lost their outputs",
		c.ToleranceText(), c.MaxAbsDiffMs, c.LostOutputs)
	stale := ""
	switch {
	case c.Commit != r.Commit:
		stale = fmt.Sprintf("measured at commit %s, not this run's %s", text.Short(c.Commit), text.Short(r.Commit))
	case r.Tree != "" && c.Tree != r.Tree:
		// The same commit, dirty, is many trees: only the tree's hash
		// ties a measurement to the code this run ran.
		stale = fmt.Sprintf("measured on tree %.12s, not this run's %.12s", orUnrecorded(c.Tree), r.Tree)
	}
	if stale != "" {
		if icon == "✅" {
			icon = "⚠️"
		}
		msg += " — STALE: " + stale
	}
	return icon, msg
}

// conformanceMarkdown adds the "simulation vs real" section.
func conformanceMarkdown(b *mdBuilder, r *Run) {
	c := r.Conformance
	if c == nil {
		return
	}
	icon, msg := conformanceVerdict(r)
	b.line("### Simulation vs real (`make conformance`)")
	b.blank()
	b.line("%s %s", icon, text.Cell(msg))
	b.blank()
	b.line("| client | transport | proxy | runs | calls | disagree | lost outputs | max \\|real − sim\\| ms |")
	b.line("|---|---|---|---:|---:|---:|---:|---:|")
	for _, p := range c.Profiles {
		b.line("| %s | %s | %s | %d | %d | %d | %d | %.1f |", text.Cell(p.Client), text.Cell(p.Transport), text.Cell(orDash(p.Proxy)), p.Runs, p.Calls, p.Disagreements, p.LostOutputs, p.MaxAbsDiffMs)
	}
	b.blank()
	if msg := conformanceProxies(c); msg != "" {
		b.line("%s", text.Cell(msg))
		b.blank()
	}
	var lines []string
	for _, e := range c.Results {
		where := fmt.Sprintf("%s · %s · %s", text.Code(e.Case), text.Cell(e.Client), text.Cell(e.Transport))
		if e.Proxy != nil {
			where += " · " + text.Cell(e.Proxy.Label())
		}
		if e.Error != "" {
			lines = append(lines, fmt.Sprintf("- %s run %d: %s", where, e.Run, text.Cell(e.Error)))
		}
		for _, cc := range e.Calls {
			if len(cc.Mismatches) > 0 {
				lines = append(lines, fmt.Sprintf("- %s run %d · %s#%d: %s", where, e.Run,
					text.Cell(cc.Caller), cc.Index, text.Cell(strings.Join(cc.Mismatches, "; "))))
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

// orDash is s, or "—" when s is empty.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// conformanceProxies says which proxies the proxied runs went through (each
// with its version, buffering and idle timeouts) and how the ties of a
// client's timeout with a proxy's went; "" when no run had a proxy.
func conformanceProxies(c *conformance.Report) string {
	type key struct{ name, version string }
	var order []key
	timeouts := map[key][]int64{}
	buffering := map[key]bool{}
	for _, e := range c.Results {
		if e.Proxy == nil {
			continue
		}
		k := key{e.Proxy.Name, e.Proxy.Version}
		if _, ok := timeouts[k]; !ok {
			order = append(order, k)
		}
		if !slices.Contains(timeouts[k], e.Proxy.IdleTimeoutMs) {
			timeouts[k] = append(timeouts[k], e.Proxy.IdleTimeoutMs)
		}
		buffering[k] = e.Proxy.Buffering
	}
	if len(order) == 0 {
		return ""
	}
	var parts []string
	for _, k := range order {
		ts := timeouts[k]
		slices.Sort(ts)
		ms := make([]string, len(ts))
		for i, t := range ts {
			ms[i] = fmt.Sprint(t)
		}
		buf := "off"
		if buffering[k] {
			buf = "on"
		}
		v := k.version
		if v == "" {
			v = "version unknown"
		}
		parts = append(parts, fmt.Sprintf("%s (%s; buffering %s; idle timeouts %s ms)", k.name, v, buf, strings.Join(ms, ", ")))
	}
	msg := "Proxies: " + strings.Join(parts, "; ") + "."
	if n := c.TiesClientFirst + c.TiesProxyFirst; n > 0 {
		msg += fmt.Sprintf(" Ties of a client's timeout with the proxy's: %d, the client's first in %d (the simulation's order), the proxy's in %d.",
			n, c.TiesClientFirst, c.TiesProxyFirst)
	}
	return msg
}

// htmlConformance adds the "simulation vs real" section: the profiles, then
// every call of every run.
func htmlConformance(b *strings.Builder, r *Run) {
	c := r.Conformance
	if c == nil {
		return
	}
	icon, msg := conformanceVerdict(r)
	b.WriteString("<h2 id=\"conformance\">Simulation vs real</h2>\n")
	fmt.Fprintf(b, "<p class=\"headline\">%s %s</p>\n", icon, text.HTML(msg))
	b.WriteString("<p class=\"note\">Real MCP clients against <code>waitsim serve</code> on the real clock, each call compared with the simulation of the same scenario file: lost or received, every reply field exactly (remainingMs within the tolerance), the resolve time within the tolerance. Times are wall ms since the first caller's start.</p>\n")
	b.WriteString("<table class=\"cases\">\n<thead><tr><th>client</th><th>transport</th><th>proxy</th><th>runs</th><th>calls</th><th>disagree</th><th>lost outputs</th><th>max |real − sim| ms</th></tr></thead>\n<tbody>\n")
	for _, p := range c.Profiles {
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%.1f</td></tr>\n",
			text.HTML(p.Client), text.HTML(p.Transport), text.HTML(orDash(p.Proxy)), p.Runs, p.Calls, p.Disagreements, p.LostOutputs, p.MaxAbsDiffMs)
	}
	b.WriteString("</tbody>\n</table>\n")
	if msg := conformanceProxies(c); msg != "" {
		fmt.Fprintf(b, "<p class=\"note\">%s</p>\n", text.HTML(msg))
	}
	b.WriteString("<table class=\"cases\">\n<thead><tr><th>verdict</th><th>case</th><th>client</th><th>transport</th><th>proxy</th><th>run</th><th>call</th><th>simulation (ms)</th><th>real (ms)</th><th>diff (ms)</th><th>tolerance (ms)</th><th>ended by (sim / real)</th><th>progress (sim / real)</th><th>mismatches</th></tr></thead>\n<tbody>\n")
	for _, e := range c.Results {
		proxy := "—"
		if e.Proxy != nil {
			proxy = e.Proxy.Label()
		}
		if e.Error != "" {
			fmt.Fprintf(b, "<tr><td><span class=\"badge error\">error</span></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td colspan=\"8\">%s</td></tr>\n",
				text.HTML(e.Case), text.HTML(e.Client), text.HTML(e.Transport), text.HTML(proxy), e.Run, text.HTML(e.Error))
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
			ended := fmt.Sprintf("%s / %s", orDash(cc.SimCause), orDash(cc.RealCause))
			if cc.Tie != "" {
				ended += " (tie: " + cc.Tie + ")"
			}
			fmt.Fprintf(b, "<tr><td><span class=\"badge %s\">%s</span></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s#%d</td><td>%s</td><td>%s</td><td>%.1f</td><td>%.0f</td><td>%s</td><td>%d / %d</td><td>%s</td></tr>\n",
				v, v, text.HTML(e.Case), text.HTML(e.Client), text.HTML(e.Transport), text.HTML(proxy), e.Run, text.HTML(cc.Caller), cc.Index, sim, real, cc.DiffMs, e.ToleranceMs,
				text.HTML(ended), cc.SimProgress, cc.Progress, text.HTML(strings.Join(cc.Mismatches, "; ")))
		}
	}
	b.WriteString("</tbody>\n</table>\n")
}

// orUnrecorded is tree, or "(none recorded)".
func orUnrecorded(tree string) string {
	if tree == "" {
		return "(none recorded)"
	}
	return tree
}
