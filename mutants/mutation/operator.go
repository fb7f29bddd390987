package mutation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// OperatorSite is one operator mutant as gremlins enumerates it: a token of
// File (root-relative, slash-separated) at Line and Col (1-based; Col counts
// bytes, as go/token does) and a gremlins mutator type such as
// "CONDITIONALS_NEGATION". Covered is gremlins' own verdict on whether the
// mutated package's tests cover the token; the gate runs every site anyway,
// because its kill suite is the scenario table, not those tests.
type OperatorSite struct {
	File    string
	Line    int
	Col     int
	Type    string
	Covered bool
}

// ID is the mutant's stable id: "gremlins:<file>:<line>:<col>:<type>".
func (s OperatorSite) ID() string {
	return fmt.Sprintf("gremlins:%s:%d:%d:%s", s.File, s.Line, s.Col, s.Type)
}

// operatorSwaps is gremlins v0.6.0's table of token swaps by mutator type
// (internal/engine/mappings.go), restated so that a mutant's source, and so
// its diff, can be produced here from the file/line/column/type that
// gremlins reports.
var operatorSwaps = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR, token.LSS: token.GEQ, token.NEQ: token.EQL},
	"INCREMENT_DECREMENT":   {token.DEC: token.INC, token.INC: token.DEC},
	"INVERT_ASSIGNMENTS":    {token.ADD_ASSIGN: token.SUB_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN, token.REM_ASSIGN: token.REM_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN},
	"INVERT_BITWISE":        {token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL},
	"INVERT_BITWISE_ASSIGNMENTS": {token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN,
		token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN},
	"INVERT_LOGICAL":   {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":  {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	"INVERT_NEGATIVES": {token.SUB: token.ADD},
	"REMOVE_SELF_ASSIGNMENTS": {token.ADD_ASSIGN: token.ASSIGN, token.AND_ASSIGN: token.ASSIGN, token.AND_NOT_ASSIGN: token.ASSIGN,
		token.MUL_ASSIGN: token.ASSIGN, token.OR_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN, token.REM_ASSIGN: token.ASSIGN,
		token.SHL_ASSIGN: token.ASSIGN, token.SHR_ASSIGN: token.ASSIGN, token.SUB_ASSIGN: token.ASSIGN, token.XOR_ASSIGN: token.ASSIGN},
}

// MutateOperator returns src with the operator mutant of type typ applied
// at line:col: the token of the assignment, binary, branch, inc/dec or unary
// node there (the nodes gremlins mutates) swapped for its replacement, and a
// short description such as "< → >=". It parses src with go/parser and
// checks the token's bytes before splicing, so the rest of the file is
// byte-identical. Errors: the file does not parse, no such node, or the
// type does not apply to the token there.
func MutateOperator(filename string, src []byte, line, col int, typ string) ([]byte, string, error) {
	swaps, ok := operatorSwaps[typ]
	if !ok {
		return nil, "", fmt.Errorf("unknown gremlins mutator type %q", typ)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, "", err
	}
	var tok token.Token
	var pos token.Pos
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if found || n == nil {
			return false
		}
		var t token.Token
		var p token.Pos
		switch n := n.(type) {
		case *ast.AssignStmt:
			t, p = n.Tok, n.TokPos
		case *ast.BinaryExpr:
			t, p = n.Op, n.OpPos
		case *ast.BranchStmt:
			t, p = n.Tok, n.TokPos
		case *ast.IncDecStmt:
			t, p = n.Tok, n.TokPos
		case *ast.UnaryExpr:
			t, p = n.Op, n.OpPos
		default:
			return true
		}
		if ps := fset.Position(p); ps.Line == line && ps.Column == col {
			if _, ok := swaps[t]; ok {
				tok, pos, found = t, p, true
				return false
			}
		}
		return true
	})
	if !found {
		return nil, "", fmt.Errorf("%s:%d:%d: no token that %s mutates", filename, line, col, typ)
	}
	off := fset.Position(pos).Offset
	old, repl := tok.String(), swaps[tok].String()
	if !bytes.HasPrefix(src[off:], []byte(old)) {
		return nil, "", fmt.Errorf("%s:%d:%d: the source does not read %q", filename, line, col, old)
	}
	out := make([]byte, 0, len(src)+len(repl)-len(old))
	out = append(out, src[:off]...)
	out = append(out, repl...)
	out = append(out, src[off+len(old):]...)
	return out, old + " → " + repl, nil
}

// gremlinsOutput is the part of gremlins' --output JSON that is read here.
type gremlinsOutput struct {
	Files []struct {
		FileName  string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// ParseGremlinsOutput reads gremlins' --output JSON. Its file names are
// relative to the directory gremlins was pointed at (targetDir, relative to
// the module root); the sites returned are root-relative and sorted by file,
// line, column and type. status maps each site's id to gremlins' status
// ("RUNNABLE", "NOT COVERED", "KILLED", "LIVED", "NOT VIABLE", "TIMED OUT").
func ParseGremlinsOutput(b []byte, targetDir string) (sites []OperatorSite, status map[string]string, err error) {
	var out gremlinsOutput
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, nil, fmt.Errorf("gremlins output: %w", err)
	}
	dir := path.Clean(strings.TrimPrefix(filepath.ToSlash(targetDir), "./"))
	status = map[string]string{}
	for _, f := range out.Files {
		for _, m := range f.Mutations {
			s := OperatorSite{File: path.Join(dir, filepath.ToSlash(f.FileName)), Line: m.Line, Col: m.Column, Type: m.Type,
				Covered: m.Status != "NOT COVERED"}
			sites = append(sites, s)
			status[s.ID()] = m.Status
		}
	}
	sort.Slice(sites, func(i, j int) bool {
		a, b := sites[i], sites[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Type < b.Type
	})
	return sites, status, nil
}
