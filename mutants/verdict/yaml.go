package verdict

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/waitsim/waitsim/results"
)

// ProblemList is the problems of a file-checking error (CatalogError,
// AcceptedError): at most MaxProblems of them, each one line, and how many
// more there were.
type ProblemList struct {
	Problems []string
	More     int
}

// Add records problems, keeping at most MaxProblems.
func (l *ProblemList) Add(problems ...string) {
	for _, p := range problems {
		if len(l.Problems) < MaxProblems {
			l.Problems = append(l.Problems, results.SingleLine(p))
		} else {
			l.More++
		}
	}
}

// Text is the problems as an error message about what (e.g. "the mutation
// catalog"): the count, then one problem a line, then how many more.
func (l *ProblemList) Text(what string) string {
	s := fmt.Sprintf("%d problem(s) in %s; nothing ran:\n  %s", len(l.Problems)+l.More, what, strings.Join(l.Problems, "\n  "))
	if l.More > 0 {
		s += fmt.Sprintf("\n  … and %d more", l.More)
	}
	return s
}

// MaxProblems bounds the problems a file's error lists (a catalog entry's
// CatalogError, the accepted file's AcceptedError); each counts how many
// more there were.
const MaxProblems = 100

// EntryPairs returns the key/value pairs of a catalog entry's mapping.
func EntryPairs(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch m := n.(type) {
	case *ast.MappingNode:
		return m.Values, len(m.Values) > 0
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	}
	return nil, false
}

// StringValue is the text of a string scalar or a block scalar (| or >).
func StringValue(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	}
	return "", false
}

// FileProblems collects the problems of one file read by the runner (a
// catalog entry, the accepted file), each as one line
// "file:line:column: field: message", for List in the order of the file.
type FileProblems struct {
	rel   string
	found []fileProblem
}

type fileProblem struct {
	line, col int
	text      string
}

// NewFileProblems collects the problems of the file named rel.
func NewFileProblems(rel string) *FileProblems { return &FileProblems{rel: rel} }

// Add records a problem at line and column (1-based) in field.
func (p *FileProblems) Add(line, col int, field, format string, args ...any) {
	p.found = append(p.found, fileProblem{line, col, results.SingleLine(fmt.Sprintf("%s:%d:%d: %s: %s", p.rel, line, col, field, fmt.Sprintf(format, args...)))})
}

// At records a problem at node n's place.
func (p *FileProblems) At(n ast.Node, field, format string, args ...any) {
	tk := n.GetToken()
	p.Add(tk.Position.Line, tk.Position.Column, field, format, args...)
}

// YAMLError records a parse error of the go-yaml parser at its token's
// place (the field "yaml"), or at 1:1 when it has none.
func (p *FileProblems) YAMLError(err error) {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil {
		tk := ye.GetToken()
		p.Add(tk.Position.Line, tk.Position.Column, "yaml", "%s", ye.GetMessage())
		return
	}
	p.Add(1, 1, "yaml", "%v", err)
}

// List is every problem recorded, in the order of the file.
func (p *FileProblems) List() []string {
	slices.SortStableFunc(p.found, func(a, b fileProblem) int {
		if a.line != b.line {
			return a.line - b.line
		}
		return a.col - b.col
	})
	var out []string
	for _, f := range p.found {
		out = append(out, f.text)
	}
	return out
}

// Len is how many problems were recorded.
func (p *FileProblems) Len() int { return len(p.found) }
