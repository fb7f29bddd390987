package scenario

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/waitsim/waitsim/results"
)

// Field rules beyond the Go types, shared by the loader's type check and by
// JSONSchema, so that the loader and scenarios/schema.json agree.
var (
	// MaxMs bounds every integer of a scenario file (ms or count): larger
	// values would overflow virtual time in nanoseconds.
	MaxMs int64 = 1_000_000_000_000
	// minOne lists integer fields that must be ≥ 1 when given (0 is not "default").
	minOne = []string{"call", "maxCalls", "horizonMs", "count", "chars"}
	// KnownStates are the lifecycle states a scenario may name: the tool's
	// active states and the usual terminal ones. Any other state the tool
	// does not know is written "other:NAME" (contract §2: it is terminal).
	KnownStates = []string{"", "created", "prompt_sent", "running", "waiting", "completed", "failed", "cancelled"}
	// changeOps are the roster change operations.
	changeOps = []string{"join", "leave", "state"}
)

func validState(s string) bool {
	return slices.Contains(KnownStates, s) || (strings.HasPrefix(s, "other:") && len(s) > len("other:"))
}

var (
	typeStep  = reflect.TypeFor[Step]()
	typeLimit = reflect.TypeFor[Limit]()
	typeWant  = reflect.TypeFor[Want]()
)

// yamlKey returns a struct field's YAML key and whether it may be left out.
func yamlKey(f reflect.StructField) (key string, optional bool) {
	tag := f.Tag.Get("yaml")
	name, opts, _ := strings.Cut(tag, ",")
	return name, strings.Contains(opts, "omitempty")
}

// packOnly reports whether field f is a key of the wait_agents pack (its
// tag waitsim:"pack"): one that means nothing to a tool of one's own.
func packOnly(f reflect.StructField) bool { return f.Tag.Get("waitsim") == "pack" }

// packKeyMsg is the problem of a pack key in a table of a tool of one's own.
const packKeyMsg = "a key of the wait_agents pack: it means nothing to a tool of your own (waitsim.Params.Tool)"

// typeCheck walks node against type t (a Scenario and what it holds) and
// returns every problem in document order: unknown and missing keys, wrong
// node types, integers out of range, unknown states and ops. path is the
// dotted field path for messages. With generic (a table of a tool of one's
// own), a key of the wait_agents pack (packOnly) is a problem of its own,
// and never listed among the known keys.
func typeCheck(n ast.Node, t reflect.Type, path string, generic bool) []error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil {
		return nil
	}
	if _, isNull := n.(*ast.NullNode); isNull {
		return []error{nodeErr(n, path, "has no value")}
	}
	key := path[strings.LastIndex(path, ".")+1:]
	if i := strings.Index(key, "["); i >= 0 {
		key = key[:i]
	}
	switch t {
	case typeStep:
		var st Step
		return withPath(st.UnmarshalYAML(n), path)
	case typeWant:
		var w Want
		return withPath(w.UnmarshalYAML(n), path)
	case typeLimit:
		if iv, ok := n.(*ast.IntegerNode); ok {
			if v, err := strconv.ParseInt(strings.ReplaceAll(iv.GetToken().Value, "_", ""), 0, 64); err != nil || v < 1 || v > MaxMs {
				return []error{nodeErr(n, path, `want an integer from 1 to %d (ms), or "none"; got %s`, MaxMs, iv.GetToken().Value)}
			}
			return nil
		}
		if sv, ok := n.(*ast.StringNode); ok && sv.Value == "none" {
			return nil
		}
		return []error{nodeErr(n, path, `want an integer (ms) or "none"; got %s`, shown(n))}
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := mappingPairs(n)
		if !ok {
			return []error{nodeErr(n, wholeOr(path), "want a mapping; got %s", shown(n))}
		}
		var errs []error
		fields := map[string]reflect.StructField{}
		var names []string
		for i := range t.NumField() {
			f := t.Field(i)
			if k, _ := yamlKey(f); k != "" && k != "-" {
				fields[k] = f
				if !generic || !packOnly(f) {
					names = append(names, k)
				}
			}
		}
		seen := map[string]bool{}
		for _, kv := range m {
			k := kv.Key.String()
			f, known := fields[k]
			if !known {
				hint := ""
				if near := results.Nearest(k, names); near != "" {
					hint = fmt.Sprintf("; did you mean %q?", near)
				}
				errs = append(errs, nodeErr(kv.Key, join(path, k), "unknown field%s (known here: %s)", hint, strings.Join(names, ", ")))
				continue
			}
			seen[k] = true
			if generic && packOnly(f) {
				errs = append(errs, nodeErr(kv.Key, join(path, k), packKeyMsg))
				continue
			}
			errs = append(errs, typeCheck(kv.Value, f.Type, join(path, k), generic)...)
		}
		for _, k := range names {
			if _, optional := yamlKey(fields[k]); !optional && !seen[k] {
				errs = append(errs, nodeErr(n, join(path, k), "required field is missing"))
			}
		}
		return errs
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			return []error{nodeErr(n, path, "want a list; got %s", shown(n))}
		}
		var errs []error
		for i, v := range seq.Values {
			errs = append(errs, typeCheck(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i), generic)...)
		}
		return errs
	case reflect.Map:
		if _, ok := mappingPairs(n); !ok {
			if _, empty := n.(*ast.MappingNode); !empty {
				return []error{nodeErr(n, path, "want a mapping; got %s", shown(n))}
			}
		}
		return nil // args: checked against the tool's input schema
	case reflect.Interface:
		return nil // matrix: checked when expanded
	case reflect.Bool:
		if _, ok := n.(*ast.BoolNode); !ok {
			return []error{nodeErr(n, path, "want true or false; got %s", shown(n))}
		}
	case reflect.Int, reflect.Int64:
		iv, ok := n.(*ast.IntegerNode)
		if !ok {
			return []error{nodeErr(n, path, "want an integer; got %s", shown(n))}
		}
		v, err := strconv.ParseInt(strings.ReplaceAll(iv.GetToken().Value, "_", ""), 0, 64)
		lo := int64(0)
		if slices.Contains(minOne, key) {
			lo = 1
		}
		if err != nil || v < lo || v > MaxMs {
			return []error{nodeErr(n, path, "want an integer from %d to %d; got %s", lo, MaxMs, iv.GetToken().Value)}
		}
	case reflect.String:
		sv, ok := n.(*ast.StringNode)
		if !ok {
			return []error{nodeErr(n, path, "want a string; got %s", shown(n))}
		}
		switch key {
		case "state":
			if !validState(sv.Value) {
				return []error{nodeErr(n, path, "unknown state %q: want one of %q, or other:NAME for a state the tool does not know", sv.Value, KnownStates)}
			}
		case "op":
			if !slices.Contains(changeOps, sv.Value) {
				return []error{nodeErr(n, path, "want one of %s; got %q", strings.Join(changeOps, ", "), sv.Value)}
			}
		default:
			if vals, ok := enumFields[key]; ok && !slices.Contains(vals, sv.Value) {
				return []error{nodeErr(n, path, "want one of %s; got %q", strings.Join(vals, ", "), sv.Value)}
			}
		}
	}
	return nil
}

// withPath names a self-checking value's error by its path in the file.
func withPath(err error, path string) []error {
	if err == nil {
		return nil
	}
	if pe, ok := err.(*posError); ok {
		if pe.field == "step" || pe.field == "value" {
			pe.field = path
		} else {
			pe.field = path + "." + pe.field
		}
	}
	return []error{err}
}

// wholeOr is path, or "scenario" for the scenario as a whole (path ""): a
// problem always names a field.
func wholeOr(path string) string {
	if path == "" {
		return "scenario"
	}
	return path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// mappingPairs returns the key/value pairs of a mapping node.
func mappingPairs(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch m := n.(type) {
	case *ast.MappingNode:
		return m.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	}
	return nil, false
}

// shown describes a node for a message: its kind and a short, quoted text.
func shown(n ast.Node) string {
	text := n.String()
	if sn, ok := n.(*ast.StringNode); ok {
		text = sn.Value // the string itself: %q below quotes it once
	}
	if r := []rune(text); len(r) > 40 {
		text = string(r[:40]) + "…"
	}
	kind := strings.TrimSuffix(strings.ToLower(n.Type().String()), "type")
	return fmt.Sprintf("%s %q", kind, text)
}
