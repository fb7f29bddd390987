package results

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// PrintTable writes the result table people read: one row per case — verdict,
// case id, when each call resolved (virtual ms), the key fields of each reply —
// then, for each failure, its report, and a closing count line
// "N passed, N failed".
func PrintTable(w io.Writer, res RunResult) {
	cases := append([]CaseResult(nil), res.Cases...)
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERDICT\tCASE\tRESOLVES AT (ms)\tREPLY")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", strings.ToUpper(c.Verdict), c.ID, strings.Join(at, ", "), strings.Join(keys, " "))
	}
	tw.Flush()
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

// replyKeys renders the key reply fields of a call: its Brief (the pack's
// choice), or the reply's field names.
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
	keys := make([]string, 0, len(c.Reply))
	for k := range c.Reply {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for i, k := range keys {
		if i == 4 {
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
