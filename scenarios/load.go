package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/waitsim/waitsim/waittool"
)

// Param is one matrix parameter of a case, in the order the file gives it.
type Param struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// Case is one scenario after matrix expansion, validated and ready to run.
type Case struct {
	ID       string   // name, or name[p1=v1,p2=v2]
	File     string   // the path as given to Load
	Line     int      // line of the scenario in File
	Protects string   // the file's "# protects:" line
	Params   []Param  // matrix values of this case
	Scenario Scenario // decoded, placeholders replaced
}

// FileError is every problem found in the scenario files, one per line as
// "file:line:column: field: message".
type FileError struct{ Problems []string }

func (e *FileError) Error() string {
	return fmt.Sprintf("%d problem(s) in the scenario files:\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// ProtectsPrefix opens the comment line every scenario file must have: one
// line that says what the file protects against.
const ProtectsPrefix = "# protects:"

// Expand lists the YAML files named by paths: files as given, directories
// walked for *.yaml and *.yml, in lexical order.
func Expand(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return slices.Compact(files), nil
}

// Load reads, expands and validates every scenario file named by paths (see
// Expand). Every file is validated before anything runs: on any problem it
// returns a *FileError listing all of them. Case ids must be unique.
func Load(paths []string) ([]Case, error) {
	files, err := Expand(paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no scenario files (*.yaml) under %s", strings.Join(paths, ", "))
	}
	var cases []Case
	var problems []string
	seen := map[string]string{}
	for _, f := range files {
		cs, errs := LoadFile(f)
		problems = append(problems, errs...)
		for _, c := range cs {
			where := fmt.Sprintf("%s:%d", c.File, c.Line)
			if prev, dup := seen[c.ID]; dup {
				problems = append(problems, fmt.Sprintf("%s:1: name: case id %q already defined at %s", where, c.ID, prev))
				continue
			}
			seen[c.ID] = where
			cases = append(cases, c)
		}
	}
	if len(problems) > 0 {
		return nil, &FileError{Problems: problems}
	}
	return cases, nil
}

// decimalInt is how an integer is written in a scenario file: the one rule
// for every number of the format (README: Numbers; issue 11 item 12).
var decimalInt = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

var placeholder = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// LoadFile loads one file; problems are "file:line:column: field: message",
// one line each (SingleLine), sorted by position in the file.
func LoadFile(file string) ([]Case, []string) {
	cases, problems := loadFile(file)
	for i, p := range problems {
		problems[i] = SingleLine(p)
	}
	slices.SortStableFunc(problems, func(a, b string) int {
		la, ca := problemPos(file, a)
		lb, cb := problemPos(file, b)
		if la != lb {
			return la - lb
		}
		return ca - cb
	})
	return cases, problems
}

// problemPos reads the line and column of a problem of file.
func problemPos(file, p string) (line, col int) {
	fmt.Sscanf(strings.TrimPrefix(p, file+":"), "%d:%d:", &line, &col)
	return line, col
}

func loadFile(file string) ([]Case, []string) {
	src, err := readLimited(file)
	var pe *posError
	if errors.As(err, &pe) {
		return nil, []string{yamlProblem(file, err)}
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("%s:0:0: file: %v", file, err)}
	}
	if line, col, b, bad := notUTF8(src); bad {
		return nil, []string{fmt.Sprintf("%s:%d:%d: file: byte 0x%02x is not UTF-8 text: a scenario file is YAML, written in UTF-8", file, line, col, b)}
	}
	values, err := checkLimits(src)
	if err != nil {
		return nil, []string{yamlProblem(file, err)}
	}
	prob := func(line, col int, field, msg string) string {
		return fmt.Sprintf("%s:%d:%d: %s: %s", file, line, col, field, msg)
	}
	protects := ""
	for _, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, ProtectsPrefix) {
			protects = strings.TrimSpace(strings.TrimPrefix(l, ProtectsPrefix))
			break
		}
	}
	var problems []string
	if protects == "" {
		problems = append(problems, prob(1, 1, "protects", "the file must say in one comment line what it protects against: '"+ProtectsPrefix+" …'"))
	}
	nodes, perr := scenarioNodes(src)
	if perr != nil {
		return nil, append(problems, yamlProblem(file, perr))
	}
	var cases []Case
	work := values // the parse above
	for i, node := range nodes {
		cs, errs := loadScenario(file, node, i, protects, values, &work)
		cases = append(cases, cs...)
		problems = append(problems, errs...)
	}
	return cases, problems
}

// SingleLine writes the control characters of a problem (a newline inside a
// matrix value pasted into a message, say) as Go escapes, so that a problem
// is always one line: one problem, one line, however its values read.
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

// yamlProblem renders a YAML library error as file:line:column: field: message.
func yamlProblem(file string, err error) string {
	var pe *posError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s:%s", file, pe.Error())
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
		return fmt.Sprintf("%s:%d:%d: yaml: %s", file, tk.Position.Line, tk.Position.Column, msg)
	}
	return fmt.Sprintf("%s:0:0: yaml: %v", file, err)
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
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// parseFile parses src into its single document body. Anchors and aliases
// are refused: they are not needed, and expanding them can make a small file
// huge.
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
		case *ast.AliasNode, *ast.AnchorNode:
			if bad == nil {
				bad = nodeErr(n, "yaml", "anchors and aliases (&name, *name) are not supported in scenario files; use a matrix to share values")
			}
			return false
		case *ast.IntegerNode:
			if tk := n.GetToken(); bad == nil && tk != nil && !decimalInt.MatchString(tk.Value) {
				bad = nodeErr(n, tokenPath(docs[0].Body, tk), "integer %s: write integers as plain decimal digits with an optional minus sign (16, 1000, -5): no 0x, 0o, 0b, _, + or leading zeros (README: Numbers)", tk.Value)
			}
		}
		return bad == nil
	}), docs[0].Body)
	if bad != nil {
		return nil, bad
	}
	return docs[0].Body, nil
}

// visitFunc adapts a function to ast.Visitor.
type visitFunc func(ast.Node) bool

func (f visitFunc) Visit(n ast.Node) ast.Visitor {
	if f(n) {
		return f
	}
	return nil
}

// MaxCasesPerScenario bounds a matrix's expansion.
const MaxCasesPerScenario = 1000

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

// loadScenario loads the i-th scenario of a file, node. values is the
// file's value count and work the work spent on the file so far
// (MaxLoadWork): checking a scenario, or one of its matrix cases, adds values.
func loadScenario(file string, node ast.Node, i int, protects string, values int, work *int) ([]Case, []string) {
	*work += values
	if *work > MaxLoadWork {
		return nil, []string{yamlProblem(file, nodeErr(node, "scenarios", "too much to load: %d scenarios in a file of %d values: (1 + cases) × values summed over them is more than %d (README: Limits)", i+1, values, MaxLoadWork))}
	}
	line := node.GetToken().Position.Line
	combos, err := matrixCombos(node)
	if err != nil {
		return nil, []string{yamlProblem(file, err)}
	}
	if *work+len(combos)*values > MaxLoadWork {
		// Named at its matrix, or at the scenario when it has none.
		at, field := child(node, "matrix"), "matrix"
		if at == nil {
			at, field = node, "scenarios"
		}
		return nil, []string{yamlProblem(file, nodeErr(at, field,
			"%d cases of a file of %d values: (1 + cases) × values is more than %d (README: Limits)", len(combos), values, MaxLoadWork))}
	}
	*work += len(combos) * values
	var cases []Case
	var problems []string
	n := node // one parse serves every case: substitute's changes are undone after each
	for _, params := range combos {
		var undo []func()
		restore := func() {
			for j := len(undo) - 1; j >= 0; j-- {
				undo[j]()
			}
		}
		var ok bool
		problems, ok = loadCase(file, n, params, &undo, line, protects, &cases, problems)
		restore()
		if !ok {
			break
		}
	}
	return cases, problems
}

// loadCase substitutes params into the scenario node n (recording its
// changes in undo), checks and decodes it, and appends the case to cases or
// its problems to problems; ok is false when it had problems.
func loadCase(file string, n ast.Node, params []Param, undo *[]func(), line int, protects string, cases *[]Case, problems []string) ([]string, bool) {
	if err := substitute(n, params, undo); err != nil {
		return append(problems, yamlProblem(file, err)), false
	}
	if errs := typeCheck(n, reflect.TypeFor[Scenario](), ""); len(errs) > 0 {
		for _, e := range errs {
			problems = append(problems, yamlProblem(file, e))
		}
		return problems, false
	}
	var sc Scenario
	if err := yaml.NodeToValue(n, &sc, yaml.Strict()); err != nil {
		return append(problems, yamlProblem(file, err)), false
	}
	errs := validate(&sc, n)
	for _, e := range errs {
		problems = append(problems, yamlProblem(file, e))
	}
	if len(errs) > 0 {
		return problems, false
	}
	*cases = append(*cases, Case{ID: caseID(sc.Name, params), File: file, Line: line, Protects: protects, Params: params, Scenario: sc})
	return problems, true
}

// caseID is name, or name[p=v,…] for a matrix case. Parameters whose name
// starts with "_" (values that only serve expectations) are left out of it.
func caseID(name string, params []Param) string {
	var parts []string
	for _, p := range params {
		if !strings.HasPrefix(p.Name, "_") {
			parts = append(parts, p.Name+"="+valueText(p.Value))
		}
	}
	if len(parts) == 0 {
		return name
	}
	return name + "[" + strings.Join(parts, ",") + "]"
}

func valueText(v any) string {
	switch v.(type) {
	case string, int, int64, uint64, float64, bool:
		return SingleLine(fmt.Sprint(v))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// matrixCombos returns the parameter sets of the scenario at n: one empty set
// without a matrix.
func matrixCombos(n ast.Node) ([][]Param, error) {
	m := child(n, "matrix")
	if m == nil {
		return [][]Param{nil}, nil
	}
	var v any
	if err := yaml.NodeToValue(m, &v, yaml.UseOrderedMap()); err != nil {
		return nil, err
	}
	switch mv := v.(type) {
	case yaml.MapSlice: // parameter → values: every combination
		combos := [][]Param{nil}
		for _, item := range mv {
			name := fmt.Sprint(item.Key)
			vals, ok := item.Value.([]any)
			if !ok || len(vals) == 0 {
				return nil, nodeErr(locate(m, name), "matrix."+name, "want a non-empty list of values")
			}
			if len(combos)*len(vals) > MaxCasesPerScenario {
				return nil, nodeErr(m, "matrix", "expands to more than %d cases", MaxCasesPerScenario)
			}
			var next [][]Param
			for _, c := range combos {
				for _, val := range vals {
					next = append(next, append(slices.Clone(c), Param{Name: name, Value: plain(val)}))
				}
			}
			combos = next
		}
		return combos, nil
	case []any: // rows
		if len(mv) > MaxCasesPerScenario {
			return nil, nodeErr(m, "matrix", "has %d rows, more than %d", len(mv), MaxCasesPerScenario)
		}
		var combos [][]Param
		var keys []string
		for i, row := range mv {
			ms, ok := row.(yaml.MapSlice)
			if !ok || len(ms) == 0 {
				return nil, nodeErr(locate(m, i), fmt.Sprintf("matrix[%d]", i), "want a mapping of parameter to value")
			}
			var ps []Param
			var ks []string
			for _, item := range ms {
				ps = append(ps, Param{Name: fmt.Sprint(item.Key), Value: plain(item.Value)})
				ks = append(ks, fmt.Sprint(item.Key))
			}
			if i == 0 {
				keys = ks
			} else if !slices.Equal(keys, ks) {
				return nil, nodeErr(locate(m, i), fmt.Sprintf("matrix[%d]", i), "every row must name the same parameters in the same order (%s)", strings.Join(keys, ", "))
			}
			combos = append(combos, ps)
		}
		return combos, nil
	}
	return nil, nodeErr(m, "matrix", "want a map of parameter to list of values, or a list of rows")
}

// plain turns ordered maps back into plain maps.
func plain(v any) any {
	switch x := v.(type) {
	case yaml.MapSlice:
		m := map[string]any{}
		for _, it := range x {
			m[fmt.Sprint(it.Key)] = plain(it.Value)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// substitute replaces ${param} in every string scalar under n (outside the
// matrix itself). A scalar that is exactly "${p}" takes the value's type.
// substitute replaces the placeholders of n by params, in place. Every change
// it makes is recorded in undo (when not nil), newest last, so that running
// the functions in reverse order gives n back as it was: one parse of a
// scenario serves all its matrix cases.
func substitute(n ast.Node, params []Param, undo *[]func()) error {
	record := func(f func()) {
		if undo != nil {
			*undo = append(*undo, f)
		}
	}
	root := n // the scenario, for a problem's field path
	values := map[string]any{}
	used := map[string]bool{}
	for _, p := range params {
		values[p.Name] = p.Value
	}
	var walk func(ast.Node, func(ast.Node)) error
	walk = func(n ast.Node, set func(ast.Node)) error {
		switch x := n.(type) {
		case *ast.MappingNode:
			for _, kv := range x.Values {
				if err := walk(kv, nil); err != nil {
					return err
				}
			}
		case *ast.MappingValueNode:
			if x.Key.String() == "matrix" {
				return nil
			}
			old := x.Value
			return walk(x.Value, func(nn ast.Node) { x.Value = nn; record(func() { x.Value = old }) })
		case *ast.SequenceNode:
			for i := range x.Values {
				i := i
				old := x.Values[i]
				if err := walk(x.Values[i], func(nn ast.Node) { x.Values[i] = nn; record(func() { x.Values[i] = old }) }); err != nil {
					return err
				}
			}
		case *ast.StringNode:
			ms := placeholder.FindAllStringSubmatch(x.Value, -1)
			if len(ms) == 0 {
				return nil
			}
			for _, m := range ms {
				if _, ok := values[m[1]]; !ok {
					return nodeErr(x, tokenPath(root, x.GetToken()), "${%s}: no matrix parameter %q", m[1], m[1])
				}
				used[m[1]] = true
			}
			if len(ms) == 1 && ms[0][0] == x.Value && set != nil {
				if sv, ok := values[ms[0][1]].(string); ok {
					old := x.Value
					x.Value = sv // a string stays this node (ValueToNode would quote "")
					record(func() { x.Value = old })
					return nil
				}
				nn, err := yaml.ValueToNode(values[ms[0][1]])
				if err != nil {
					return nodeErr(x, x.Value, "%v", err)
				}
				pos := *x.GetToken().Position
				*nn.GetToken().Position = pos
				set(nn)
				return nil
			}
			old := x.Value
			x.Value = placeholder.ReplaceAllStringFunc(x.Value, func(s string) string {
				return valueText(values[placeholder.FindStringSubmatch(s)[1]])
			})
			record(func() { x.Value = old })
		}
		return nil
	}
	if err := walk(n, nil); err != nil {
		return err
	}
	for _, p := range params {
		if !used[p.Name] {
			return nodeErr(locate(n, "matrix"), "matrix."+p.Name, "parameter is never used as ${%s}", p.Name)
		}
	}
	return nil
}

var toolInput = func() *jsonschema.Resolved {
	s, err := waittool.InputSchema()
	if err != nil {
		panic(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		panic(err)
	}
	return r
}()

// toolInputProps are the tool's input schema's properties, each resolved on
// its own, and its required properties: so that every broken argument of a
// call is reported at once, not only the first the validator meets.
// toolInputRange holds the bounds of its integer properties (contract §2,
// Input).
var toolInputProps, toolInputRequired, toolInputRange = func() (map[string]*jsonschema.Resolved, []string, map[string][2]float64) {
	s, err := waittool.InputSchema()
	if err != nil {
		panic(err)
	}
	out := map[string]*jsonschema.Resolved{}
	ranges := map[string][2]float64{}
	for k, ps := range s.Properties {
		r, err := ps.Resolve(nil)
		if err != nil {
			panic(err)
		}
		out[k] = r
		if ps.Type == "integer" && ps.Minimum != nil && ps.Maximum != nil {
			ranges[k] = [2]float64{*ps.Minimum, *ps.Maximum}
		}
	}
	return out, s.Required, ranges
}()

// argProblem is one argument of a call that breaks the tool's input schema.
type argProblem struct{ field, msg string }

// argsProblems lists every argument of args that breaks the tool's input
// schema (contract §2), in key order: unknown ones, ones whose value breaks its
// property's schema, then missing required ones. numbers holds the
// arguments written as numbers, as written (argNumbers): one of an integer
// property is checked against its range as written, since YAML reads some
// numbers (1e308) as strings. A schema rule that spans properties shows as
// one problem without a field. Nil when args are valid.
func argsProblems(args map[string]any, numbers map[string]string) []argProblem {
	verr := toolInput.Validate(jsonValue(args))
	var out []argProblem
	for _, k := range slices.Sorted(maps.Keys(args)) {
		r, ok := toolInputProps[k]
		if !ok {
			out = append(out, argProblem{k, "unknown argument: not in the tool's input schema"})
			continue
		}
		if msg := numberProblem(k, numbers); msg != "" {
			out = append(out, argProblem{k, msg})
			continue
		}
		if err := r.Validate(jsonValue(args[k])); err != nil {
			_, msg := schemaProblem(err)
			out = append(out, argProblem{k, msg})
		}
	}
	for _, k := range toolInputRequired {
		if _, ok := args[k]; !ok {
			out = append(out, argProblem{k, "required argument missing"})
		}
	}
	if len(out) == 0 && verr != nil {
		field, msg := schemaProblem(verr)
		out = append(out, argProblem{field, msg})
	}
	return out
}

// numberRE is a number as YAML or JSON may write it.
var numberRE = regexp.MustCompile(`^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// argNumbers returns the arguments of the args mapping n that are written
// as numbers, each as written: integers, floats, and unquoted scalars that
// YAML reads as strings though they are numbers (1e308, an integer too
// large for 64 bits).
func argNumbers(n ast.Node) map[string]string {
	pairs, _ := mappingPairs(n)
	out := map[string]string{}
	for _, kv := range pairs {
		switch v := kv.Value.(type) {
		case *ast.IntegerNode, *ast.FloatNode:
			out[kv.Key.String()] = v.GetToken().Value
		case *ast.StringNode:
			if v.GetToken().Type == token.StringType && numberRE.MatchString(v.Value) {
				out[kv.Key.String()] = v.Value
			}
		}
	}
	return out
}

// numberProblem is what is wrong with argument k when it is an integer
// property written as a number (numbers, argNumbers): out of the
// property's range, or not written as an integer (README: Numbers); "" when
// nothing is, or k is no such argument.
func numberProblem(k string, numbers map[string]string) string {
	lit, isNumber := numbers[k]
	bounds, isInt := toolInputRange[k]
	if !isNumber || !isInt {
		return ""
	}
	v, _ := strconv.ParseFloat(lit, 64) // ±Inf beyond float64
	if v < bounds[0] || v > bounds[1] {
		return fmt.Sprintf("%s is a number out of range: want an integer from %d to %d", lit, int64(bounds[0]), int64(bounds[1]))
	}
	if !decimalInt.MatchString(lit) {
		return fmt.Sprintf("%s is not written as an integer: want plain decimal digits (16, 1000, -5) (README: Numbers)", lit)
	}
	return ""
}

// validate checks what the types cannot: required fields, ranges, names,
// references, and callers' args against the tool's input schema (contract §2).
func validate(sc *Scenario, n ast.Node) []error {
	var errs []error
	bad := func(field string, path []any, format string, args ...any) {
		errs = append(errs, nodeErr(locate(n, path...), field, format, args...))
	}
	if !nameRE.MatchString(sc.Name) {
		bad("name", []any{"name"}, "want letters, digits, '-', '_' or '.', starting with a letter or digit; got %q", sc.Name)
	}
	if sc.HorizonMs < 0 {
		bad("horizonMs", []any{"horizonMs"}, "must be ≥ 0 ms")
	}
	if b := sc.Bridge; b != nil {
		if b.CacheMs != nil && *b.CacheMs < 0 {
			bad("bridge.cacheMs", []any{"bridge", "cacheMs"}, "must be ≥ 0 ms")
		}
		for i, h := range b.Congestion {
			if h.AtMs < 0 || h.HoldMs < 0 {
				bad(fmt.Sprintf("bridge.congestion[%d]", i), []any{"bridge", "congestion", i}, "atMs and holdMs must be ≥ 0")
			}
		}
		if sc.NoBridge {
			bad("noBridge", []any{"noBridge"}, "noBridge with a bridge script")
		}
		for i, st := range b.List {
			if st.Outputs != nil {
				bad(fmt.Sprintf("bridge.list[%d].outputs", i), []any{"bridge", "list", i}, "only an output read (bridge.read) returns outputs")
			}
		}
	}
	ids := map[string]bool{}
	for i, a := range sc.Agents {
		if a.ID == "" {
			bad(fmt.Sprintf("agents[%d].id", i), []any{"agents", i}, "required")
		}
		if ids[a.ID] {
			bad(fmt.Sprintf("agents[%d].id", i), []any{"agents", i, "id"}, "duplicate agent %q", a.ID)
		}
		ids[a.ID] = true
		if g := a.Generate; g != nil && (g.Count < 1 || g.Chars < 1) {
			bad(fmt.Sprintf("agents[%d].generate", i), []any{"agents", i, "generate"}, "count and chars must be ≥ 1")
		}
	}
	order := make([]int, len(sc.Changes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sc.Changes[order[a]].AtMs < sc.Changes[order[b]].AtMs })
	for _, i := range order {
		c := sc.Changes[i]
		f := fmt.Sprintf("changes[%d]", i)
		if c.AtMs < 0 {
			bad(f+".atMs", []any{"changes", i, "atMs"}, "must be ≥ 0 ms")
		}
		switch c.Op {
		case "join":
			if ids[c.ID] {
				bad(f+".id", []any{"changes", i, "id"}, "%q joins but is already in the run", c.ID)
			}
			ids[c.ID] = true
		case "leave":
			if !ids[c.ID] {
				bad(f+".id", []any{"changes", i, "id"}, "%q leaves but is not in the run", c.ID)
			}
			delete(ids, c.ID)
		case "state":
			if child(locate(n, "changes", i), "state") == nil && n != nil {
				bad(f+".state", []any{"changes", i}, "op state needs the new state")
			}
			if !ids[c.ID] {
				bad(f+".id", []any{"changes", i, "id"}, "%q is not in the run at %d ms", c.ID, c.AtMs)
			}
		default:
			bad(f+".op", []any{"changes", i, "op"}, "want state, join or leave; got %q", c.Op)
		}
	}
	if len(sc.Callers) == 0 {
		bad("callers", []any{"callers"}, "at least one caller is required")
	}
	names := map[string]bool{}
	for i, c := range sc.Callers {
		f := fmt.Sprintf("callers[%d]", i)
		if c.Name == "" {
			bad(f+".name", []any{"callers", i}, "required")
		}
		if names[c.Name] {
			bad(f+".name", []any{"callers", i, "name"}, "duplicate caller %q", c.Name)
		}
		names[c.Name] = true
		if c.StartMs < 0 {
			bad(f+".startMs", []any{"callers", i, "startMs"}, "must be ≥ 0 ms")
		}
		if c.MaxCalls < 0 {
			bad(f+".maxCalls", []any{"callers", i, "maxCalls"}, "must be ≥ 0")
		}
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		aps := argsProblems(args, argNumbers(child(locate(n, "callers", i), "args")))
		switch {
		case len(aps) > 0 && !c.InvalidArgs:
			for _, ap := range aps {
				field := ap.field
				path := []any{"callers", i, "args"}
				if field != "" {
					path = append(path, field)
					field = "." + field
				}
				bad(f+".args"+field, path, "%s — breaks the tool's input schema (contract §2); set invalidArgs: true if that is the point", ap.msg)
			}
		case len(aps) == 0 && c.InvalidArgs:
			bad(f+".invalidArgs", []any{"callers", i, "invalidArgs"}, "invalidArgs is set but the args are valid")
		}
	}
	errs = append(errs, validateTransport(sc, n)...)
	for i, e := range sc.Expect {
		f := fmt.Sprintf("expect[%d]", i)
		if e.Caller == "" && len(sc.Callers) != 1 {
			bad(f+".caller", []any{"expect", i}, "required when there is more than one caller")
		} else if e.Caller != "" && !names[e.Caller] {
			bad(f+".caller", []any{"expect", i, "caller"}, "no caller named %q", e.Caller)
		}
		if e.Call < 0 {
			bad(f+".call", []any{"expect", i, "call"}, "must be ≥ 1")
		}
		for _, p := range []struct {
			name string
			v    *int64
		}{{"resolvesAtMs", e.ResolvesAtMs}, {"resolvesByMs", e.ResolvesByMs}, {"startsAtMs", e.StartsAtMs}} {
			if p.v != nil && *p.v < 0 {
				bad(f+"."+p.name, []any{"expect", i, p.name}, "must be ≥ 0 ms")
			}
		}
	}
	return errs
}

var (
	propRE  = regexp.MustCompile(`/properties/([A-Za-z0-9_]+)`)
	ratRE   = regexp.MustCompile(`\b(\d+)/1\b`)
	floatRE = regexp.MustCompile(`\b(\d+)\.0+\b`)
)

// schemaProblem turns a jsonschema-go validation error into the field it is
// about ("" when not one field) and a short message.
func schemaProblem(err error) (field, msg string) {
	msg = err.Error()
	if m := propRE.FindAllStringSubmatch(msg, -1); len(m) > 0 {
		field = m[len(m)-1][1]
		if i := strings.LastIndex(msg, "/properties/"+field+": "); i >= 0 {
			msg = msg[i+len("/properties/"+field+": "):]
		}
	} else if i := strings.LastIndex(msg, "validating root: "); i >= 0 {
		msg = msg[i+len("validating root: "):]
	}
	msg = ratRE.ReplaceAllString(msg, "$1")
	msg = floatRE.ReplaceAllString(msg, "$1")
	return field, msg
}

// jsonValue round-trips v through JSON, giving the types a JSON decoder gives.
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

// notUTF8 finds the first byte of src that is not valid UTF-8 and returns
// its line and column (1-based; the column counts characters) and the byte;
// bad is false when src is valid UTF-8.
func notUTF8(src []byte) (line, col int, b byte, bad bool) {
	if utf8.Valid(src) {
		return 0, 0, 0, false
	}
	i := 0 // src holds a bad byte (Valid said so): the loop stops there
	for {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	return bytes.Count(src[:i], []byte("\n")) + 1, utf8.RuneCount(src[start:i]) + 1, src[i], true
}
