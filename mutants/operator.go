package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"
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

// runGremlins runs gremlins unleash (workspace.GremlinsArgs) on the target directory with
// output to a JSON file in tmp, dry (enumerate only) or not (gremlins' own
// campaign). Its temporary copies of the module go to tmp (TMPDIR), and its
// test cache trap is defeated with GOFLAGS=-count=1: a cached coverage run
// would otherwise give it a near-zero timeout baseline. It returns the JSON,
// the wall time and gremlins' exit code (10/11 are its thresholds).
func (r *runner) runGremlins(ctx context.Context, dry bool) ([]byte, time.Duration, int, error) {
	out := filepath.Join(r.tmp, fmt.Sprintf("gremlins-%v.json", dry))
	args := append(workspace.GremlinsArgs(r.cfg.Root), "unleash", "--output", out)
	if dry {
		args = append(args, "--dry-run")
	} else {
		// Its timeout is 3 × the coverage run, which finds its build in
		// the cache, while every mutant rebuilds: with the default almost
		// every mutant "times out". 15 was measured to leave none so.
		args = append(args, "--workers", fmt.Sprint(r.cfg.Workers), "--timeout-coefficient", "15")
	}
	args = append(args, r.cfg.Target)
	gtmp := filepath.Join(r.tmp, "gremlins-tmp")
	if err := os.MkdirAll(gtmp, 0o755); err != nil {
		return nil, 0, 0, err
	}
	cmd := r.command(ctx, r.cfg.Root, "go", args...)
	env := append([]string{}, cmd.Env...)
	env = append(env, "TMPDIR="+gtmp)
	if !dry {
		env = append(env, "GOFLAGS="+strings.TrimSpace(r.goflags+" -count=1"))
	}
	cmd.Env = env
	start := time.Now()
	b, err := cmd.CombinedOutput()
	wall := time.Since(start)
	code := 0
	if err != nil {
		if ctx.Err() != nil {
			return nil, wall, 0, ctx.Err()
		}
		code = exitCode(err)
		if dry || code != 10 && code != 11 {
			return nil, wall, code, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, tail(string(b), 2000))
		}
	}
	j, err := limits.Read(out, limits.Results)
	if err != nil {
		return nil, wall, code, fmt.Errorf("gremlins wrote no output: %v\n%s", limitsError(out, err), tail(string(b), 2000))
	}
	return j.Src, wall, code, nil
}

// measureGremlins runs gremlins' own campaign on the target (after the
// gate's, so that the two do not share the CPU) and compares its verdicts
// with res's operator mutants: a mutant gremlins counts KILLED that the gate
// found not viable is gremlins' known fault (it counts a mutant that does not
// compile as killed).
func (r *runner) measureGremlins(ctx context.Context, res *verdict.Result) (*verdict.GremlinsRun, error) {
	b, wall, code, err := r.runGremlins(ctx, false)
	if err != nil {
		return nil, err
	}
	_, status, err := ParseGremlinsOutput(b, r.cfg.Target)
	if err != nil {
		return nil, err
	}
	g := &verdict.GremlinsRun{WallMs: wall.Milliseconds(), Statuses: map[string]int{}, ExitCode: code}
	for _, st := range status {
		g.Statuses[st]++
		switch st {
		case "KILLED", "LIVED", "NOT VIABLE", "TIMED OUT":
			g.Tested++
		}
	}
	if g.Tested > 0 {
		g.PerMutantMs = float64(g.WallMs) / float64(g.Tested)
	}
	for _, m := range res.Mutants {
		st, ok := status[m.ID]
		if !ok || m.Source != verdict.SourceGremlins {
			continue
		}
		switch {
		case st == "KILLED" && m.Status == verdict.StatusNotViable:
			g.Disagreements = append(g.Disagreements, m.ID+": gremlins KILLED, but it is not viable ("+verdict.FirstLine(m.Detail)+")")
		case st == "TIMED OUT" && m.Status != verdict.StatusTimedOut:
			g.Disagreements = append(g.Disagreements, m.ID+": gremlins TIMED OUT, the gate: "+m.Status)
		}
	}
	sort.Strings(g.Disagreements)
	return g, nil
}
