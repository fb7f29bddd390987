package scenario

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema is a tool's published input schema, resolved for checking
// calls' args: whole, and each property on its own with its integer bounds,
// so that every broken argument of a call is reported at once, not only the
// first the validator meets.
type inputSchema struct {
	whole    *jsonschema.Resolved
	props    map[string]*jsonschema.Resolved
	required []string
	ranges   map[string][2]float64
	err      error // the schema does not resolve
}

// resolved caches inputSchema by schema: a published schema is shared and
// never changed.
var resolved sync.Map // *jsonschema.Schema → *inputSchema

func resolveInput(s *jsonschema.Schema) *inputSchema {
	if v, ok := resolved.Load(s); ok {
		return v.(*inputSchema)
	}
	in := &inputSchema{props: map[string]*jsonschema.Resolved{}, ranges: map[string][2]float64{}, required: s.Required}
	if in.whole, in.err = s.Resolve(nil); in.err == nil {
		for k, ps := range s.Properties {
			r, err := ps.Resolve(nil)
			if err != nil {
				in.err = err
				break
			}
			in.props[k] = r
			if ps.Type == "integer" && ps.Minimum != nil && ps.Maximum != nil {
				in.ranges[k] = [2]float64{*ps.Minimum, *ps.Maximum}
			}
		}
	}
	v, _ := resolved.LoadOrStore(s, in)
	return v.(*inputSchema)
}

// argProblem is one argument of a call that breaks the tool's input schema.
type argProblem struct{ field, msg string }

// argsProblems lists every argument of args that breaks the tool's input
// schema (contract §2), in key order: unknown ones, ones whose value breaks its
// property's schema, then missing required ones. numbers holds the
// arguments written as numbers, as written (argNumbers): one of an integer
// property is checked against its range as written, since YAML reads some
// numbers (1e308) as strings. A schema rule that spans properties shows as
// one problem without a field. Nil when args are valid.
func argsProblems(in *inputSchema, args map[string]any, numbers map[string]string) []argProblem {
	if in.err != nil {
		return []argProblem{{"", fmt.Sprintf("the tool's input schema does not resolve: %v", in.err)}}
	}
	verr := in.whole.Validate(jsonValue(args))
	var out []argProblem
	for _, k := range slices.Sorted(maps.Keys(args)) {
		r, ok := in.props[k]
		if !ok {
			out = append(out, argProblem{k, "unknown argument: not in the tool's input schema"})
			continue
		}
		if msg := numberProblem(in, k, numbers); msg != "" {
			out = append(out, argProblem{k, msg})
			continue
		}
		if err := r.Validate(jsonValue(args[k])); err != nil {
			_, msg := schemaProblem(err)
			out = append(out, argProblem{k, msg})
		}
	}
	for _, k := range in.required {
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

// decimalInt is how an integer is written in a scenario file: the one rule
// for every number of the format (docs/scenarios.md: Numbers; issue 11 item 12).
var decimalInt = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

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
// property's range, or not written as an integer (docs/scenarios.md: Numbers); "" when
// nothing is, or k is no such argument.
func numberProblem(in *inputSchema, k string, numbers map[string]string) string {
	lit, isNumber := numbers[k]
	bounds, isInt := in.ranges[k]
	if !isNumber || !isInt {
		return ""
	}
	v, _ := strconv.ParseFloat(lit, 64) // ±Inf beyond float64
	if v < bounds[0] || v > bounds[1] {
		return fmt.Sprintf("%s is a number out of range: want an integer from %d to %d", lit, int64(bounds[0]), int64(bounds[1]))
	}
	if !decimalInt.MatchString(lit) {
		return fmt.Sprintf("%s is not written as an integer: want plain decimal digits (16, 1000, -5) (docs/scenarios.md: Numbers)", lit)
	}
	return ""
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
