package scenario

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/waitsim/waitsim/results"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Param is one matrix parameter of a case, in the order the file gives it.
type Param struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// MaxCasesPerScenario bounds a matrix's expansion.
const MaxCasesPerScenario = 1000

var placeholder = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

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
		return results.SingleLine(fmt.Sprint(v))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// matrixCombos returns the parameter sets of the scenario at n: one empty set
// without a matrix; and distinct, which refuses, as one problem, the first
// two sets that would give one case id (nil when there is one set). The
// loader calls it once the first case has loaded: a first case that fails
// on its own stops the expansion, as before, whatever its matrix.
func matrixCombos(n ast.Node) (combos [][]Param, distinct func() error, err error) {
	m := child(n, "matrix")
	if m == nil {
		return [][]Param{nil}, nil, nil
	}
	var v any
	if err := yaml.NodeToValue(m, &v, yaml.UseOrderedMap()); err != nil {
		return nil, nil, err
	}
	switch mv := v.(type) {
	case yaml.MapSlice: // parameter → values: every combination
		combos := [][]Param{nil}
		distinct := func() error {
			for _, item := range mv {
				if err := distinctValues(m, fmt.Sprint(item.Key), item.Value.([]any)); err != nil {
					return err
				}
			}
			return nil
		}
		for _, item := range mv {
			name := fmt.Sprint(item.Key)
			vals, ok := item.Value.([]any)
			if !ok || len(vals) == 0 {
				return nil, nil, nodeErr(locate(m, name), "matrix."+name, "want a non-empty list of values")
			}
			if len(combos)*len(vals) > MaxCasesPerScenario {
				return nil, nil, nodeErr(m, "matrix", "expands to more than %d cases", MaxCasesPerScenario)
			}
			var next [][]Param
			for _, c := range combos {
				for _, val := range vals {
					next = append(next, append(slices.Clone(c), Param{Name: name, Value: plain(val)}))
				}
			}
			combos = next
		}
		if len(combos) == 1 {
			distinct = nil
		}
		return combos, distinct, nil
	case []any: // rows
		if len(mv) > MaxCasesPerScenario {
			return nil, nil, nodeErr(m, "matrix", "has %d rows, more than %d", len(mv), MaxCasesPerScenario)
		}
		var combos [][]Param
		var keys []string
		for i, row := range mv {
			ms, ok := row.(yaml.MapSlice)
			if !ok || len(ms) == 0 {
				return nil, nil, nodeErr(locate(m, i), fmt.Sprintf("matrix[%d]", i), "want a mapping of parameter to value")
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
				return nil, nil, nodeErr(locate(m, i), fmt.Sprintf("matrix[%d]", i), "every row must name the same parameters in the same order (%s)", strings.Join(keys, ", "))
			}
			combos = append(combos, ps)
		}
		if len(combos) == 1 {
			return combos, nil, nil
		}
		return combos, func() error { return distinctRows(n, m, combos) }, nil
	}
	return nil, nil, nodeErr(m, "matrix", "want a map of parameter to list of values, or a list of rows")
}

// distinctValues refuses values of the parameter name of the map matrix m
// that would give two cases one id: a value given twice (as the id writes
// it), or a parameter the id leaves out (its name starts with "_") given
// more than one value. Found before the second case is built, it is one
// problem, however many cases would share an id.
func distinctValues(m ast.Node, name string, vals []any) error {
	if strings.HasPrefix(name, "_") {
		if len(vals) > 1 {
			return nodeErr(locate(m, name), "matrix."+name, "%d values of a parameter the case id leaves out (its name starts with \"_\"): their cases would share their ids; give it one value, or a name without \"_\" (or use a list of rows)", len(vals))
		}
		return nil
	}
	seen := map[string]int{}
	for j, v := range vals {
		text := valueText(plain(v))
		if prev, dup := seen[text]; dup {
			return nodeErr(locate(m, name, j), fmt.Sprintf("matrix.%s[%d]", name, j), "the value of matrix.%s[%d] again (%s, as the case id writes it): their cases would share their ids; give each value once", name, prev, text)
		}
		seen[text] = j
	}
	return nil
}

// distinctRows refuses the first row of the list matrix m of the scenario n
// that gives the case id of an earlier row. Found before the second case is
// built, it is one problem, however many rows repeat. (Ids that differ but
// are one go test name are Load's problem, between any two cases.)
func distinctRows(n, m ast.Node, combos [][]Param) error {
	name := ""
	if s, ok := child(n, "name").(*ast.StringNode); ok {
		name = s.Value
	}
	seen := map[string]int{}
	for i, ps := range combos {
		id := caseID(name, ps)
		if prev, dup := seen[id]; dup {
			return nodeErr(locate(m, i), fmt.Sprintf("matrix[%d]", i), "gives case id %q, as matrix[%d] does: every row must give its own (parameters whose name starts with \"_\" are not part of it)", id, prev)
		}
		seen[id] = i
	}
	return nil
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
