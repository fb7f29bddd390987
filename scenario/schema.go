package scenario

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

func f64(v float64) *float64 { return &v }

// JSONSchema returns the JSON Schema (draft 2020-12) of a scenario file,
// generated from the Go types of this package: a file is one Scenario or a
// list of them. Every property also accepts a "${param}" placeholder string,
// which matrix expansion replaces. Callers' args carry args, the tool's own
// input schema (the wait_agents pack: contract §2); nil allows any object.
// The output is deterministic, indented JSON.
func JSONSchema(args *jsonschema.Schema) ([]byte, error) {
	step := &jsonschema.Schema{
		Description: `a bridge request's behaviour: latency in ms, "stall", or {latencyMs, error, panic, stall, reject, outputs}`,
		OneOf: []*jsonschema.Schema{
			{Type: "integer", Minimum: f64(0), Maximum: f64(float64(MaxMs)), Description: "latency in ms"},
			{Type: "string", Enum: []any{"stall"}, Description: "never completes by itself"},
			{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, Properties: map[string]*jsonschema.Schema{
				"latencyMs": {Type: "integer", Minimum: f64(0), Maximum: f64(float64(MaxMs))},
				"error":     {Type: "string", MinLength: new(int(1)), Description: "completes with this error after latencyMs"},
				"panic":     {Type: "string", MinLength: new(int(1)), Description: "after latencyMs the bridge call panics with this value"},
				"stall":     {Type: "boolean"},
				"reject":    {Type: "boolean", Description: "rejected at once, without entering the queue"},
				"outputs": {Type: "array", Description: "read steps only: what the read returns instead of the asked ids' outputs (any ids, any order, an id twice)",
					Items: &jsonschema.Schema{Type: "object", Required: []string{"id", "messages"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
						Properties: map[string]*jsonschema.Schema{
							"id":       {Type: "string", MinLength: new(int(1))},
							"messages": {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
						}}},
			}},
		},
	}
	limit := &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "integer", Minimum: f64(1), Maximum: f64(float64(MaxMs))},
		{Type: "string", Enum: []any{"none"}},
	}}
	want := &jsonschema.Schema{
		Description: `the expected value, or "absent" (must not be in the reply), or "present"`,
		Types:       []string{"boolean", "integer", "string"},
	}
	if args == nil {
		args = &jsonschema.Schema{Type: "object"}
	}
	scenario, err := jsonschema.For[Scenario](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[Step]():           step,
		reflect.TypeFor[Limit]():          limit,
		reflect.TypeFor[Want]():           want,
		reflect.TypeFor[map[string]any](): args,
	}})
	if err != nil {
		return nil, err
	}
	scenario.Properties["matrix"] = &jsonschema.Schema{
		Description: scenario.Properties["matrix"].Description,
		OneOf: []*jsonschema.Schema{
			{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "array", MinItems: new(int(1))}},
			{Type: "array", MinItems: new(int(1)), Items: &jsonschema.Schema{Type: "object", MinProperties: new(int(1))}},
		},
	}
	b, err := json.Marshal(scenario)
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, err
	}
	// replyFields is a mapping of any fields of the reply, each of any JSON
	// value (the generator gave it args' schema, by its Go type).
	ex := tree["properties"].(map[string]any)["expect"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)
	ex["replyFields"] = map[string]any{"type": "object", "description": reflect.TypeFor[Expect]().Field(expectReplyFields).Tag.Get("jsonschema")}
	constrain(tree, "")
	tree["properties"].(map[string]any)["callers"].(map[string]any)["minItems"] = 1
	allowPlaceholders(tree)
	top := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://github.com/waitsim/waitsim/scenarios/schema.json",
		"title":   "waitsim scenario file",
		"description": "One scenario, or a list of scenarios. The file must also open with a '# protects: …' comment line. " +
			"Integers are written in decimal digits with an optional minus sign (no 0x, 0o, 0b, _, + or leading zeros). " +
			"Limits, checked before the file is parsed: " + LimitsText + ".",
		"$defs": map[string]any{"scenario": tree},
		"oneOf": []any{
			map[string]any{"$ref": "#/$defs/scenario"},
			map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"$ref": "#/$defs/scenario"}},
		},
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// expectReplyFields is the index of Expect.ReplyFields among its fields.
var expectReplyFields = func() int {
	f, _ := reflect.TypeFor[Expect]().FieldByName("ReplyFields")
	return f.Index[0]
}()

// constrain adds the field rules of rules.go to the generated schema s (the
// schema of property key): integer bounds, the known states, the change ops.
// Callers' args (the tool's own schema) are left as they are.
func constrain(s map[string]any, key string) {
	if key == "args" {
		return
	}
	isInt := s["type"] == "integer"
	if ts, ok := s["type"].([]any); ok && slices.Contains(ts, any("integer")) {
		isInt = true
	}
	if isInt {
		lo := 0
		if slices.Contains(minOne, key) {
			lo = 1
		}
		s["minimum"], s["maximum"] = lo, MaxMs
	}
	switch key {
	case "state":
		s["anyOf"] = []any{map[string]any{"enum": toAny(KnownStates)}, map[string]any{"pattern": "^other:.+$"}}
	case "op":
		s["enum"] = toAny(changeOps)
	default:
		if vals, ok := enumFields[key]; ok && s["type"] == "string" {
			s["enum"] = toAny(vals)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for k, p := range props {
			if pm, ok := p.(map[string]any); ok {
				constrain(pm, k)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		constrain(items, key)
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

var placeholderSchema = map[string]any{"type": "string", "pattern": `^.*\$\{[A-Za-z_][A-Za-z0-9_]*\}.*$`, "description": "a matrix placeholder"}

// allowPlaceholders wraps every property and item schema under s as
// anyOf [itself, a placeholder string].
func allowPlaceholders(s map[string]any) {
	// A pointer to an overridden type gets type ["null"] beside its oneOf.
	if t, ok := s["type"].([]any); ok && len(t) == 1 && t[0] == "null" && s["oneOf"] != nil {
		delete(s, "type")
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for k, p := range props {
			pm, ok := p.(map[string]any)
			if !ok {
				continue
			}
			allowPlaceholders(pm)
			props[k] = map[string]any{"anyOf": []any{pm, placeholderSchema}}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		allowPlaceholders(items)
		s["items"] = map[string]any{"anyOf": []any{items, placeholderSchema}}
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[key].([]any); ok {
			for _, a := range alts {
				if am, ok := a.(map[string]any); ok {
					allowPlaceholders(am)
				}
			}
		}
	}
}
