package verdict

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
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

// ListSpec is the shape of a committed list file (the accepted survivors,
// the equivalents): a YAML list whose every entry is a mapping of exactly
// Fields, each a non-empty one-line string, no two entries of one Key.
type ListSpec struct {
	// Name is the list in problems' fields: "accepted" gives
	// accepted[0].id.
	Name   string
	Fields []string
	// Key is the field no two entries may share.
	Key string
	// Empty is the message for an empty value of a field (default
	// "empty").
	Empty map[string]string
	// Dup is the message for a repeated Key: %q the value, %d the entry
	// that has it already.
	Dup string
	// Check returns what is wrong with a non-empty one-line value of field,
	// or "".
	Check func(field, value string) string
}

// ListEntry is one entry of a list file: the line of its first key and its
// values (trimmed), by field.
type ListEntry struct {
	Line   int
	Values map[string]string
}

// fieldList is "id and reason", "id, source and reason".
func fieldList(fields []string) string {
	if len(fields) < 2 {
		return strings.Join(fields, "")
	}
	return strings.Join(fields[:len(fields)-1], ", ") + " and " + fields[len(fields)-1]
}

// ParseList parses src (the file named rel) as a list file of spec: its
// entries, or every problem of it in file order as "rel:line:column:
// field: message" (field as Name[i].field). An empty file (nothing, a
// comment, ~ or []) is no entries. A value must be a string scalar: a
// number, a boolean, a list or a mapping is refused, never read as text.
func ParseList(rel string, src []byte, spec ListSpec) ([]ListEntry, []string) {
	fp := NewFileProblems(rel)
	at, problems := fp.At, fp.List
	fields := fieldList(spec.Fields)
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		fp.YAMLError(err)
		return nil, problems()
	}
	if len(f.Docs) > 1 {
		at(f.Docs[1], "yaml", "one document only: a list of entries, each with %s", fields)
		return nil, problems()
	}
	var body ast.Node
	if len(f.Docs) == 1 {
		body = f.Docs[0].Body
	}
	if c, ok := body.(*ast.CommentGroupNode); ok && c != nil {
		body = nil
	}
	out := []ListEntry{}
	var items []ast.Node
	switch b := body.(type) {
	case nil, *ast.NullNode:
		return out, nil
	case *ast.SequenceNode:
		items = b.Values
	default:
		at(b, spec.Name, "want a list of entries, each a mapping of %s", fields)
		return nil, problems()
	}
	seen := map[string]int{}
	for i, item := range items {
		field := fmt.Sprintf("%s[%d]", spec.Name, i)
		pairs, ok := EntryPairs(item)
		if !ok {
			at(item, field, "want a mapping of %s", fields)
			continue
		}
		e := ListEntry{Line: pairs[0].Key.GetToken().Position.Line, Values: map[string]string{}}
		given := map[string]bool{}
		for _, kv := range pairs {
			key := kv.Key.String()
			if !slices.Contains(spec.Fields, key) {
				at(kv.Key, field+"."+key, "unknown field (an entry has %s)", fields)
				continue
			}
			if given[key] {
				at(kv.Key, field+"."+key, "given twice")
				continue
			}
			given[key] = true
			v, isString := StringValue(kv.Value)
			if _, null := kv.Value.(*ast.NullNode); null {
				v, isString = "", true
				kv.Value = kv.Key // placed at the key: a null value has no place of its own
			}
			if !isString {
				at(kv.Value, field+"."+key, "want a string")
				continue
			}
			v = strings.TrimSpace(v)
			switch {
			case v == "" && spec.Empty[key] != "":
				at(kv.Value, field+"."+key, "%s", spec.Empty[key])
			case v == "":
				at(kv.Value, field+"."+key, "empty")
			case strings.ContainsAny(v, "\r\n"):
				at(kv.Value, field+"."+key, "must be one line")
			case spec.Check != nil && spec.Check(key, v) != "":
				at(kv.Value, field+"."+key, "%s", spec.Check(key, v))
			default:
				if key == spec.Key {
					if j, dup := seen[v]; dup {
						at(kv.Value, field+"."+key, spec.Dup, v, j)
						continue
					}
					seen[v] = i
				}
				e.Values[key] = v
			}
		}
		for _, k := range spec.Fields {
			if !given[k] {
				at(pairs[0].Key, field+"."+k, "required field is missing (an entry has %s)", fields)
			}
		}
		if len(e.Values) == len(spec.Fields) {
			out = append(out, e)
		}
	}
	if fp.Len() > 0 {
		return nil, problems()
	}
	return out, nil
}
