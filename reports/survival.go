package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/waitsim/waitsim/reports/model"
	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"
)

func survivalCells(r model.SurvivalRow) []string {
	proxy, profile, progress := "none", r.Profile, "no"
	if r.ProxyMs > 0 {
		proxy = fmt.Sprintf("%d ms", r.ProxyMs)
	}
	if profile == "" {
		profile = "—"
	}
	if r.Progress {
		progress = "yes"
	}
	var causes []string
	for _, k := range slices.Sorted(maps.Keys(r.LostBy)) {
		causes = append(causes, fmt.Sprintf("%s ×%d", k, r.LostBy[k]))
	}
	verdict := "survived"
	switch {
	case r.Lost > 0 && r.Survived == 0:
		verdict = "lost"
	case r.Lost > 0:
		verdict = "mixed"
	}
	capMs := "—" // a tool of one's own: no cap the results know
	if r.CapMs > 0 {
		capMs = fmt.Sprintf("%d ms", r.CapMs)
	}
	return []string{capMs, progress, r.Mode, proxy, profile, verdict,
		fmt.Sprint(r.Survived), fmt.Sprint(r.Lost), strings.Join(causes, ", ")}
}

var survivalHeader = []string{"cap", "progress", "mode", "proxy", "profile", "replies", "survived", "lost", "lost by"}

// survivalMarkdown writes the survival matrix as a Markdown table, when any
// call went through streamable HTTP or had a profile (a memory-only table
// without profiles says nothing the scenario counts do not).
func survivalMarkdown(b *mdBuilder, s *results.RunResult) {
	rows := model.Survival(s)
	if !interesting(rows) {
		return
	}
	b.line("<details><summary>Survival matrix (%d combinations): which replies reach the caller, by %s, counted over every call of the scenario results%s</summary>", len(rows), survivalDims(s), survivalRef(s))
	b.blank()
	b.line("| %s |", strings.Join(survivalHeader, " | "))
	b.line("|%s", strings.Repeat("---|", len(survivalHeader)))
	for _, r := range rows {
		cells := survivalCells(r)
		for i := range cells {
			cells[i] = text.Cell(cells[i]) // a profile, mode or loss cause comes from the results
		}
		b.line("| %s |", strings.Join(cells, " | "))
	}
	b.blank()
	b.line("</details>")
	b.blank()
}

// survivalHTML writes the survival matrix as an HTML table (see
// survivalMarkdown).
func survivalHTML(b *strings.Builder, s *results.RunResult) {
	rows := model.Survival(s)
	if !interesting(rows) {
		return
	}
	fmt.Fprintf(b, "<h2 id=\"survival\">Survival matrix (%d combinations)</h2>\n", len(rows))
	fmt.Fprintf(b, "<p class=\"note\">Which replies reach the caller, by %s, counted over every call of the scenario results%s.</p>\n", survivalDims(s), survivalRef(s))
	b.WriteString("<table class=\"cases survival\">\n<thead><tr>")
	for _, h := range survivalHeader {
		fmt.Fprintf(b, "<th>%s</th>", text.HTML(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		cells := survivalCells(r)
		b.WriteString("<tr>")
		for i, c := range cells {
			if i == 5 {
				cls := map[string]string{"survived": "pass", "lost": "fail", "mixed": "error"}[c]
				fmt.Fprintf(b, "<td><span class=\"badge %s\">%s</span></td>", cls, text.HTML(c))
				continue
			}
			fmt.Fprintf(b, "<td>%s</td>", text.HTML(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}

// survivalDims names the matrix's dimensions: the cap only for the
// wait_agents pack (a tool of one's own has none the results know).
func survivalDims(s *results.RunResult) string {
	if generic(s) {
		return "progress, transport mode, proxy idle timeout and client profile"
	}
	return "the tool's cap, progress, transport mode, proxy idle timeout and client profile"
}

// survivalRef is where the matrix is defined, for the wait_agents pack.
func survivalRef(s *results.RunResult) string {
	if generic(s) {
		return ""
	}
	return " (contract §6)"
}

// interesting reports whether rows hold a call over HTTP, with a profile, or
// under a cap of the pack's other than its 30000 ms (0: a tool of one's own,
// whose cap the results do not know).
func interesting(rows []model.SurvivalRow) bool {
	for _, r := range rows {
		if r.Mode != "memory" || r.Profile != "" || (r.CapMs != 30000 && r.CapMs != 0) {
			return true
		}
	}
	return false
}
