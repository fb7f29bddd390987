package reports

import (
	"fmt"
	"github.com/waitsim/waitsim/scenario"
	"maps"
	"slices"
	"strings"

	"github.com/waitsim/waitsim/reports/model"
	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/reports/timeline"
	"github.com/waitsim/waitsim/results"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// HTML renders r as one self-contained page (inline CSS and SVG, no script,
// no external URL): a summary, a timeline picture per scenario case and the
// mutant table with the diff of each survivor. The page is also well-formed
// XML, so it can be checked structurally. When cmp is not nil its verdict and
// headline lead the page.
func HTML(r *Run, cmp *Comparison) []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	fmt.Fprintf(&b, "<title>waitsim report %s</title>\n", text.HTML(text.Short(r.Commit)))
	b.WriteString("<style>\n" + pageCSS + timeline.WireCSS + "</style>\n</head>\n<body>\n")
	fmt.Fprintf(&b, "<h1>waitsim report</h1>\n<p class=\"meta\">%s</p>\n", text.HTML(plainIdentity(r)))
	if cmp != nil {
		fmt.Fprintf(&b, "<p class=\"verdict v-%s\">base %s → head %s: <b>%s</b> — %s</p>\n", text.HTML(cmp.Verdict),
			text.HTML(text.Short(cmp.Base.Commit)), text.HTML(text.Short(cmp.Head.Commit)), text.HTML(cmp.Verdict), text.HTML(compareHeadline(cmp)))
	}
	icon, headline := runHeadlineWith(r, func(s string) string { return s })
	fmt.Fprintf(&b, "<p class=\"headline\">%s %s</p>\n", iconBadge(icon), text.HTML(headline))
	if s := r.Scenarios; s == nil || len(s.Cases) == 0 {
		b.WriteString("<h2 id=\"scenarios\">Scenarios: no results</h2>\n")
		if s == nil {
			b.WriteString("<p class=\"empty\">The scenario table was not run: this run has no scenario result.</p>\n")
		} else {
			b.WriteString("<p class=\"empty\">The scenario result has no cases: nothing was checked, so nothing passed.</p>\n")
		}
	} else {
		htmlCaseTable(&b, s)
		survivalHTML(&b, s)
		b.WriteString("<h2 id=\"timelines\">Timelines</h2>\n")
		wire := "Over streamable HTTP a wire lane per caller shows the call's POST, bytes sent on each stream (green), the proxy's cut or the write deadline (red), a drop (large red), a stream reopened or resumed (purple) and a retry (orange). "
		if generic(s) {
			// A tool of one's own: no bridge, agents, cap or reserve.
			b.WriteString("<p class=\"note\">Virtual time in ms since the world's start. One lane per caller and the tool (per caller). " + wire + "◆: the reply at the caller.</p>\n")
		} else {
			b.WriteString("<p class=\"note\">Virtual time in ms since the world's start. One lane per caller, the tool (per caller), the bridge's single dispatch slot and each agent. " + wire +
				"Red dashed: a call's deadline; grey dashed: the 30000 ms cap when it is not the deadline; orange band: the read reserve before the deadline (2 × the read cost the last poll sleep was sized by); ◆: the reply at the caller.</p>\n")
		}
		b.WriteString(timeline.Legend)
		for i := range s.Cases {
			htmlCase(&b, i, &s.Cases[i])
		}
	}
	if m := r.Mutation; m != nil {
		htmlMutants(&b, m)
	}
	htmlConformance(&b, r)
	b.WriteString("</body>\n</html>\n")
	return []byte(b.String())
}

func plainIdentity(r *Run) string {
	s := "commit " + text.Short(r.Commit)
	if len(r.Seeds) > 0 {
		var ps []string
		for _, k := range slices.Sorted(maps.Keys(r.Seeds)) {
			ps = append(ps, fmt.Sprintf("%s=%d", k, r.Seeds[k]))
		}
		s += " · seeds " + strings.Join(ps, " ")
	}
	return s
}

func htmlCaseTable(b *strings.Builder, s *results.RunResult) {
	fmt.Fprintf(b, "<h2 id=\"scenarios\">Scenarios: %d passed, %d failed, %d errors, %d skipped</h2>\n", s.Passed, s.Failed, s.Errors, s.Skipped)
	b.WriteString("<table class=\"cases\">\n<thead><tr><th>verdict</th><th>case</th><th>file</th><th>protects</th><th>calls: resolves at (ms)</th></tr></thead>\n<tbody>\n")
	for i, c := range s.Cases {
		var rs []string
		for _, cs := range c.Calls {
			t := fmt.Sprintf("%s#%d %d", cs.Caller, cs.Index, cs.EndMs)
			if cs.Lost {
				t += " LOST"
			}
			rs = append(rs, t)
		}
		fmt.Fprintf(b, "<tr><td><span class=\"badge %s\">%s</span></td><td><a href=\"#case-%d\">%s</a></td><td>%s:%d</td><td>%s</td><td>%s</td></tr>\n",
			text.HTML(c.Verdict), text.HTML(c.Verdict), i, text.HTML(c.ID), text.HTML(c.File), c.Line, text.HTML(c.Protects), text.HTML(strings.Join(rs, ", ")))
	}
	b.WriteString("</tbody>\n</table>\n")
}

func htmlCase(b *strings.Builder, i int, c *results.CaseResult) {
	fmt.Fprintf(b, "<section class=\"case\" id=\"case-%d\" data-case=\"%s\">\n", i, text.HTML(c.ID))
	fmt.Fprintf(b, "<h3><span class=\"badge %s\">%s</span> %s</h3>\n", text.HTML(c.Verdict), text.HTML(c.Verdict), text.HTML(c.ID))
	requests := fmt.Sprintf(" · %d bridge requests", c.Requests)
	if c.Pack == scenario.PackGeneric {
		requests = "" // a tool of one's own has no bridge
	}
	fmt.Fprintf(b, "<p class=\"meta\">%s:%d · protects: %s%s · ends at %d ms</p>\n", text.HTML(c.File), c.Line, text.HTML(c.Protects), requests, c.EndMs)
	if len(c.Failures)+len(c.Violation) > 0 || c.Error != "" {
		b.WriteString("<ul class=\"failures\">\n")
		for _, f := range c.Failures {
			fmt.Fprintf(b, "<li>expectation: %s</li>\n", text.HTML(f))
		}
		for _, v := range c.Violation {
			fmt.Fprintf(b, "<li>invariant <code>%s</code>: %s</li>\n", text.HTML(v.Invariant), text.HTML(v.Message))
		}
		if c.Error != "" {
			fmt.Fprintf(b, "<li>runtime error: %s</li>\n", text.HTML(c.Error))
		}
		b.WriteString("</ul>\n")
	}
	if c.Repro != "" {
		if cmd, why, ok := text.PasteLine(c.Repro); ok {
			fmt.Fprintf(b, "<pre class=\"repro\">%s</pre>\n", text.HTML(cmd))
		} else {
			fmt.Fprintf(b, "<p class=\"note\">Re-run line not shown: the one recorded for this case is not one plain shell command (%s); pasted, it could run anything.</p>\n", text.HTML(why))
		}
	}
	b.WriteString(timeline.SVG(c))
	if c.Timeline != "" {
		fmt.Fprintf(b, "<details><summary>trace (text)</summary><pre>%s</pre></details>\n", text.HTML(c.Timeline))
	}
	b.WriteString("</section>\n")
}

func htmlMutants(b *strings.Builder, m *verdict.Result) {
	if nr := notRunText(m); nr != "" && len(m.Mutants) == 0 {
		fmt.Fprintf(b, "<h2 id=\"mutants\">Mutants: the campaign did not run</h2>\n<p class=\"empty\">%s.</p>\n", text.HTML("The "+nr))
		return
	}
	if len(m.Mutants) == 0 {
		fmt.Fprintf(b, "<h2 id=\"mutants\">Mutants: no results</h2>\n<p class=\"empty\">The mutation result has no mutants: nothing was tested (gate: %s).</p>\n", text.HTML(m.Gate))
		return
	}
	fmt.Fprintf(b, "<h2 id=\"mutants\">Mutants: catalog %s, operator %s (threshold %s), gate: %s</h2>\n",
		text.HTML(catalogPct(m)), text.HTML(operatorPct(m)), text.HTML(thresholdPct(m)), text.HTML(gateText(m)))
	b.WriteString("<p class=\"note\">Mutation score = killed / (killed + survived + timed out), for catalog and operator mutants separately.</p>\n")
	if g := generatorText(m); g != "" {
		fmt.Fprintf(b, "<p class=\"note generator\">%s</p>\n", text.HTML(g))
	}
	b.WriteString("<table class=\"mutants\">\n<thead><tr><th>status</th><th>mutant</th><th>source</th><th>file</th><th>intent</th><th>killed by</th></tr></thead>\n<tbody>\n")
	for _, mu := range m.Mutants {
		loc := mu.File
		if mu.Line > 0 {
			loc = fmt.Sprintf("%s:%d", mu.File, mu.Line)
		}
		kb := strings.Join(mu.KilledBy, ", ")
		if len(mu.KilledBy) > 3 {
			kb = strings.Join(mu.KilledBy[:3], ", ") + fmt.Sprintf(" … (%d)", len(mu.KilledBy))
		}
		cls := strings.ReplaceAll(mu.Status, " ", "-")
		fmt.Fprintf(b, "<tr class=\"m-%s\"><td><span class=\"badge %s\">%s</span></td><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			text.HTML(cls), text.HTML(cls), text.HTML(mu.Status), text.HTML(mu.ID), text.HTML(mu.Source), text.HTML(loc), text.HTML(mu.Intent), text.HTML(kb))
		if model.Undetected(mu.Status) && mu.Diff != "" {
			fmt.Fprintf(b, "<tr class=\"diffrow\"><td colspan=\"6\">%s%s</td></tr>\n", diffHTML(mu.Diff), suggestedHTML(mu))
		}
	}
	b.WriteString("</tbody>\n</table>\n")
}

func diffHTML(d string) string {
	var b strings.Builder
	b.WriteString("<pre class=\"diff\">")
	for _, ln := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		cls := ""
		switch {
		case strings.HasPrefix(ln, "+++"), strings.HasPrefix(ln, "---"):
			cls = "dh"
		case strings.HasPrefix(ln, "@@"):
			cls = "dk"
		case strings.HasPrefix(ln, "+"):
			cls = "da"
		case strings.HasPrefix(ln, "-"):
			cls = "dd"
		}
		if cls != "" {
			fmt.Fprintf(&b, "<span class=\"%s\">%s</span>\n", cls, text.HTML(ln))
		} else {
			b.WriteString(text.HTML(ln) + "\n")
		}
	}
	b.WriteString("</pre>")
	return b.String()
}

// generic reports whether every case of s ran a tool of one's own (the
// generic layer): then no text of the wait_agents contract applies.
func generic(s *results.RunResult) bool {
	for _, c := range s.Cases {
		if c.Pack != scenario.PackGeneric {
			return false
		}
	}
	return len(s.Cases) > 0
}

// iconBadge is a headline's icon (✅, ⚠️ or ❌) as a badge of words: emoji need
// a font many machines lack (Debian's Chromium drew an empty box).
func iconBadge(icon string) string {
	switch icon {
	case "✅":
		return `<span class="badge pass">pass</span>`
	case "❌":
		return `<span class="badge fail">fail</span>`
	case "⚠️":
		return `<span class="badge error">incomplete</span>`
	}
	return text.HTML(icon)
}

const pageCSS = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:16px 24px;color:#1f2328;background:#fff;font-size:14px}
h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:24px 0 8px;border-bottom:1px solid #d0d7de}h3{font-size:15px;margin:4px 0}
.meta,.note{color:#57606a;margin:2px 0 6px}.empty{color:#cf222e;font-weight:600}.headline{font-weight:600}
.verdict{font-size:16px;padding:6px 10px;border-radius:6px}.v-regressed{background:#ffebe9}.v-improved{background:#dafbe1}.v-changed{background:#fff8c5}.v-unchanged{background:#f6f8fa}
table{border-collapse:collapse;margin:6px 0 12px}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top;font-size:13px}th{background:#f6f8fa}
.badge{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;background:#57606a}
.badge.pass,.badge.killed{background:#1a7f37}.badge.fail,.badge.survived{background:#cf222e}.badge.error,.badge.timed-out,.badge.patch-no-longer-applies{background:#bc4c00}
.badge.not-viable,.badge.equivalent{background:#8c959f}
section.case{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;margin:12px 0;overflow-x:auto}
ul.failures{color:#cf222e;margin:4px 0}
pre{background:#f6f8fa;padding:6px 8px;border-radius:4px;overflow-x:auto;font-size:12px;margin:4px 0}
pre.suggested{border-left:3px solid #1a7f37}pre.diff .da{color:#116329;background:#dafbe1}pre.diff .dd{color:#82071e;background:#ffebe9}pre.diff .dk{color:#8250df}pre.diff .dh{color:#57606a}
svg.timeline,svg.legend{max-width:100%;height:auto}
svg text{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:11px;fill:#1f2328}
.laneBg{fill:#f6f8fa}.lane-tool .laneBg{fill:#eef1f4}.lane-bridge .laneBg{fill:#f3f0fa}.lane-agent .laneBg{fill:#f1f8f1}
.laneLabel{font-weight:600}
.tick{stroke:#d0d7de;stroke-width:1}.tickLabel{fill:#57606a;text-anchor:middle;font-size:10px}.axisTitle{fill:#57606a;text-anchor:end;font-size:10px}
.span rect{stroke-width:1}.span text{fill:#fff;font-size:10px}
.span.call rect{fill:#0969da;stroke:#0550ae}.span.lost rect{fill:#cf222e;stroke:#82071e}.span.error rect{fill:#bc4c00;stroke:#953800}
.span.toolcall rect{fill:#6e7781;stroke:#424a53}.span.sleep rect{fill:#d0d7de;stroke:none}
.span.reserve rect{fill:#fb8f44;fill-opacity:.35;stroke:#bc4c00;stroke-dasharray:3 2}
.span.list rect{fill:#8250df;stroke:#6639ba}.span.read rect{fill:#bf3989;stroke:#99286e}.span.failed rect{fill:#ffebe9;stroke:#cf222e}.span.failed text{fill:#82071e}
.span.hold rect{fill:#8c959f;stroke:#6e7781}.span.queue rect{fill:#d4a72c;stroke:none}
.span.active rect{fill:#d4a72c;stroke:#9a6700}.span.terminal rect{fill:#1a7f37;stroke:#116329}.span.unknown rect{fill:#eaeef2;stroke:#8c959f}.span.unknown text{fill:#57606a}
.span.open rect{stroke-dasharray:4 3;fill-opacity:.6}
.mark line{stroke-width:1.5}.mark.deadline line{stroke:#cf222e;stroke-dasharray:6 3}.mark.deadline text{fill:#cf222e;font-weight:600}
.mark.cap line{stroke:#6e7781;stroke-dasharray:2 3}.mark.cap text{fill:#57606a}
.mark.reply path{fill:#1a7f37;stroke:#fff}.mark.lostreply path{stroke:#cf222e;stroke-width:2.5}.mark.lostreply text{fill:#cf222e;font-weight:600}
.mark.lostread path{fill:#cf222e}.mark.notissued path{fill:#bc4c00}.mark.shared circle{fill:#8250df}.mark.progress circle{fill:#0969da}
.mark text{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.legend text{font-size:11px}
`

// suggestedHTML is the case `--suggest` wrote for a survivor, under its
// diff, ready to copy; or why there is none; "" when none was asked for.
func suggestedHTML(mu verdict.MutantResult) string {
	switch {
	case mu.Suggested != "":
		return fmt.Sprintf("<p class=\"suggested\">A case that kills it, found by <code>waitsim mutate --suggest</code> (<code>%s</code>; head passes it, the mutant fails it): copy it into <code>scenarios/table/</code>.</p><pre class=\"suggested\">%s</pre>",
			text.HTML(mu.SuggestedFile), text.HTML(mu.Suggested))
	case mu.SuggestNote != "":
		return fmt.Sprintf("<p class=\"suggested\">No case suggested: %s</p>", text.HTML(mu.SuggestNote))
	}
	return ""
}
