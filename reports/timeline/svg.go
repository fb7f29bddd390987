package timeline

import (
	"fmt"
	"strings"

	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"
)

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

// SVG draws the timeline picture of case c: one lane per caller, the tool
// (per caller), the bridge slot, each agent and, over HTTP, each caller's
// wire, on an axis of virtual ms. Text from the case is escaped
// (text.HTML); the picture is byte-stable.
func SVG(c *results.CaseResult) string { return timelineSVG(buildTimeline(c)) }

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
			l.Kind, text.HTML(l.Kind), text.HTML(l.Name), y, svgWidth, hs[i], y+svgLaneH/2+4, text.HTML(l.Label))
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
				s.Class, open, s.StartMs, s.EndMs, text.HTML(s.Title), xs, y, w, h)
			if s.Label != "" && s.Class != "sleep" && s.Class != "reserve" && w > float64(len([]rune(s.Label)))*charW+6 {
				fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", xs+3, laneY(s.Lane)+svgLaneH/2+4, text.HTML(s.Label))
			}
			b.WriteString("</g>\n")
		}
	}
	// Marks across every lane, labels in rows above.
	for i, m := range global {
		xm := x(m.AtMs)
		ly := float64(rowOf[i])*svgMarkRow + 11
		fmt.Fprintf(&b, "<g class=\"mark %s\" data-ms=\"%d\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text></g>\n",
			m.Class, m.AtMs, xm, ly+2, xm, lanesBottom, xm-2, ly, text.HTML(m.Label))
	}
	// Marks on one lane.
	for _, m := range tl.Marks {
		if m.Lane < 0 {
			continue
		}
		xm, yc := x(m.AtMs), laneY(m.Lane)+svgLaneH/2
		fmt.Fprintf(&b, "<g class=\"mark %s\" data-ms=\"%d\"><title>%s at %d ms</title>", m.Class, m.AtMs, text.HTML(m.Label), m.AtMs)
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
		return fmt.Sprintf("<text x=\"%.1f\" y=\"%.1f\">%s</text>", xm-4, y, text.HTML(label))
	}
	return fmt.Sprintf("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", xm+4, y, text.HTML(label))
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

// Legend is the key to a timeline picture's span colours, drawn once above
// a page's timelines.
const Legend = `<svg class="legend" width="1160" height="24" viewBox="0 0 1160 24" role="img">
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
