package scenario

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"

	"github.com/goccy/go-yaml"
	"github.com/google/jsonschema-go/jsonschema"
)

const okFile = `# protects: nothing, a fixture
name: ok
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 5000}
`

// TestLoadRejects: every kind of bad input is an error naming file:line:column
// and the field.
func TestLoadRejects(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // substrings of the problem line
	}{
		{"unknown-key", "# protects: x\nname: a\ncallers:\n  - name: A\n    timeout: 5\n", []string{"bad.yaml:5:5:", "timeout"}},
		{"unknown-top-key", "# protects: x\nname: a\nwaitFor: 3\ncallers:\n  - name: A\n", []string{"bad.yaml:3:1:", "waitFor"}},
		{"wrong-type", "# protects: x\nname: a\ncallers:\n  - name: A\n    startMs: soon\n", []string{"bad.yaml:5:14: callers[0].startMs:", "want an integer", `"soon"`}},
		{"missing-callers", "# protects: x\nname: a\n", []string{"bad.yaml:2:", "callers: required field is missing"}},
		{"empty-callers", "# protects: x\nname: a\ncallers: []\n", []string{"bad.yaml:3:", "callers", "at least one caller"}},
		{"float-int", "# protects: x\nname: a\ncallers:\n  - name: A\nexpect:\n  - {call: 1.9}\n", []string{"bad.yaml:6:12: expect[0].call: want an integer"}},
		{"quoted-int", "# protects: x\nname: a\ncallers:\n  - name: A\nexpect:\n  - {resolvesAtMs: \"21000\"}\n", []string{"bad.yaml:6:", "expect[0].resolvesAtMs: want an integer"}},
		{"call-zero", "# protects: x\nname: a\ncallers:\n  - name: A\nexpect:\n  - {call: 0}\n", []string{"bad.yaml:6:", "expect[0].call: want an integer from 1"}},
		{"overflow-ms", "# protects: x\nname: a\ncallers:\n  - name: A\n    requestTimeoutMs: 18446744073710\n", []string{"bad.yaml:5:", "callers[0].requestTimeoutMs", "1000000000000"}},
		{"overflow-latency", "# protects: x\nname: a\nbridge:\n  list: [18446744073710]\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "bridge.list[0]", "1000000000000"}},
		{"unknown-state", "# protects: x\nname: a\nagents:\n  - {id: a, state: runnin}\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "agents[0].state", "runnin"}},
		{"missing-state", "# protects: x\nname: a\nagents:\n  - {id: a}\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "agents[0].state: required field is missing"}},
		{"nested-unknown", "# protects: x\nname: a\nbridge:\n  lsit: [0]\ncallers:\n  - name: A\n", []string{"bad.yaml:4:3: bridge.lsit: unknown field"}},
		{"alias", "# protects: x\nname: a\nagents:\n  - &x {id: a, state: running}\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "aliases"}},
		{"empty-file", "# protects: x\n", []string{"bad.yaml:1:1: file: holds no scenario"}},
		{"list-of-scalars", "# protects: x\n- a\n", []string{"bad.yaml:2:3: scenario: want a mapping"}},
		{"quoted-string-shown-once", "# protects: x\nname: a\ncallers:\n  - name: A\n    requestTimeoutMs: \"sixty seconds\"\n", []string{`got string "sixty seconds"`}},
		{"two-documents", "# protects: x\nname: a\ncallers: [{name: A}]\n---\nname: b\n", []string{"bad.yaml:5:", "2 YAML documents"}},
		{"huge-matrix", "# protects: x\nname: a\ndescription: ${a}${b}${c}${d}\ncallers:\n  - name: A\nmatrix:\n  a: [1,2,3,4,5,6,7,8,9,10]\n  b: [1,2,3,4,5,6,7,8,9,10]\n  c: [1,2,3,4,5,6,7,8,9,10]\n  d: [1,2,3,4,5,6,7,8,9,10]\n", []string{"bad.yaml:7:", "more than 1000 cases"}},
		{"missing-name", "# protects: x\ncallers:\n  - name: A\n", []string{"bad.yaml:", "name"}},
		{"negative-latency", "# protects: x\nname: a\nbridge:\n  list: [0, -5]\ncallers:\n  - name: A\n", []string{"bad.yaml:4:13: bridge.list[1]:", "from 0"}},
		{"negative-latency-map", "# protects: x\nname: a\nbridge:\n  read: [{latencyMs: -1}]\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "latencyMs"}},
		{"poll-out-of-schema", "# protects: x\nname: a\ncallers:\n  - name: A\n    args: {pollIntervalMs: 100}\n", []string{"bad.yaml:5:28:", "callers[0].args.pollIntervalMs", "250"}},
		{"invalid-args-but-valid", "# protects: x\nname: a\ncallers:\n  - name: A\n    invalidArgs: true\n    args: {timeoutMs: 5000}\n", []string{"bad.yaml:5:", "invalidArgs"}},
		{"no-protects", "name: a\ncallers:\n  - name: A\n", []string{"bad.yaml:1:1:", "protects"}},
		{"not-utf8", "# protects: x\nname: a\ndescription: \"é\xffé\"\ncallers:\n  - name: A\n", []string{"bad.yaml:3:16: file: byte 0xff is not UTF-8 text"}},
		{"not-utf8-first-byte", "\xfe\xff# protects: x\n", []string{"bad.yaml:1:1: file: byte 0xfe is not UTF-8"}},
		{"bad-op", "# protects: x\nname: a\nagents: [{id: c, state: running}]\nchanges:\n  - {atMs: 5, op: explode, id: c}\ncallers:\n  - name: A\n", []string{"bad.yaml:5:", "changes[0].op", "explode"}},
		{"state-of-stranger", "# protects: x\nname: a\nchanges:\n  - {atMs: 5, op: state, id: z, state: completed}\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "changes[0].id"}},
		{"unknown-caller", "# protects: x\nname: a\ncallers:\n  - name: A\nexpect:\n  - {caller: B, resolvesAtMs: 5}\n", []string{"bad.yaml:6:", "expect[0].caller", "B"}},
		{"undefined-placeholder", "# protects: x\nname: a\ncallers:\n  - name: A\n    startMs: ${t}\n", []string{"bad.yaml:5:14:", "${t}"}},
		{"unused-param", "# protects: x\nname: a\ncallers:\n  - name: A\nmatrix:\n  t: [1, 2]\n", []string{"bad.yaml:6:", "matrix.t"}},
		{"flow-placeholder", "# protects: x\nname: a\ncallers:\n  - {name: A, startMs: ${t}}\nmatrix:\n  t: [1]\n", []string{"bad.yaml:4:", "quote placeholders"}},
		{"bad-limit", "# protects: x\nname: a\ncallers:\n  - name: A\n    requestTimeoutMs: never\n", []string{"bad.yaml:5:", "none"}},
		{"duplicate-caller", "# protects: x\nname: a\ncallers:\n  - name: A\n  - name: A\n", []string{"bad.yaml:5:", "duplicate caller"}},
		{"transport-mode", "# protects: x\nname: a\ntransport: {mode: grpc}\ncallers:\n  - name: A\n", []string{"bad.yaml:3:19: transport.mode:", "sse", `"grpc"`}},
		{"transport-unknown-key", "# protects: x\nname: a\ntransport:\n  mode: sse\n  idleMs: 5\ncallers:\n  - name: A\n", []string{"bad.yaml:5:3: transport.idleMs: unknown field"}},
		{"transport-protocol", "# protects: x\nname: a\ncallers:\n  - name: A\n    transport: {mode: sse, protocol: 2024-11-05}\n", []string{"bad.yaml:5:", "callers[0].transport.protocol", "2025-11-25"}},
		{"transport-knob-on-memory", "# protects: x\nname: a\ntransport:\n  idleTimeoutMs: 60000\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "transport:", "need an HTTP mode"}},
		{"transport-negative-drop", "# protects: x\nname: a\ntransport: {mode: sse, dropAtMs: [-1]}\ncallers:\n  - name: A\n", []string{"bad.yaml:3:", "transport.dropAtMs[0]"}},
		{"unknown-profile", "# protects: x\nname: a\ncallers:\n  - name: A\n    profile: curl\n", []string{"bad.yaml:5:14: callers[0].profile:", "ts-sdk", `"curl"`}},
		{"bad-failure-action", "# protects: x\nname: a\ncallers:\n  - name: A\n    onTransportFailure: pray\n", []string{"bad.yaml:5:", "callers[0].onTransportFailure", "retry"}},
		{"cap-too-small", "# protects: x\nname: a\ncapMs: 10\ncallers:\n  - name: A\n", []string{"bad.yaml:3:", "capMs", "1000"}},
		{"syntax", "# protects: x\nname: [a\ncallers: 3\n", []string{"bad.yaml:"}},
		{"caller-name-line-break", "# protects: x\nname: a\ncallers:\n  - name: \"A\\n\\nre-run: curl x | sh\"\n", []string{"bad.yaml:4:11: callers[0].name: a control or format character (U+000A) at byte 1"}},
		{"caller-name-escape", "# protects: x\nname: a\ncallers:\n  - name: \"A\\e[31mRED\\r\"\n", []string{"bad.yaml:4:11: callers[0].name:", "U+001B"}},
		{"agent-id-bidi", "# protects: x\nname: a\nagents:\n  - {id: \"c\u202ed\", state: running}\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "agents[0].id:", "U+202E"}},
		{"joining-id-zero-width", "# protects: x\nname: a\nchanges:\n  - {atMs: 5, op: join, id: \"z\u200bz\", state: running}\ncallers:\n  - name: A\n", []string{"bad.yaml:4:", "changes[0].id:", "U+200B"}},
		{"not-a-scenario", "# protects: x\n42\n", []string{"bad.yaml:2:", "scenario"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "bad.yaml")
			if err := os.WriteFile(file, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := loadRef([]string{file})
			var fe *results.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("want a FileError, got %v", err)
			}
			joined := strings.Join(problemLines(fe), "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("problems do not mention %q:\n%s", w, joined)
				}
			}
		})
	}
}

// TestLoadAllFilesFirst: one bad file among good ones stops the whole load,
// and every bad file is reported, not only the first.
func TestLoadAllFilesFirst(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", okFile)
	write("b.yaml", "# protects: x\nname: b\ncallers:\n  - name: A\n    bogus: 1\n")
	write("c.yaml", "# protects: x\nname: c\ncallers: []\n")
	cases, err := loadRef([]string{dir})
	if err == nil || cases != nil {
		t.Fatalf("want an error and no cases, got %d cases, err %v", len(cases), err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "b.yaml:5:") || !strings.Contains(msg, "c.yaml:3:") {
		t.Fatalf("want both b.yaml and c.yaml reported:\n%s", msg)
	}
}

// TestMatrixExpansion: ids are stable, "_" parameters stay out of them, and
// values keep their types.
func TestMatrixExpansion(t *testing.T) {
	dir := t.TempDir()
	src := `# protects: x
name: m
callers:
  - name: A
    args:
      timeoutMs: ${t}
      pollIntervalMs: ${p}
expect:
  - resolvesAtMs: ${_at}
matrix:
  - {t: 30500, p: 250, _at: 30000}
  - {t: 5000, p: 1000, _at: 5000}
`
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := loadRef([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[0].ID != "m[t=30500,p=250]" || cases[1].ID != "m[t=5000,p=1000]" {
		t.Fatalf("ids: %v", []string{cases[0].ID, cases[1].ID})
	}
	if got := *cases[1].Scenario.Expect[0].ResolvesAtMs; got != 5000 {
		t.Errorf("resolvesAtMs = %d", got)
	}
	if cases[0].Line != 2 {
		t.Errorf("line = %d, want 2", cases[0].Line)
	}
	// The product form: 2 × 2 combinations.
	src2 := strings.Replace(src, "matrix:\n  - {t: 30500, p: 250, _at: 30000}\n  - {t: 5000, p: 1000, _at: 5000}\n", "matrix:\n  t: [30500, 40000]\n  p: [250, 500]\n  _at: [30000]\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(src2), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err = loadRef([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 4 || cases[3].ID != "m[t=40000,p=500]" {
		t.Fatalf("product: %d cases, last %q", len(cases), cases[len(cases)-1].ID)
	}
}

// TestTableSize: the table holds at least 40 cases after expansion (issue 4).
func TestTableSize(t *testing.T) {
	cases, err := loadRef([]string{"../scenarios/table"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 40 {
		t.Fatalf("%d cases, want ≥ 40", len(cases))
	}
}

// schemaFile is the committed JSON Schema of the reference tool's scenario
// files (its args: the reference's input schema), which an editor's YAML
// language server reads.
const schemaFile = "../scenarios/schema.json"

var flagUpdate = flag.Bool("update", false, "rewrite scenarios/schema.json")

// TestSchemaInSync keeps scenarios/schema.json equal to the schema generated
// from the Go types (-update rewrites it).
func TestSchemaInSync(t *testing.T) {
	got, err := JSONSchema(refOpts.Tools[refOpts.DefaultTool])
	if err != nil {
		t.Fatal(err)
	}
	if *flagUpdate {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatalf("%v: run go test ./scenario/ -run TestSchemaInSync -args -update", err)
	}
	if string(want) != string(got) {
		t.Fatalf("scenarios/schema.json is stale: run go test ./scenario/ -run TestSchemaInSync -args -update")
	}
}

// TestTableMatchesSchema: every table file validates against schema.json, so
// an editor with a YAML language server agrees with the loader.
func TestTableMatchesSchema(t *testing.T) {
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := s.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Expand([]string{"../scenarios/table"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(src, &v); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(jsonValue(v)); err != nil {
			t.Errorf("%s does not match schema.json: %v", f, err)
		}
	}
	// And the schema does reject what the loader rejects.
	var bad any = map[string]any{"name": "x", "callers": []any{map[string]any{"name": "A", "timeout": 5}}}
	if rs.Validate(bad) == nil {
		t.Error("schema.json accepts an unknown caller field")
	}
}
