// Package text is how a report writes text that comes from scenario files,
// catalog entries and result files: escaped for HTML (HTML) and for
// Markdown (Code, Cell, CodeCell), on one line (OneLine), a commit
// abbreviated (Short), a count with its noun (Count), and a recorded
// re-run line printed only when it is one plain shell command
// (PasteLine).
//
// Rules:
//   - Every function is pure and deterministic: no I/O, no clock, no state.
//   - Text it escapes reads as what it says and does nothing else in the
//     format it is escaped for: no tag, link, emphasis or table cell's end
//     in Markdown, no markup in HTML, no second command in a shell.
//   - It imports nothing of waitsim but results (re-quoting a command line,
//     results.Command).
//   - It starts no goroutine (reports/racefree_test.go keeps it so).
package text
