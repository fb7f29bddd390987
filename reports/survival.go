package reports

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"
)

// SurvivalRow is one line of the survival matrix (contract §6): every call of
// the scenario results with the same tool cap, progress token, transport
// mode, proxy idle timeout and client profile, and how many of their replies
// survived (reached the caller) or were lost, with what lost them.
type SurvivalRow struct {
	CapMs    int64          `json:"capMs"`
	Progress bool           `json:"progress"`
	Mode     string         `json:"mode"`
	ProxyMs  int64          `json:"proxyMs"` // 0: no proxy
	Profile  string         `json:"profile"` // "": the caller's own knobs
	Survived int            `json:"survived"`
	Lost     int            `json:"lost"`
	LostBy   map[string]int `json:"lostBy,omitempty"` // cause → calls
}

// Survival computes the survival matrix from scenario results: one row per
// combination that occurs, in the order cap, mode, proxy, profile, progress.
// A call with an error result counts as survived (its reply reached the
// caller). Results without wire dimensions (older runs) give no rows.
func Survival(s *results.RunResult) []SurvivalRow {
	if s == nil {
		return nil
	}
	type key struct {
		capMs, proxy  int64
		progress      bool
		mode, profile string
	}
	rows := map[key]*SurvivalRow{}
	for _, c := range s.Cases {
		for _, call := range c.Calls {
			d := call.Wire
			if d == nil {
				continue
			}
			k := key{d.CapMs, d.ProxyMs, d.Progress, d.Mode, d.Profile}
			r := rows[k]
			if r == nil {
				r = &SurvivalRow{CapMs: d.CapMs, Progress: d.Progress, Mode: d.Mode, ProxyMs: d.ProxyMs, Profile: d.Profile}
				rows[k] = r
			}
			if !call.Lost {
				r.Survived++
				continue
			}
			r.Lost++
			if r.LostBy == nil {
				r.LostBy = map[string]int{}
			}
			r.LostBy[lossCause(call.LostBy)]++
		}
	}
	out := make([]SurvivalRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	modeRank := map[string]int{"memory": 0, "sse": 1, "json": 2, "stateless-sse": 3, "stateless-json": 4}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.CapMs != b.CapMs:
			return a.CapMs < b.CapMs
		case a.Mode != b.Mode:
			return modeRank[a.Mode] < modeRank[b.Mode]
		case a.ProxyMs != b.ProxyMs:
			return a.ProxyMs < b.ProxyMs
		case a.Profile != b.Profile:
			return a.Profile < b.Profile
		}
		return !a.Progress && b.Progress
	})
	return out
}

// lossCause shortens a CallSummary.LostBy to its kind: "request timeout",
// "proxy idle timeout", "server write timeout", "connection dropped",
// "session failed" (or the text itself when it is none of these).
func lossCause(lostBy string) string {
	for _, k := range []string{"request timeout", "proxy idle timeout", "server write timeout", "connection dropped", "session failed"} {
		if strings.HasPrefix(lostBy, k) {
			return k
		}
	}
	if lostBy == "" {
		return "lost"
	}
	return lostBy
}

func (r SurvivalRow) cells() []string {
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
	return []string{fmt.Sprintf("%d ms", r.CapMs), progress, r.Mode, proxy, profile, verdict,
		fmt.Sprint(r.Survived), fmt.Sprint(r.Lost), strings.Join(causes, ", ")}
}

var survivalHeader = []string{"cap", "progress", "mode", "proxy", "profile", "replies", "survived", "lost", "lost by"}

// survivalMarkdown writes the survival matrix as a Markdown table, when any
// call went through streamable HTTP or had a profile (a memory-only table
// without profiles says nothing the scenario counts do not).
func survivalMarkdown(b *mdBuilder, s *results.RunResult) {
	rows := Survival(s)
	if !interesting(rows) {
		return
	}
	b.line("<details><summary>Survival matrix (%d combinations): which replies reach the caller, by the tool's cap, progress, transport mode, proxy idle timeout and client profile (contract §6), counted over every call of the scenario results</summary>", len(rows))
	b.blank()
	b.line("| %s |", strings.Join(survivalHeader, " | "))
	b.line("|%s", strings.Repeat("---|", len(survivalHeader)))
	for _, r := range rows {
		cells := r.cells()
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
	rows := Survival(s)
	if !interesting(rows) {
		return
	}
	fmt.Fprintf(b, "<h2 id=\"survival\">Survival matrix (%d combinations)</h2>\n", len(rows))
	b.WriteString("<p class=\"note\">Which replies reach the caller, by the tool's cap, progress, transport mode, proxy idle timeout and client profile (contract §6), counted over every call of the scenario results.</p>\n")
	b.WriteString("<table class=\"cases survival\">\n<thead><tr>")
	for _, h := range survivalHeader {
		fmt.Fprintf(b, "<th>%s</th>", text.HTML(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		cells := r.cells()
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

// interesting reports whether rows hold a call over HTTP or with a profile.
func interesting(rows []SurvivalRow) bool {
	for _, r := range rows {
		if r.Mode != "memory" || r.Profile != "" || r.CapMs != 30000 {
			return true
		}
	}
	return false
}
