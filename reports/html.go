package reports

import (
	"fmt"
	"html"
	"strings"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
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
	fmt.Fprintf(&b, "<title>waitsim report %s</title>\n", esc(short(r.Commit)))
	b.WriteString("<style>\n" + pageCSS + wireCSS + "</style>\n</head>\n<body>\n")
	fmt.Fprintf(&b, "<h1>waitsim report</h1>\n<p class=\"meta\">%s</p>\n", esc(plainIdentity(r)))
	if cmp != nil {
		fmt.Fprintf(&b, "<p class=\"verdict v-%s\">base %s → head %s: <b>%s</b> — %s</p>\n", esc(cmp.Verdict),
			esc(short(cmp.Base.Commit)), esc(short(cmp.Head.Commit)), esc(cmp.Verdict), esc(compareHeadline(cmp)))
	}
	icon, headline := runHeadline(r)
	fmt.Fprintf(&b, "<p class=\"headline\">%s %s</p>\n", icon, esc(headline))
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
		b.WriteString("<p class=\"note\">Virtual time in ms since the world's start. One lane per caller, the tool (per caller), the bridge's single dispatch slot and each agent. " +
			"Over streamable HTTP a wire lane per caller shows the call's POST, bytes sent on each stream (green), the proxy's cut or the write deadline (red), a drop (large red), a stream reopened or resumed (purple) and a retry (orange). Red dashed: a call's deadline; grey dashed: the 30000 ms cap when it is not the deadline; orange band: the read reserve before the deadline (2 × the read cost the last poll sleep was sized by); ◆: the reply at the caller.</p>\n")
		b.WriteString(legendSVG)
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
	s := "commit " + short(r.Commit)
	if len(r.Seeds) > 0 {
		var ps []string
		for _, k := range sortedKeys(r.Seeds) {
			ps = append(ps, fmt.Sprintf("%s=%d", k, r.Seeds[k]))
		}
		s += " · seeds " + strings.Join(ps, " ")
	}
	return s
}

func htmlCaseTable(b *strings.Builder, s *results.RunResult) {
	fmt.Fprintf(b, "<h2 id=\"scenarios\">Scenarios: %d passed, %d failed, %d errors</h2>\n", s.Passed, s.Failed, s.Errors)
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
			esc(c.Verdict), esc(c.Verdict), i, esc(c.ID), esc(c.File), c.Line, esc(c.Protects), esc(strings.Join(rs, ", ")))
	}
	b.WriteString("</tbody>\n</table>\n")
}

func htmlCase(b *strings.Builder, i int, c *results.CaseResult) {
	fmt.Fprintf(b, "<section class=\"case\" id=\"case-%d\" data-case=\"%s\">\n", i, esc(c.ID))
	fmt.Fprintf(b, "<h3><span class=\"badge %s\">%s</span> %s</h3>\n", esc(c.Verdict), esc(c.Verdict), esc(c.ID))
	fmt.Fprintf(b, "<p class=\"meta\">%s:%d · protects: %s · %d bridge requests · ends at %d ms</p>\n", esc(c.File), c.Line, esc(c.Protects), c.Requests, c.EndMs)
	if len(c.Failures)+len(c.Violation) > 0 || c.Error != "" {
		b.WriteString("<ul class=\"failures\">\n")
		for _, f := range c.Failures {
			fmt.Fprintf(b, "<li>expectation: %s</li>\n", esc(f))
		}
		for _, v := range c.Violation {
			fmt.Fprintf(b, "<li>invariant <code>%s</code>: %s</li>\n", esc(v.Invariant), esc(v.Message))
		}
		if c.Error != "" {
			fmt.Fprintf(b, "<li>runtime error: %s</li>\n", esc(c.Error))
		}
		b.WriteString("</ul>\n")
	}
	if c.Repro != "" {
		if cmd, why, ok := pasteLine(c.Repro); ok {
			fmt.Fprintf(b, "<pre class=\"repro\">%s</pre>\n", esc(cmd))
		} else {
			fmt.Fprintf(b, "<p class=\"note\">Re-run line not shown: the one recorded for this case is not one plain shell command (%s); pasted, it could run anything.</p>\n", esc(why))
		}
	}
	b.WriteString(timelineSVG(buildTimeline(c)))
	if c.Timeline != "" {
		fmt.Fprintf(b, "<details><summary>trace (text)</summary><pre>%s</pre></details>\n", esc(c.Timeline))
	}
	b.WriteString("</section>\n")
}

func htmlMutants(b *strings.Builder, m *verdict.Result) {
	if len(m.Mutants) == 0 {
		fmt.Fprintf(b, "<h2 id=\"mutants\">Mutants: no results</h2>\n<p class=\"empty\">The mutation result has no mutants: nothing was tested (gate: %s).</p>\n", esc(m.Gate))
		return
	}
	fmt.Fprintf(b, "<h2 id=\"mutants\">Mutants: catalog %s, operator %s (threshold %s), gate: %s</h2>\n",
		esc(catalogPct(m)), esc(operatorPct(m)), esc(thresholdPct(m)), esc(m.Gate))
	b.WriteString("<p class=\"note\">Mutation score = killed / (killed + survived + timed out), for catalog and operator mutants separately.</p>\n")
	if g := generatorText(m); g != "" {
		fmt.Fprintf(b, "<p class=\"note generator\">%s</p>\n", esc(g))
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
			esc(cls), esc(cls), esc(mu.Status), esc(mu.ID), esc(mu.Source), esc(loc), esc(mu.Intent), esc(kb))
		if undetected(mu.Status) && mu.Diff != "" {
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
			fmt.Fprintf(&b, "<span class=\"%s\">%s</span>\n", cls, esc(ln))
		} else {
			b.WriteString(esc(ln) + "\n")
		}
	}
	b.WriteString("</pre>")
	return b.String()
}

// esc escapes s for HTML text and attributes, and drops control characters
// that XML does not allow.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0xFFFE || r == 0xFFFF {
			return -1
		}
		return r
	}, s)
	return html.EscapeString(s)
}

// SVG geometry, in px.
const (
	svgWidth    = 1160
	svgLabelW   = 130
	svgRight    = 24
	svgLaneH    = 24
	svgLaneGap  = 6
	svgMarkRow  = 14
	svgReplyRow = 13  // extra height of a caller lane, for reply labels
	charW       = 6.3 // approximate width of one character at 11px
)

// timelineSVG draws tl. Coordinates are formatted with one decimal, so the
// output is byte-stable.
func timelineSVG(tl *timeline) string {
	x0, x1 := float64(svgLabelW+10), float64(svgWidth-svgRight)
	step := tickStep(tl.EndMs)
	span := ((tl.EndMs + step - 1) / step) * step
	if span <= 0 {
		span = step
	}
	x := func(t int64) float64 { return x0 + (x1-x0)*float64(t)/float64(span) }

	// Rows of labels above the lanes for marks that cross every lane.
	var global []tlMark
	seen := map[string]bool{}
	for _, m := range tl.Marks {
		key := fmt.Sprintf("%s|%d|%s", m.Class, m.AtMs, m.Label)
		if m.Lane < 0 && !seen[key] {
			seen[key] = true
			global = append(global, m)
		}
	}
	rowEnd := []float64{}
	rowOf := make([]int, len(global))
	for i, m := range global {
		left := x(m.AtMs) - float64(len([]rune(m.Label)))*charW - 4
		r := 0
		for r < len(rowEnd) && rowEnd[r] > left-6 {
			r++
		}
		if r == len(rowEnd) {
			rowEnd = append(rowEnd, 0)
		}
		rowEnd[r] = x(m.AtMs) + 2
		rowOf[i] = r
	}
	top := float64(len(rowEnd))*svgMarkRow + 6
	// Caller lanes are taller: their reply labels go under the call bars.
	ys := make([]float64, len(tl.Lanes)+1)
	hs := make([]float64, len(tl.Lanes))
	ys[0] = top
	for i, l := range tl.Lanes {
		hs[i] = svgLaneH
		if l.Kind == laneCaller {
			hs[i] = svgLaneH + svgReplyRow
		}
		ys[i+1] = ys[i] + hs[i] + svgLaneGap
	}
	laneY := func(l int) float64 { return ys[l] }
	lanesBottom := ys[len(tl.Lanes)]
	height := lanesBottom + 26

	var b strings.Builder
	fmt.Fprintf(&b, "<svg class=\"timeline\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\">\n", svgWidth, height, svgWidth, height)
	// Lanes.
	for i, l := range tl.Lanes {
		y := laneY(i)
		fmt.Fprintf(&b, "<g class=\"lane lane-%s\" data-lane=\"%s\" data-name=\"%s\"><rect class=\"laneBg\" x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%.0f\"/><text class=\"laneLabel\" x=\"6\" y=\"%.1f\">%s</text></g>\n",
			l.Kind, esc(l.Kind), esc(l.Name), y, svgWidth, hs[i], y+svgLaneH/2+4, esc(l.Label))
	}
	// Axis ticks.
	for t := int64(0); t <= span; t += step {
		xt := x(t)
		fmt.Fprintf(&b, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text class=\"tickLabel\" x=\"%.1f\" y=\"%.1f\">%d</text>\n",
			xt, top-2, xt, lanesBottom, xt, lanesBottom+13, t)
	}
	fmt.Fprintf(&b, "<text class=\"axisTitle\" x=\"%.1f\" y=\"%.1f\">virtual ms</text>\n", x1, lanesBottom+24)
	// Spans: backgrounds first (calls, tool calls, agents, bridge), overlays after.
	order := []map[string]bool{
		{"call": true, "lost": true, "error": true, "toolcall": true, "active": true, "terminal": true, "unknown": true, "list": true, "read": true, "hold": true, "failed": true},
		{"sleep": true, "queue": true},
		{"reserve": true},
	}
	for _, pass := range order {
		for _, s := range tl.Spans {
			if !pass[s.Class] {
				continue
			}
			y, h := laneY(s.Lane)+3, float64(svgLaneH-6)
			switch s.Class {
			case "sleep":
				y, h = laneY(s.Lane)+svgLaneH-8, 4
			case "queue":
				y, h = laneY(s.Lane)+1, 3
			case "reserve":
				y, h = laneY(s.Lane)+1, float64(svgLaneH-2)
			}
			xs, xe := x(s.StartMs), x(s.EndMs)
			w := xe - xs
			if w < 1.5 {
				w = 1.5
			}
			open := ""
			if s.Open {
				open = " open"
			}
			fmt.Fprintf(&b, "<g class=\"span %s%s\" data-start=\"%d\" data-end=\"%d\"><title>%s</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"2\"/>",
				s.Class, open, s.StartMs, s.EndMs, esc(s.Title), xs, y, w, h)
			if s.Label != "" && s.Class != "sleep" && s.Class != "reserve" && w > float64(len([]rune(s.Label)))*charW+6 {
				fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", xs+3, laneY(s.Lane)+svgLaneH/2+4, esc(s.Label))
			}
			b.WriteString("</g>\n")
		}
	}
	// Marks across every lane, labels in rows above.
	for i, m := range global {
		xm := x(m.AtMs)
		ly := float64(rowOf[i])*svgMarkRow + 11
		fmt.Fprintf(&b, "<g class=\"mark %s\" data-ms=\"%d\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text></g>\n",
			m.Class, m.AtMs, xm, ly+2, xm, lanesBottom, xm-2, ly, esc(m.Label))
	}
	// Marks on one lane.
	for _, m := range tl.Marks {
		if m.Lane < 0 {
			continue
		}
		xm, yc := x(m.AtMs), laneY(m.Lane)+svgLaneH/2
		fmt.Fprintf(&b, "<g class=\"mark %s\" data-ms=\"%d\"><title>%s at %d ms</title>", m.Class, m.AtMs, esc(m.Label), m.AtMs)
		switch m.Class {
		case "reply":
			fmt.Fprintf(&b, "<path d=\"M%.1f %.1f l6 6 l-6 6 l-6 -6 z\"/>", xm, yc-6)
			b.WriteString(markLabel(m.Label, xm, laneY(m.Lane)+svgLaneH+svgReplyRow-3, x1))
		case "lostreply":
			fmt.Fprintf(&b, "<path d=\"M%.1f %.1f l10 10 m0 -10 l-10 10\"/>", xm-5, yc-5)
			b.WriteString(markLabel(m.Label, xm, laneY(m.Lane)+svgLaneH+svgReplyRow-3, x1))
		case "lostread", "notissued":
			fmt.Fprintf(&b, "<path d=\"M%.1f %.1f l4 -7 l4 7 z\"/>", xm-4, yc+7)
		default:
			fmt.Fprintf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>", xm, yc-7)
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// markLabel places a mark's label at baseline y, starting just left of xm,
// or ending at xm when it would run past the plot's right edge xmax.
func markLabel(label string, xm, y, xmax float64) string {
	w := float64(len([]rune(label))) * charW
	if xm-4+w <= xmax+svgRight-4 {
		return fmt.Sprintf("<text x=\"%.1f\" y=\"%.1f\">%s</text>", xm-4, y, esc(label))
	}
	return fmt.Sprintf("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", xm+4, y, esc(label))
}

// tickStep picks 1, 2 or 5 × 10^k ms so that about 6 to 12 ticks cover endMs.
func tickStep(endMs int64) int64 {
	step := int64(1)
	for {
		for _, m := range []int64{1, 2, 5} {
			if endMs/(step*m) <= 12 {
				return step * m
			}
		}
		step *= 10
	}
}

const legendSVG = `<svg class="legend" width="1160" height="24" viewBox="0 0 1160 24" role="img">
<g class="span call"><rect x="4" y="5" width="22" height="14" rx="2"/></g><text x="30" y="16">caller call</text>
<g class="span lost"><rect x="110" y="5" width="22" height="14" rx="2"/></g><text x="136" y="16">lost call</text>
<g class="span toolcall"><rect x="206" y="5" width="22" height="14" rx="2"/></g><text x="232" y="16">tool call</text>
<g class="span sleep"><rect x="300" y="15" width="22" height="4"/></g><text x="326" y="16">poll sleep</text>
<g class="span reserve"><rect x="400" y="3" width="22" height="18"/></g><text x="426" y="16">read reserve</text>
<g class="span list"><rect x="510" y="5" width="22" height="14" rx="2"/></g><text x="536" y="16">list</text>
<g class="span read"><rect x="570" y="5" width="22" height="14" rx="2"/></g><text x="596" y="16">output read</text>
<g class="span failed"><rect x="680" y="5" width="22" height="14" rx="2"/></g><text x="706" y="16">failed read</text>
<g class="span hold"><rect x="786" y="5" width="22" height="14" rx="2"/></g><text x="812" y="16">other requester</text>
<g class="span active"><rect x="916" y="5" width="22" height="14" rx="2"/></g><text x="942" y="16">agent active</text>
<g class="span terminal"><rect x="1030" y="5" width="22" height="14" rx="2"/></g><text x="1056" y="16">agent terminal</text>
</svg>
`

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
			esc(mu.SuggestedFile), esc(mu.Suggested))
	case mu.SuggestNote != "":
		return fmt.Sprintf("<p class=\"suggested\">No case suggested: %s</p>", esc(mu.SuggestNote))
	}
	return ""
}
