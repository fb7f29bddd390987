package verdict

import "github.com/goccy/go-yaml/ast"

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
