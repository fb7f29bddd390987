package results

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Problem is one thing wrong in an input file, where it is: the file (as
// the reader was given it), the line and column (1-based; 0 when the
// problem is the whole file's), the field's path (e.g.
// "callers[0].args.timeoutMs", "file", "yaml") and what is wrong.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// String renders p on one line as "file:line:column: field: message", its
// control characters written as Go escapes (SingleLine).
func (p Problem) String() string {
	return SingleLine(fmt.Sprintf("%s:%d:%d: %s: %s", p.File, p.Line, p.Column, p.Field, p.Message))
}

// FileError is every problem found in a set of input files, in file order
// and, within a file, in (line, column) order.
type FileError struct{ Problems []Problem }

// Error lists the problems, one a line.
func (e *FileError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("%d problem(s) in the input files:\n  %s", len(e.Problems), strings.Join(lines, "\n  "))
}

// SingleLine writes the control characters of s (a newline inside a value
// pasted into a message, say) as Go escapes, so that a problem is always one
// line: one problem, one line, however its values read.
func SingleLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
