package scenario

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/results"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// posError is a YAML error at a line:column.
type posError struct {
	line, col int
	field     string
	msg       string
}

func (e *posError) Error() string {
	return fmt.Sprintf("%d:%d: %s: %s", e.line, e.col, e.field, e.msg)
}

// nodeErr is a problem about node n, placed at its first character: a
// block mapping at its first key (the parser places it at that key's ':'),
// a flow mapping at its '{'.
func nodeErr(n ast.Node, field, format string, args ...any) error {
	e := &posError{field: field, msg: fmt.Sprintf(format, args...)}
	switch m := n.(type) {
	case *ast.MappingNode:
		if !m.IsFlowStyle && len(m.Values) > 0 {
			n = m.Values[0].Key
		}
	case *ast.MappingValueNode:
		n = m.Key
	}
	if n != nil && n.GetToken() != nil {
		e.line, e.col = n.GetToken().Position.Line, n.GetToken().Position.Column
	}
	return e
}

// yamlProblem is the problem of file that err (a *posError, or a YAML
// library error) describes.
func yamlProblem(file string, err error) results.Problem {
	var pe *posError
	if errors.As(err, &pe) {
		return results.Problem{File: file, Line: pe.line, Column: pe.col, Field: pe.field, Message: pe.msg}
	}
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil {
		tk := ye.GetToken()
		msg := ye.GetMessage()
		var se *yaml.SyntaxError
		if errors.As(err, &se) && strings.Contains(lineOf(file, tk.Position.Line), "${") {
			msg += ` (inside a flow {…} or […], quote placeholders: "${x}")`
		}
		if strings.Contains(msg, "'\t'") {
			// The parser quotes the tab itself: name it.
			msg = strings.Replace(msg, "character '\t'", `a tab ('\t')`, 1) + ": indent with spaces, YAML allows no tab there"
		}
		return results.Problem{File: file, Line: tk.Position.Line, Column: tk.Position.Column, Field: "yaml", Message: msg}
	}
	return results.Problem{File: file, Field: "yaml", Message: err.Error()}
}

// tokenPath is the path of the node whose token is tk inside the scenario
// file's body root, as the loader's problems name fields
// (callers[0].args.timeoutMs): the scenario's index in a list of
// scenarios is left out, since the problem's line places it. "yaml" when tk
// is the token of no value under a key.
func tokenPath(root ast.Node, tk *token.Token) string {
	var find func(n ast.Node, path string) string
	find = func(n ast.Node, path string) string {
		switch x := n.(type) {
		case *ast.MappingNode:
			for _, kv := range x.Values {
				if p := find(kv, path); p != "" {
					return p
				}
			}
		case *ast.MappingValueNode:
			return find(x.Value, join(path, x.Key.String()))
		case *ast.SequenceNode:
			for i, v := range x.Values {
				if p := find(v, fmt.Sprintf("%s[%d]", path, i)); p != "" {
					return p
				}
			}
		case *ast.TagNode:
			return find(x.Value, path)
		default:
			if n.GetToken() == tk {
				return path
			}
		}
		return ""
	}
	scenarios := []ast.Node{root}
	if s, ok := root.(*ast.SequenceNode); ok {
		scenarios = s.Values
	}
	for _, sc := range scenarios {
		if p := find(sc, ""); p != "" {
			return p
		}
	}
	return "yaml"
}

// lineOf returns line n (1-based) of file, or "".
func lineOf(file string, n int) string {
	text, err := limits.Read(file, limits.Scenario)
	if err != nil {
		return ""
	}
	lines := limits.SplitLines(string(text.Src))
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// parseFile parses src into its single document body. (Anchors and aliases
// were refused before the parse, by limits.Check: they are not needed, and
// expanding them can make a small file huge.) An integer is written in
// decimal digits, and one too large for 64 bits, which the parser leaves a
// string, is named as out of range.
func parseFile(src []byte) (ast.Node, error) {
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		return nil, err
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d.Body != nil {
			docs = append(docs, d)
		}
	}
	switch {
	case len(docs) == 0:
		return nil, &posError{line: 1, col: 1, field: "file", msg: "holds no scenario (empty, or only comments)"}
	case len(docs) > 1:
		return nil, nodeErr(docs[1].Body, "file", "holds %d YAML documents; want one (a scenario or a list of scenarios)", len(docs))
	}
	var bad error
	ast.Walk(visitFunc(func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StringNode:
			// In args the tool's input schema names it (argNumbers).
			if tk := n.GetToken(); bad == nil && tk != nil && tk.Type == token.StringType && outOfRange(tk.Value) {
				if path := tokenPath(docs[0].Body, tk); !inArgs(path) {
					bad = nodeErr(n, path, "integer %s is out of range: it does not fit in 64 bits, and no integer of a scenario file is above %d (quote it if it is text; docs/scenarios.md: Numbers)", tk.Value, MaxMs)
				}
			}
		case *ast.IntegerNode:
			if tk := n.GetToken(); bad == nil && tk != nil && !decimalInt.MatchString(tk.Value) {
				bad = nodeErr(n, tokenPath(docs[0].Body, tk), "integer %s: write integers as plain decimal digits with an optional minus sign (16, 1000, -5): no 0x, 0o, 0b, _, + or leading zeros (docs/scenarios.md: Numbers)", tk.Value)
			}
		}
		return bad == nil
	}), docs[0].Body)
	if bad != nil {
		return nil, bad
	}
	return docs[0].Body, nil
}

// outOfRange reports whether a plain scalar is an integer YAML reads but
// 64 bits cannot hold (the parser then leaves it a string).
func outOfRange(v string) bool {
	_, err := strconv.ParseInt(v, 0, 64)
	return errors.Is(err, strconv.ErrRange)
}

// inArgs reports whether the field path is inside a caller's args.
func inArgs(path string) bool {
	return strings.HasPrefix(path, "callers[") && strings.Contains(path, "].args")
}

// visitFunc adapts a function to ast.Visitor.
type visitFunc func(ast.Node) bool

func (f visitFunc) Visit(n ast.Node) ast.Visitor {
	if f(n) {
		return f
	}
	return nil
}

// scenarioNodes parses src once and returns its scenarios: the one mapping
// it holds, or the entries of the list of scenarios it holds.
func scenarioNodes(src []byte) ([]ast.Node, error) {
	body, err := parseFile(src)
	if err != nil {
		return nil, err
	}
	switch b := body.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return []ast.Node{body}, nil
	case *ast.SequenceNode:
		if len(b.Values) == 0 {
			return nil, nodeErr(b, "scenarios", "an empty list of scenarios")
		}
		return b.Values, nil
	}
	return nil, nodeErr(body, "scenario", "want a scenario (a mapping) or a list of scenarios")
}

// child returns the value node of key in mapping n, or nil.
func child(n ast.Node, key string) ast.Node {
	var pairs []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		pairs = m.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{m}
	}
	for _, p := range pairs {
		if p.Key.String() == key {
			return p.Value
		}
	}
	return nil
}

// locate walks n by keys (string) and indexes (int) as far as it can and
// returns the deepest node found.
func locate(n ast.Node, path ...any) ast.Node {
	cur := n
	for _, p := range path {
		var next ast.Node
		switch k := p.(type) {
		case string:
			next = child(cur, k)
		case int:
			if s, ok := cur.(*ast.SequenceNode); ok && k < len(s.Values) {
				next = s.Values[k]
			}
		}
		if next == nil {
			return cur
		}
		cur = next
	}
	return cur
}
