package scenario

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/waitsim/waitsim/results"
)

// loadWith writes src as f.yaml and loads it with opts: the problems as
// lines, with the file's path cut to "f.yaml".
func loadWith(t *testing.T, opts Options, src string) []string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.yaml")
	if err := os.WriteFile(file, []byte("# protects: nothing\n"+src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load([]string{file}, opts)
	if err == nil {
		return nil
	}
	fe, ok := err.(*results.FileError)
	if !ok {
		t.Fatalf("want a FileError, got %v", err)
	}
	var out []string
	for _, p := range fe.Problems {
		out = append(out, strings.ReplaceAll(p.String(), dir+"/", ""))
	}
	return out
}

func schemaOf(t *testing.T, src string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// The tools of Options: a caller's args are checked against its tool's
// published input schema (tool:, or the default tool, or the only one); a
// tool the server does not list, or no tool: among several, is a problem;
// without Tools, args are not checked.
func TestLoadOptionsTools(t *testing.T) {
	a := schemaOf(t, `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":5}},"additionalProperties":false}`)
	b := schemaOf(t, `{"type":"object","properties":{"s":{"type":"string"}},"required":["s"],"additionalProperties":false}`)
	two := Options{Pack: PackGeneric, Tools: map[string]*jsonschema.Schema{"a": a, "b": b}}
	for _, tc := range []struct {
		name string
		opts Options
		src  string
		want []string
	}{
		{"named-ok", two, "name: x\ncallers:\n  - {name: A, tool: a, args: {n: 5}}\n  - {name: B, tool: b, args: {s: hi}}\n", nil},
		{"named-bad-args", two, "name: x\ncallers:\n  - {name: A, tool: a, args: {n: 6}}\n",
			[]string{"f.yaml:4:34: callers[0].args.n: 6 is a number out of range: want an integer from 1 to 5 — breaks the tool's input schema; set invalidArgs: true if that is the point"}},
		{"unknown-tool", two, "name: x\ncallers:\n  - {name: A, tool: c}\n",
			[]string{`f.yaml:4:21: callers[0].tool: no tool "c": the server lists a, b`}},
		{"no-tool-of-several", two, "name: x\ncallers:\n  - {name: A}\n",
			[]string{"f.yaml:4:5: callers[0].tool: the server lists several tools (a, b): name the one this caller calls"}},
		{"default-tool", Options{Pack: PackGeneric, DefaultTool: "b", Tools: two.Tools}, "name: x\ncallers:\n  - {name: A, args: {n: 1}}\n",
			[]string{"f.yaml:4:21: callers[0].args.s: required argument missing — breaks the tool's input schema; set invalidArgs: true if that is the point",
				"f.yaml:4:25: callers[0].args.n: unknown argument: not in the tool's input schema — breaks the tool's input schema; set invalidArgs: true if that is the point"}},
		{"only-tool", Options{Pack: PackGeneric, Tools: map[string]*jsonschema.Schema{"a": a}}, "name: x\ncallers:\n  - {name: A, args: {n: 0}}\n",
			[]string{"f.yaml:4:25: callers[0].args.n: 0 is a number out of range: want an integer from 1 to 5 — breaks the tool's input schema; set invalidArgs: true if that is the point"}},
		{"no-tools", Options{Pack: PackGeneric}, "name: x\ncallers:\n  - {name: A, tool: zzz, args: {anything: [1, 2]}}\n", nil},
		{"bad-schema", Options{Pack: PackGeneric, Tools: map[string]*jsonschema.Schema{"a": schemaOf(t, `{"$ref":"#/nope"}`)}}, "name: x\ncallers:\n  - {name: A}\n",
			[]string{"f.yaml:4:5: callers[0].args: the tool's input schema does not resolve"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := loadWith(t, tc.opts, tc.src)
			if len(got) != len(tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %d: got %q\nwant %q…", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// Loaded for the generic layer, every key of the wait_agents pack is a
// problem named by its field; loaded for the pack, none is.
func TestLoadGenericRefusesPackKeys(t *testing.T) {
	src := `name: x
noBridge: true
capMs: 1000
timers: {lateMs: 1}
agents: [{id: c, state: running}]
changes: [{atMs: 5, op: state, id: c, state: completed}]
callers:
  - {name: A, follow: true, maxCalls: 2}
expect:
  - {reply: {done: true}, lists: 1, reads: 1, stranded: 0}
`
	got := loadWith(t, Options{Pack: PackGeneric}, src)
	var fields []string
	for _, p := range got {
		if strings.Contains(p, "a key of the wait_agents pack") {
			fields = append(fields, strings.SplitN(p, ": ", 3)[1])
		}
	}
	want := []string{"noBridge", "capMs", "timers", "agents", "changes", "callers[0].follow", "callers[0].maxCalls",
		"expect[0].reply", "expect[0].lists", "expect[0].reads", "expect[0].stranded"}
	if !slices.Equal(fields, want) || len(got) != len(want) {
		t.Errorf("generic: fields %q (all: %q)\nwant %q", fields, got, want)
	}
	if got := loadWith(t, Options{Pack: PackWaitAgents}, src); len(got) != 0 {
		t.Errorf("for the pack: %q, want no problem", got)
	}
	if got := loadWith(t, Options{Pack: PackGeneric}, "name: x\nbridge: {list: [5]}\ncallers: [{name: A}]\n"); len(got) != 1 || !strings.HasPrefix(got[0], "f.yaml:3:1: bridge: a key of the wait_agents pack") {
		t.Errorf("bridge: %q", got)
	}
	// A pack key is one problem, whatever it holds (not its unknown
	// subkeys first), and the known keys a mistyped one is told of are
	// the generic layer's alone.
	if got := loadWith(t, Options{Pack: PackGeneric}, "name: x\ncallers: [{name: A}]\nexpect: [{caller: A, reply: {ready: false}}]\n"); len(got) != 1 || !strings.Contains(got[0], "expect[0].reply: a key of the wait_agents pack") {
		t.Errorf("reply with a key the pack does not know: %q, want the one problem that reply is a pack key", got)
	}
	got = loadWith(t, Options{Pack: PackGeneric}, "name: x\ncallers: [{name: A, folow: true}]\n")
	if len(got) != 1 || !strings.Contains(got[0], "callers[0].folow: unknown field") || strings.Contains(got[0], "follow") || strings.Contains(got[0], "maxCalls") {
		t.Errorf("a mistyped caller key: %q, want it unknown, with no pack key named", got)
	}
}

// Case ids are go test names too: two that go test would run as one, or
// one with a '/' (a subtest level to go test), are problems.
func TestLoadIdsAsTestNames(t *testing.T) {
	if got := loadWith(t, Options{}, "name: x\nmatrix: {p: [\"a b\", \"a_b\"]}\ncallers: [{name: \"${p}\"}]\n"); len(got) != 1 ||
		!strings.Contains(got[0], `case id "x[p=a_b]" and case id "x[p=a b]"`) || !strings.Contains(got[0], `one go test name, "x[p=a_b]"`) {
		t.Errorf("colliding ids: %q", got)
	}
	if got := loadWith(t, Options{}, "name: x\nmatrix: {p: [\"a/b\"]}\ncallers: [{name: \"${p}\"}]\n"); len(got) != 1 || !strings.Contains(got[0], `case id "x[p=a/b]" holds a '/'`) {
		t.Errorf("an id with a slash: %q", got)
	}
	if got := loadWith(t, Options{}, "name: x\nmatrix: {p: [\"a b\", \"a-b\"]}\ncallers: [{name: \"${p}\"}]\n"); len(got) != 0 {
		t.Errorf("ids that stay apart: %q", got)
	}
}

// capMs: 1000 is the least cap; 999 is refused.
func TestLoadCapBound(t *testing.T) {
	if got := loadWith(t, Options{}, "name: x\ncapMs: 1000\ncallers: [{name: A}]\n"); len(got) != 0 {
		t.Errorf("capMs 1000: %q", got)
	}
	if got := loadWith(t, Options{}, "name: x\ncapMs: 999\ncallers: [{name: A}]\n"); len(got) != 1 || !strings.Contains(got[0], "capMs: want at least 1000 ms") {
		t.Errorf("capMs 999: %q", got)
	}
}

// A case's callers carry their args as JSON values (numbers as float64,
// as a JSON decoder gives them), whatever YAML decoded them as.
func TestLoadArgsAreJSONValues(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.yaml")
	src := "# protects: nothing\nname: x\ncallers:\n  - {name: A, args: {n: 5, l: [1, 2], m: {k: 3}}}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := Load([]string{file}, Options{Pack: PackGeneric})
	if err != nil {
		t.Fatal(err)
	}
	args := cases[0].World().Callers[0].Args
	if n, ok := args["n"].(float64); !ok || n != 5 {
		t.Errorf("n = %#v, want float64 5", args["n"])
	}
	if l, ok := args["l"].([]any); !ok || l[1] != float64(2) {
		t.Errorf("l = %#v, want []any of float64", args["l"])
	}
	if m, ok := args["m"].(map[string]any); !ok || m["k"] != float64(3) {
		t.Errorf("m = %#v, want map[string]any of float64", args["m"])
	}
}

// replyFields are checked against the output schema of the tool the
// caller calls, when it publishes one: a field it does not name is a
// problem with the nearest one (a typo beside "absent" would hold for
// ever), a value its field does not allow is one too; "absent" and
// "present" are any field's; without an output schema nothing is checked.
func TestLoadReplyFieldsAgainstOutputSchema(t *testing.T) {
	out := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"done": {Type: "boolean"}, "remainingMs": {Type: "integer"}}}
	opts := Options{Pack: PackGeneric, Tools: map[string]*jsonschema.Schema{"t": {Type: "object"}}, Outputs: map[string]*jsonschema.Schema{"t": out}}
	src := "name: x\ncallers: [{name: A}]\nexpect:\n  - {caller: A, replyFields: {done: true, remainingMS: absent, remainingMs: \"70000\", Done: present}}\n"
	got := loadWith(t, opts, src)
	want := []string{
		`f.yaml:5:56: expect[0].replyFields.remainingMS: not a field of the tool's output schema; did you mean "remainingMs"? (its fields: done, remainingMs)`,
		`f.yaml:5:77: expect[0].replyFields.remainingMs: "70000" is not a value of this field of the tool's output schema: type: 70000 has type "string", want "integer"`,
		`f.yaml:5:92: expect[0].replyFields.Done: not a field of the tool's output schema; did you mean "done"? (its fields: done, remainingMs)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := loadWith(t, Options{Pack: PackGeneric, Tools: opts.Tools}, src); len(got) != 0 {
		t.Errorf("no output schema: %q, want nothing checked", got)
	}
	if got := loadWith(t, opts, "name: x\ncallers: [{name: A}]\nexpect:\n  - {replyFields: {done: false, remainingMs: 5}}\n  - {replyFields: {done: present, remainingMs: absent}}\n"); len(got) != 0 {
		t.Errorf("fields and values the schema has: %q", got)
	}
	// An expectation without caller: (one caller) is checked against that
	// caller's tool too.
	if got := loadWith(t, opts, "name: x\ncallers: [{name: A}]\nexpect:\n  - {replyFields: {don: true}}\n"); len(got) != 1 || !strings.Contains(got[0], `expect[0].replyFields.don: not a field of the tool's output schema; did you mean "done"?`) {
		t.Errorf("an expectation of the one caller: %q", got)
	}
}

// A scenario built in code (Validate) with keys of the wait_agents pack,
// checked for the generic layer, names each by its field.
func TestLoadValidatePackKeysInCode(t *testing.T) {
	sc := &Scenario{Name: "x", NoBridge: true, Callers: []CallerSpec{{Name: "A", Follow: true}}, Expect: []Expect{{Caller: "A", Lists: new(int)}}}
	var got []string
	for _, err := range Validate(sc, Options{Pack: PackGeneric}) {
		got = append(got, err.Error())
	}
	want := []string{"0:0: noBridge: " + packKeyMsg, "0:0: callers[0].follow: " + packKeyMsg, "0:0: expect[0].lists: " + packKeyMsg}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
