package results

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// tableColumnMax is the widest each of PrintTable's first three columns
// (VERDICT, CASE, RESOLVES AT) is padded to, in characters: 80 of a line
// with their gaps, whatever the ids (a matrix case's id runs to 90).
var tableColumnMax = [3]int{7, 44, 23}

// PrintTable writes the result table people read: one row per case — verdict,
// case id, when each call resolved (virtual ms), the key fields of each reply —
// then, for each failure, its report, and a closing count line
// "N passed, N failed".
func PrintTable(w io.Writer, res RunResult) {
	cases := append([]CaseResult(nil), res.Cases...)
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	rows := [][4]string{{"VERDICT", "CASE", "RESOLVES AT (ms)", "REPLY"}}
	for _, c := range cases {
		var at, keys []string
		for _, call := range c.Calls {
			who := fmt.Sprintf("%s#%d", call.Caller, call.Index)
			if len(c.Calls) == 1 {
				who = ""
			} else {
				who += "@"
			}
			switch {
			case call.Lost:
				at = append(at, fmt.Sprintf("%s%d LOST", who, call.EndMs))
			default:
				at = append(at, fmt.Sprintf("%s%d", who, call.EndMs))
			}
		}
		if len(at) > 4 {
			at = append(at[:2], fmt.Sprintf("… %d calls … %s", len(c.Calls), at[len(at)-1]))
		}
		if n := len(c.Calls); n > 0 {
			keys = replyKeys(c.Calls[n-1])
		}
		if c.Error != "" {
			// Its first line: the whole of it (a watchdog's goroutine
			// stacks) is the failure report's, below the table.
			first, _, _ := strings.Cut(c.Error, "\n")
			keys = append(keys, "error: "+first)
		}
		if len(at) == 0 {
			at = []string{"-"}
		}
		rows = append(rows, [4]string{strings.ToUpper(c.Verdict), c.ID, strings.Join(at, ", "), strings.Join(keys, " ")})
	}
	// Each column is as wide as its widest cell, up to tableColumnMax
	// characters: a longer cell overflows into its row alone, and the
	// other rows keep a table that fits a terminal.
	var width [3]int
	for _, r := range rows {
		for i := range width {
			width[i] = max(width[i], min(utf8.RuneCountInString(r[i]), tableColumnMax[i]))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i := range width {
			b.WriteString(r[i])
			b.WriteString(strings.Repeat(" ", max(width[i]-utf8.RuneCountInString(r[i]), 0)+2))
		}
		b.WriteString(r[3])
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	for _, c := range cases {
		if c.Verdict != VerdictPass {
			fmt.Fprintf(w, "\n--- %s %s\n%s", strings.ToUpper(c.Verdict), c.ID, FailureReport(c))
		}
	}
	if res.Skipped > 0 {
		fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", res.Passed, res.Failed+res.Errors, res.Skipped)
		return
	}
	fmt.Fprintf(w, "\n%d passed, %d failed\n", res.Passed, res.Failed+res.Errors)
}

// replyKeysShown is how many of a reply's fields the table's REPLY column
// shows.
const replyKeysShown = 5

// replyKeys renders the key reply fields of a call: its Brief (the pack's
// choice), or the reply's fields, flags and times first.
func replyKeys(c CallSummary) []string {
	switch {
	case c.Lost:
		return []string{"(lost)"}
	case c.IsError:
		return []string{"(error result)"}
	case c.Reply == nil:
		return nil
	case c.Brief != "":
		return []string{c.Brief}
	}
	// The fields a deadline tool's reader looks for first: flags, then
	// times (a key ending in "Ms": remainingMs, elapsedMs), then other
	// scalars, then the rest; each group in key order, replyKeysShown in all.
	rank := func(k string) int {
		switch v := c.Reply[k].(type) {
		case bool:
			return 0
		case float64:
			if strings.HasSuffix(k, "Ms") {
				return 1
			}
			return 2
		case string:
			if len(v) <= 24 {
				return 2
			}
		}
		return 3
	}
	keys := make([]string, 0, len(c.Reply))
	for k := range c.Reply {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if ri, rj := rank(keys[i]), rank(keys[j]); ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	var out []string
	for i, k := range keys {
		if i == replyKeysShown {
			out = append(out, fmt.Sprintf("… %d more", len(keys)-i))
			break
		}
		switch v := c.Reply[k].(type) {
		case bool, float64:
			out = append(out, fmt.Sprintf("%s=%v", k, v))
		case string:
			if len(v) <= 24 {
				out = append(out, fmt.Sprintf("%s=%q", k, v))
				continue
			}
			out = append(out, k)
		default:
			out = append(out, k)
		}
	}
	return out
}
