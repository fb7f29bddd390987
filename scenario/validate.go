package scenario

import (
	"encoding/json"
	"fmt"
	"github.com/waitsim/waitsim/results"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml/ast"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/waitsim/waitsim/sim"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// unprintableMsg is the problem of a name or id with a character that
// unprintable finds.
const unprintableMsg = "a control or format character (%U) at byte %d: names and ids are printed in timelines, results and re-run lines, where it would forge or hide text"

// unprintable reports the first control character (a line break, a
// carriage return, an escape) or format character (a bidirectional
// override, a zero-width space) of a caller's name or an agent's id, and
// its byte offset.
func unprintable(s string) (r rune, at int, ok bool) {
	for i, c := range s {
		if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
			return c, i, true
		}
	}
	return 0, 0, false
}

// Validate checks a scenario built in code (not read from a file) as the
// loader checks one it read: every problem, without a place in a file.
func Validate(sc *Scenario, opts Options) []error { return validate(sc, nil, &opts) }

// validate checks what the types cannot: required fields, ranges, names,
// references, and callers' args against the tool's input schema (contract §2).
func validate(sc *Scenario, n ast.Node, opts *Options) []error {
	var errs []error
	bad := func(field string, path []any, format string, args ...any) {
		errs = append(errs, nodeErr(locate(n, path...), field, format, args...))
	}
	if opts.Pack == PackGeneric {
		errs = append(errs, packKeys(sc, n)...)
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
	messages, chars, over := 0, 0, false // generated so far (MaxGeneratedMessages, MaxGeneratedChars)
	for i, a := range sc.Agents {
		if a.ID == "" {
			bad(fmt.Sprintf("agents[%d].id", i), []any{"agents", i}, "required")
		}
		if ids[a.ID] {
			bad(fmt.Sprintf("agents[%d].id", i), []any{"agents", i, "id"}, "duplicate agent %q", a.ID)
		}
		if r, at, ok := unprintable(a.ID); ok {
			bad(fmt.Sprintf("agents[%d].id", i), []any{"agents", i, "id"}, unprintableMsg, r, at)
		}
		ids[a.ID] = true
		g := a.Generate
		if g == nil {
			continue
		}
		f, path := fmt.Sprintf("agents[%d].generate", i), []any{"agents", i, "generate"}
		switch {
		case g.Count < 1 || g.Chars < 1:
			bad(f, path, "count and chars must be ≥ 1")
		case over: // the bound is reported once
		case messages+g.Count > MaxGeneratedMessages:
			over = true
			bad(f, path, "generates %d messages, with the agents before it: more than %d a scenario (docs/scenarios.md: Limits)", messages+g.Count, MaxGeneratedMessages)
		case chars+g.Count*g.Chars > MaxGeneratedChars: // count ≤ MaxGeneratedMessages, chars ≤ MaxMs: it fits
			over = true
			bad(f, path, "generates %d characters (count × chars), with the agents before it: more than %d a scenario (docs/scenarios.md: Limits)", chars+g.Count*g.Chars, MaxGeneratedChars)
		default:
			messages += g.Count
			chars += g.Count * g.Chars
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
		if r, at, ok := unprintable(c.ID); ok {
			bad(f+".id", []any{"changes", i, "id"}, unprintableMsg, r, at)
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
	if n := Calls(sc); n > MaxCallsPerCase {
		bad("callers", []any{"callers"}, "the callers may make %d calls in one case: more than %d (a caller counts its maxCalls, default %d, when it follows or retries, else 1: set maxCalls lower, or use fewer callers; docs/scenarios.md: Limits)", n, MaxCallsPerCase, sim.DefaultMaxCalls)
	}
	names := map[string]bool{}
	toolOf := map[string]string{} // the tool each caller calls
	for i, c := range sc.Callers {
		f := fmt.Sprintf("callers[%d]", i)
		if c.Name == "" {
			bad(f+".name", []any{"callers", i}, "required")
		}
		if names[c.Name] {
			bad(f+".name", []any{"callers", i, "name"}, "duplicate caller %q", c.Name)
		}
		names[c.Name] = true
		if r, at, ok := unprintable(c.Name); ok {
			bad(f+".name", []any{"callers", i, "name"}, unprintableMsg, r, at)
		}
		if c.StartMs < 0 {
			bad(f+".startMs", []any{"callers", i, "startMs"}, "must be ≥ 0 ms")
		}
		if c.MaxCalls < 0 {
			bad(f+".maxCalls", []any{"callers", i, "maxCalls"}, "must be ≥ 0")
		}
		tool := c.Tool
		if tool == "" {
			tool = opts.defaultTool()
		}
		toolOf[c.Name] = tool
		schema, known := opts.Tools[tool]
		switch {
		case c.Tool != "" && opts.Tools != nil && !known:
			bad(f+".tool", []any{"callers", i, "tool"}, "no tool %q: the server lists %s", c.Tool, toolNames(opts.Tools))
			continue
		case c.Tool == "" && tool == "" && len(opts.Tools) > 1:
			bad(f+".tool", []any{"callers", i}, "the server lists several tools (%s): name the one this caller calls", toolNames(opts.Tools))
			continue
		case !known:
			continue // nothing to check the args against
		}
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		aps := argsProblems(resolveInput(schema), args, argNumbers(child(locate(n, "callers", i), "args")))
		switch {
		case len(aps) > 0 && !c.InvalidArgs:
			for _, ap := range aps {
				field := ap.field
				path := []any{"callers", i, "args"}
				if field != "" {
					path = append(path, field)
					field = "." + field
				}
				bad(f+".args"+field, path, "%s — breaks the tool's input schema%s; set invalidArgs: true if that is the point", ap.msg, opts.contractRef())
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
		caller := e.Caller
		if caller == "" && len(sc.Callers) == 1 {
			caller = sc.Callers[0].Name
		}
		for _, p := range replyFieldsProblems(e.ReplyFields, opts.Outputs[toolOf[caller]]) {
			bad(f+".replyFields."+p.field, []any{"expect", i, "replyFields", p.field}, "%s", p.msg)
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

// Calls is the number of calls the callers of sc may make at most: a
// caller that follows a chain (follow) or calls again after a transport
// failure (onTransportFailure: retry) makes up to its maxCalls (default
// sim.DefaultMaxCalls), any other one call.
func Calls(sc *Scenario) int {
	n := 0
	for _, c := range sc.Callers {
		switch {
		case !c.Follow && c.OnTransportFailure != string(sim.FailRetry):
			n++
		case c.MaxCalls > 0:
			n += c.MaxCalls
		default:
			n += sim.DefaultMaxCalls
		}
	}
	return n
}

// toolNames lists the names of tools, sorted, for a message.
func toolNames(tools map[string]*jsonschema.Schema) string {
	return strings.Join(slices.Sorted(maps.Keys(tools)), ", ")
}

// replyFieldsProblems are the problems of an expectation's replyFields
// against the output schema out of the tool its caller calls (nil: none
// published, nothing checked): a field the schema does not name (a typo
// would make "absent" hold for ever), or a value its field does not allow
// ("absent" and "present" aside). In field order.
func replyFieldsProblems(fields map[string]any, out *jsonschema.Schema) []argProblem {
	if len(fields) == 0 || out == nil || len(out.Properties) == 0 {
		return nil
	}
	in := resolveInput(out)
	names := slices.Sorted(maps.Keys(out.Properties))
	var ps []argProblem
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		prop, known := in.props[k]
		if _, named := out.Properties[k]; !named {
			hint := ""
			if near := results.Nearest(k, names); near != "" {
				hint = fmt.Sprintf("; did you mean %q?", near)
			}
			ps = append(ps, argProblem{field: k, msg: fmt.Sprintf("not a field of the tool's output schema%s (its fields: %s)", hint, strings.Join(names, ", "))})
			continue
		}
		v := fields[k]
		if v == "absent" || v == "present" || !known || in.err != nil {
			continue
		}
		var jv any
		if b, err := json.Marshal(v); err != nil || json.Unmarshal(b, &jv) != nil {
			continue
		}
		if err := prop.Validate(jv); err != nil {
			ps = append(ps, argProblem{field: k, msg: fmt.Sprintf("%s is not a value of this field of the tool's output schema: %s", results.JSONText(v), strings.TrimPrefix(err.Error(), "validating root: "))})
		}
	}
	return ps
}

// packKeys refuses the keys of the wait_agents pack (packOnly) that are
// set in a scenario checked for the generic layer (Options.Pack
// PackGeneric), each by name: a scenario built in code, or one whose file
// typeCheck already refused them in.
func packKeys(sc *Scenario, n ast.Node) []error {
	var errs []error
	check := func(v reflect.Value, path ...any) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if k, _ := yamlKey(f); packOnly(f) && !v.Field(i).IsZero() {
				p := append(append([]any(nil), path...), k)
				errs = append(errs, nodeErr(locate(n, p...), fieldPath(p), packKeyMsg))
			}
		}
	}
	check(reflect.ValueOf(sc).Elem())
	for i := range sc.Callers {
		check(reflect.ValueOf(&sc.Callers[i]).Elem(), "callers", i)
	}
	for i := range sc.Expect {
		check(reflect.ValueOf(&sc.Expect[i]).Elem(), "expect", i)
	}
	return errs
}

// validateTransport checks the transports of sc (the scenario's and each
// caller's) beyond their types: a knob that needs an HTTP mode.
func validateTransport(sc *Scenario, n ast.Node) []error {
	var errs []error
	check := func(t *TransportSpec, path ...any) {
		if err := t.Sim().Validate(); err != nil {
			errs = append(errs, nodeErr(locate(n, path...), fieldPath(path), "%v", err))
		}
	}
	check(sc.Transport, "transport")
	for i, c := range sc.Callers {
		check(c.Transport, "callers", i, "transport")
		if err := c.Sim().Validate(); err != nil {
			field, _, _ := strings.Cut(err.Error(), ":")
			errs = append(errs, nodeErr(locate(n, "callers", i, field), fieldPath([]any{"callers", i, field}), "%s", strings.TrimSpace(strings.TrimPrefix(err.Error(), field+":"))))
		}
	}
	if sc.CapMs != 0 && sc.CapMs < 1000 {
		errs = append(errs, nodeErr(locate(n, "capMs"), "capMs", "want at least 1000 ms (or leave it out: 30000)"))
	}
	return errs
}

func fieldPath(path []any) string {
	s := ""
	for _, p := range path {
		switch v := p.(type) {
		case string:
			if s != "" {
				s += "."
			}
			s += v
		case int:
			s += fmt.Sprintf("[%d]", v)
		}
	}
	return s
}

// Transport modes, protocol versions, client profiles and failure actions a
// scenario may name (enums of the loader and of scenarios/schema.json).
var (
	transportModes     = modeNames()
	protocolVersions   = []string{sim.Protocol20251125, sim.Protocol20260728}
	profileNames       = sim.ProfileNames()
	onTransportFailure = []string{string(sim.FailThrow), string(sim.FailRetry)}
)

func modeNames() []string {
	var out []string
	for _, m := range sim.Modes {
		out = append(out, string(m))
	}
	return out
}

// enumFields maps a field name to the values it may take.
var enumFields = map[string][]string{
	"mode":               transportModes,
	"protocol":           protocolVersions,
	"profile":            profileNames,
	"onTransportFailure": onTransportFailure,
}

// contractRef is where a tool's input schema is written down, for messages:
// the wait_agents contract's section, or nothing for a tool of one's own.
func (o *Options) contractRef() string {
	if o.Pack == PackGeneric {
		return ""
	}
	return " (contract §2)"
}
