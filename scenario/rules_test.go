package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"
)

// Who tests the tester: every loader rule (load.go's validate and the type
// check of rules.go) refuses a file that breaks it with its exact
// file:line:column: field: message line, and lets the file that keeps it
// through (at its edge, where a comparison could be off by one).

// loadProblems writes src as bad.yaml and loads it: the problem lines, with
// the directory cut off ("bad.yaml:…"), or nil when it loads.
func loadProblems(t *testing.T, src string) []string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadRef([]string{file})
	if err == nil {
		return nil
	}
	var fe *results.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("want a FileError, got %v", err)
	}
	out := make([]string, len(problemLines(fe)))
	for i, p := range problemLines(fe) {
		out[i] = strings.TrimPrefix(p, dir+string(filepath.Separator))
	}
	return out
}

// TestLoaderRulesFire: each rule, broken, gives exactly its problem lines;
// kept, none.
func TestLoaderRulesFire(t *testing.T) {
	const head = "# protects: x\nname: a\n"
	const caller = "callers:\n  - name: A\n"
	const argsTail = " — breaks the tool's input schema (contract §2); set invalidArgs: true if that is the point"
	cases := []struct {
		name, src string
		want      []string // nil: the file loads
	}{
		// name
		{"name-ok", "# protects: x\nname: a.b_c-1\n" + caller, nil},
		{"name-space", "# protects: x\nname: a b\n" + caller, []string{`bad.yaml:2:7: name: want letters, digits, '-', '_' or '.', starting with a letter or digit; got "a b"`}},
		{"name-dash-first", "# protects: x\nname: -a\n" + caller, []string{`bad.yaml:2:7: name: want letters, digits, '-', '_' or '.', starting with a letter or digit; got "-a"`}},
		// bridge
		{"no-bridge-with-bridge", head + "noBridge: true\nbridge: {list: [0]}\n" + caller, []string{"bad.yaml:3:11: noBridge: noBridge with a bridge script"}},
		{"no-bridge", head + "noBridge: true\n" + caller, nil},
		{"list-step-outputs", head + "bridge:\n  list: [0, {outputs: [{id: c, messages: [x]}]}]\n" + caller,
			[]string{"bad.yaml:4:13: bridge.list[1].outputs: only an output read (bridge.read) returns outputs"}},
		{"read-step-outputs", head + "bridge:\n  read: [0, {outputs: [{id: c, messages: [x]}]}]\n" + caller, nil},
		{"cache-zero", head + "bridge: {cacheMs: 0}\n" + caller, nil},
		{"congestion-at-zero", head + "bridge:\n  congestion: [{atMs: 0, holdMs: 0}]\n" + caller, nil},
		{"horizon-one", head + "horizonMs: 1\n" + caller, nil},
		{"horizon-zero", head + "horizonMs: 0\n" + caller, []string{"bad.yaml:3:12: horizonMs: want an integer from 1 to 1000000000000; got 0"}},
		{"start-zero", head + "callers:\n  - {name: A, startMs: 0, maxCalls: 1}\n", nil},
		{"max-calls-zero", head + "callers:\n  - {name: A, maxCalls: 0}\n", []string{"bad.yaml:4:25: callers[0].maxCalls: want an integer from 1 to 1000000000000; got 0"}},
		{"ms-at-max", head + "callers:\n  - {name: A, startMs: 1000000000000}\n", nil},
		{"ms-above-max", head + "callers:\n  - {name: A, startMs: 1000000000001}\n", []string{"bad.yaml:4:24: callers[0].startMs: want an integer from 0 to 1000000000000; got 1000000000001"}},
		{"limit-at-max", head + "callers:\n  - {name: A, requestTimeoutMs: 1000000000000}\n", nil},
		{"limit-one", head + "callers:\n  - {name: A, requestTimeoutMs: 1}\n", nil},
		{"limit-none", head + "callers:\n  - {name: A, requestTimeoutMs: none}\n", nil},
		{"limit-zero", head + "callers:\n  - {name: A, requestTimeoutMs: 0}\n", []string{`bad.yaml:4:33: callers[0].requestTimeoutMs: want an integer from 1 to 1000000000000 (ms), or "none"; got 0`}},
		{"limit-above-max", head + "callers:\n  - {name: A, requestTimeoutMs: 1000000000001}\n", []string{`bad.yaml:4:33: callers[0].requestTimeoutMs: want an integer from 1 to 1000000000000 (ms), or "none"; got 1000000000001`}},
		{"limit-a-list", head + "callers:\n  - {name: A, requestTimeoutMs: [1]}\n", []string{`bad.yaml:4:33: callers[0].requestTimeoutMs: want an integer (ms) or "none"; got sequence "[1]"`}},
		// agents
		{"agent-empty-id", head + "agents:\n  - {id: \"\", state: running}\n" + caller, []string{"bad.yaml:4:5: agents[0].id: required"}},
		{"agent-twice", head + "agents:\n  - {id: c, state: running}\n  - {id: c, state: completed}\n" + caller,
			[]string{`bad.yaml:5:10: agents[1].id: duplicate agent "c"`}},
		{"agent-other-state", head + "agents:\n  - {id: c, state: \"other:archived\"}\n" + caller, nil},
		{"agent-other-empty", head + "agents:\n  - {id: c, state: \"other:\"}\n" + caller,
			[]string{`bad.yaml:4:20: agents[0].state: unknown state "other:": want one of ["" "created" "prompt_sent" "running" "waiting" "completed" "failed" "cancelled"], or other:NAME for a state the tool does not know`}},
		{"agent-no-state-value", head + "agents:\n  - {id: c, state: \"\"}\n" + caller, nil},
		{"generate-one", head + "agents:\n  - {id: c, state: running, generate: {count: 1, chars: 1}}\n" + caller, nil},
		{"generate-zero", head + "agents:\n  - {id: c, state: running, generate: {count: 0, chars: 1}}\n" + caller,
			[]string{"bad.yaml:4:47: agents[0].generate.count: want an integer from 1 to 1000000000000; got 0"}},
		// changes, in time order whatever the file's order
		{"join-then-leave", head + "changes:\n  - {atMs: 10, op: leave, id: c}\n  - {atMs: 5, op: join, id: c}\n" + caller, nil},
		{"leave-then-join", head + "changes:\n  - {atMs: 5, op: leave, id: c}\n  - {atMs: 10, op: join, id: c}\n" + caller,
			[]string{`bad.yaml:4:30: changes[0].id: "c" leaves but is not in the run`}},
		{"join-twice", head + "agents:\n  - {id: c, state: running}\nchanges:\n  - {atMs: 0, op: join, id: c}\n" + caller,
			[]string{`bad.yaml:6:29: changes[0].id: "c" joins but is already in the run`}},
		{"leave-and-join-at-one-instant-in-file-order", head + "agents:\n  - {id: c, state: running}\nchanges:\n  - {atMs: 5, op: leave, id: c}\n  - {atMs: 5, op: join, id: c}\n" + caller, nil},
		{"rejoin", head + "agents:\n  - {id: c, state: running}\nchanges:\n  - {atMs: 1, op: leave, id: c}\n  - {atMs: 2, op: join, id: c}\n  - {atMs: 3, op: state, id: c, state: completed}\n" + caller, nil},
		{"state-after-leave", head + "agents:\n  - {id: c, state: running}\nchanges:\n  - {atMs: 1, op: leave, id: c}\n  - {atMs: 2, op: state, id: c, state: completed}\n" + caller,
			[]string{`bad.yaml:7:30: changes[1].id: "c" is not in the run at 2 ms`}},
		{"state-without-state", head + "agents:\n  - {id: c, state: running}\nchanges:\n  - {atMs: 1, op: state, id: c}\n" + caller,
			[]string{"bad.yaml:6:5: changes[0].state: op state needs the new state"}},
		{"state-to-empty", head + "agents:\n  - {id: c, state: running}\nchanges:\n  - {atMs: 1, op: state, id: c, state: \"\"}\n" + caller, nil},
		// callers
		{"caller-empty-name", head + "callers:\n  - {name: \"\"}\n", []string{"bad.yaml:4:5: callers[0].name: required"}},
		{"args-valid", head + "callers:\n  - {name: A, args: {timeoutMs: 1000}}\n", nil},
		{"args-two-problems-in-document-order", head + "callers:\n  - name: A\n    args:\n      timeoutMs: 5\n      pollIntervalMs: 10\n      bogus: 1\n",
			[]string{"bad.yaml:6:18: callers[0].args.timeoutMs: 5 is a number out of range: want an integer from 1000 to 600000 — breaks the tool's input schema (contract §2); set invalidArgs: true if that is the point",
				"bad.yaml:7:23: callers[0].args.pollIntervalMs: 10 is a number out of range: want an integer from 250 to 10000 — breaks the tool's input schema (contract §2); set invalidArgs: true if that is the point",
				"bad.yaml:8:14: callers[0].args.bogus: unknown argument: not in the tool's input schema — breaks the tool's input schema (contract §2); set invalidArgs: true if that is the point"}},
		{"args-same-line-by-column", head + "callers:\n  - {name: A, args: {timeoutMs: 5, pollIntervalMs: 10}}\n",
			[]string{"bad.yaml:4:33: callers[0].args.timeoutMs: 5 is a number out of range: want an integer from 1000 to 600000 — breaks the tool's input schema (contract §2); set invalidArgs: true if that is the point",
				"bad.yaml:4:52: callers[0].args.pollIntervalMs: 10 is a number out of range: want an integer from 250 to 10000 — breaks the tool's input schema (contract §2); set invalidArgs: true if that is the point"}},
		{"invalid-args-declared", head + "callers:\n  - {name: A, invalidArgs: true, args: {timeoutMs: 5}}\n", nil},
		// a number in args: its range as written, whatever YAML reads it as
		{"args-at-min", head + "callers:\n  - {name: A, args: {timeoutMs: 1000, pollIntervalMs: 250}}\n", nil},
		{"args-at-max", head + "callers:\n  - {name: A, args: {timeoutMs: 600000, pollIntervalMs: 10000}}\n", nil},
		{"args-below-min", head + "callers:\n  - {name: A, args: {timeoutMs: 999}}\n",
			[]string{"bad.yaml:4:33: callers[0].args.timeoutMs: 999 is a number out of range: want an integer from 1000 to 600000" + argsTail}},
		{"args-above-max", head + "callers:\n  - {name: A, args: {pollIntervalMs: 10001}}\n",
			[]string{"bad.yaml:4:38: callers[0].args.pollIntervalMs: 10001 is a number out of range: want an integer from 250 to 10000" + argsTail}},
		{"args-1e308", head + "callers:\n  - name: A\n    args: {timeoutMs: 1e308}\n",
			[]string{"bad.yaml:5:23: callers[0].args.timeoutMs: 1e308 is a number out of range: want an integer from 1000 to 600000" + argsTail}},
		{"args-beyond-float64", head + "callers:\n  - name: A\n    args: {timeoutMs: -1.0e400}\n",
			[]string{"bad.yaml:5:23: callers[0].args.timeoutMs: -1.0e400 is a number out of range: want an integer from 1000 to 600000" + argsTail}},
		{"args-beyond-int64", head + "callers:\n  - name: A\n    args: {maxTotalChars: 99999999999999999999}\n",
			[]string{"bad.yaml:5:27: callers[0].args.maxTotalChars: 99999999999999999999 is a number out of range: want an integer from 1000 to 2000000" + argsTail}},
		{"args-float-huge", head + "callers:\n  - name: A\n    args: {timeoutMs: 1.0e308}\n",
			[]string{"bad.yaml:5:23: callers[0].args.timeoutMs: 1.0e308 is a number out of range: want an integer from 1000 to 600000" + argsTail}},
		{"args-exponent-in-range", head + "callers:\n  - name: A\n    args: {timeoutMs: 1e5, pollIntervalMs: 500.0}\n",
			[]string{"bad.yaml:5:23: callers[0].args.timeoutMs: 1e5 is not written as an integer: want plain decimal digits (16, 1000, -5) (docs/scenarios.md: Numbers)" + argsTail,
				"bad.yaml:5:44: callers[0].args.pollIntervalMs: 500.0 is not written as an integer: want plain decimal digits (16, 1000, -5) (docs/scenarios.md: Numbers)" + argsTail}},
		{"args-quoted-number-is-a-string", head + "callers:\n  - name: A\n    args: {timeoutMs: \"1e308\"}\n",
			[]string{`bad.yaml:5:23: callers[0].args.timeoutMs: type: 1e308 has type "string", want "integer"` + argsTail}},
		{"args-number-as-a-string-argument", head + "callers:\n  - name: A\n    args: {runId: 1e5}\n", nil},
		// a missing field is placed at the mapping that lacks it; problems
		// in document order, by line, then by column
		{"missing-at-block-mapping", head + "agents:\n  - id: c\n    messages: [x]\n" + caller,
			[]string{"bad.yaml:4:5: agents[0].state: required field is missing"}},
		{"missing-at-flow-mapping", head + "agents:\n  - {id: c}\n" + caller,
			[]string{"bad.yaml:4:5: agents[0].state: required field is missing"}},
		{"missing-in-one-pair-mapping", head + "agents:\n  - id: c\n" + caller,
			[]string{"bad.yaml:4:5: agents[0].state: required field is missing"}},
		{"missing-before-unknown", "# protects: x\nname: a\nbogus: 1\n",
			[]string{"bad.yaml:2:1: callers: required field is missing",
				"bad.yaml:3:1: bogus: unknown field (known here: name, description, noBridge, bridge, agents, changes, callers, matrix, expect, horizonMs, transport, capMs, timers, seed)"}},
		{"misspelt-key", head + "expect:\n  - {caller: A, recieved: false}\n" + caller,
			[]string{`bad.yaml:4:17: expect[0].recieved: unknown field; did you mean "received"? (known here: caller, call, resolvesAtMs, resolvesByMs, startsAtMs, received, lostBy, rejected, errorMentions, replyFields, reply, lists, reads, stranded, calls, progress)`}},
		{"capital-key", head + "horizonms: 5\n" + caller,
			[]string{`bad.yaml:3:1: horizonms: unknown field; did you mean "horizonMs"? (known here: name, description, noBridge, bridge, agents, changes, callers, matrix, expect, horizonMs, transport, capMs, timers, seed)`}},
		{"missing-before-unknown-on-one-line", head + "agents:\n  - {id: c, bogus: 1}\n" + caller,
			[]string{"bad.yaml:4:5: agents[0].state: required field is missing",
				"bad.yaml:4:13: agents[0].bogus: unknown field (known here: id, state, messages, generate)"}},
		{"required-at-block-mapping", head + "callers:\n  - startMs: 5\n    name: \"\"\n",
			[]string{"bad.yaml:4:5: callers[0].name: required"}},
		// a placeholder with no parameter, named by its field's path
		{"placeholder-unknown", head + "callers:\n  - name: A\n    args: {timeoutMs: \"${t}\"}\n",
			[]string{`bad.yaml:5:23: callers[0].args.timeoutMs: ${t}: no matrix parameter "t"`}},
		// a bridge step's forms, in one wording
		{"step-forms", head + "bridge:\n  list: [x, [1]]\n" + caller,
			[]string{`bad.yaml:4:10: bridge.list[0]: want an integer (ms), "stall", or a mapping {latencyMs, error, panic, stall, reject, outputs}; got string "x"`,
				`bad.yaml:4:13: bridge.list[1]: want an integer (ms), "stall", or a mapping {latencyMs, error, panic, stall, reject, outputs}; got sequence "[1]"`}},
		// a step that panics does nothing else, and names its value
		{"step-panic", head + "bridge:\n  list: [{panic: boom, stall: true}, {panic: \"\"}, {panic: 1}, {latencyMs: 5, panic: boom}]\n  read: [{panic: boom, outputs: []}]\n" + caller,
			[]string{`bad.yaml:4:10: bridge.list[0].panic: a step that panics cannot also stall, fail or be rejected`,
				`bad.yaml:4:46: bridge.list[1].panic: want a non-empty string`,
				`bad.yaml:4:59: bridge.list[2].panic: want a non-empty string`,
				`bad.yaml:5:10: bridge.read[0].outputs: only a step that succeeds returns outputs`}},
		// expectations
		{"expect-caller-needed", head + "callers:\n  - name: A\n  - name: B\nexpect:\n  - {resolvesAtMs: 5}\n",
			[]string{"bad.yaml:7:5: expect[0].caller: required when there is more than one caller"}},
		{"expect-caller-named", head + "callers:\n  - name: A\n  - name: B\nexpect:\n  - {caller: B, resolvesAtMs: 0, resolvesByMs: 0, startsAtMs: 0}\n", nil},
		{"expect-one-caller", head + caller + "expect:\n  - {resolvesAtMs: 5}\n", nil},
		{"expect-call-one", head + caller + "expect:\n  - {call: 1}\n", nil},
		// a value shown in a message: 40 characters whole, more cut
		{"shown-40", head + "callers:\n  - name: A\n    startMs: " + strings.Repeat("x", 40) + "\n",
			[]string{`bad.yaml:5:14: callers[0].startMs: want an integer; got string "` + strings.Repeat("x", 40) + `"`}},
		{"shown-41", head + "callers:\n  - name: A\n    startMs: " + strings.Repeat("x", 41) + "\n",
			[]string{`bad.yaml:5:14: callers[0].startMs: want an integer; got string "` + strings.Repeat("x", 40) + `…"`}},
		// several problems: every one, in document order
		{"every-problem", head + "agents:\n  - {id: c, state: running}\n  - {id: c, state: running}\ncallers:\n  - name: A\n  - name: A\n",
			[]string{`bad.yaml:5:10: agents[1].id: duplicate agent "c"`, `bad.yaml:8:11: callers[1].name: duplicate caller "A"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := loadProblems(t, tc.src)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestLoaderFieldNames: a problem the number rule finds names the field's
// full path, as every other problem does (in a list of scenarios too, and in
// a matrix); a syntax error on a line with a placeholder hints at quoting
// it, on the first line and on a last line without a newline too.
func TestLoaderFieldNames(t *testing.T) {
	const numbers = "integer 0x10: write integers as plain decimal digits with an optional minus sign (16, 1000, -5): no 0x, 0o, 0b, _, + or leading zeros (docs/scenarios.md: Numbers)"
	const quote = `yaml: ',' or '}' must be specified (inside a flow {…} or […], quote placeholders: "${x}")`
	for _, tc := range []struct{ src, want string }{
		{"# protects: x\nname: a\ncallers:\n  - name: A\n    startMs: 0x10\n", "bad.yaml:5:14: callers[0].startMs: " + numbers},
		{"# protects: x\nname: a\nbridge:\n  list: [0x10]\ncallers:\n  - name: A\n", "bad.yaml:4:10: bridge.list[0]: " + numbers},
		{"# protects: x\nname: a\nbridge:\n  list:\n    - 0x10\ncallers:\n  - name: A\n", "bad.yaml:5:7: bridge.list[0]: " + numbers},
		{"# protects: x\nname: a\nbridge:\n  list: [1, 0x10]\ncallers:\n  - name: A\n", "bad.yaml:4:13: bridge.list[1]: " + numbers},
		{"# protects: x\nname: a\ncallers:\n  - name: A\n    args: {timeoutMs: 0x10}\n", "bad.yaml:5:23: callers[0].args.timeoutMs: " + numbers},
		{"# protects: x\nname: a\ncallers:\n  - name: A\n    startMs: !!int 0x10\n", "bad.yaml:5:19: callers[0].startMs: " + numbers},
		{"# protects: x\n- name: a\n  callers: [{name: A}]\n- name: b\n  callers: [{name: A, startMs: 0x10}]\n", "bad.yaml:5:32: callers[0].startMs: " + numbers},
		{"# protects: x\nname: a\ndescription: ${t}\ncallers: [{name: A}]\nmatrix: {t: [x, 0x10]}\n", "bad.yaml:5:17: matrix.t[1]: " + numbers},
		{"# protects: x\nname: a\n0x10: 1\ncallers: [{name: A}]\n", "bad.yaml:3:1: yaml: " + numbers},
		{"{name: a, callers: [{name: A, startMs: ${t}}], matrix: {t: [1]}}\n# protects: x\n", "bad.yaml:1:41: " + quote},
		{"# protects: x\nname: a\nmatrix: {t: [1]}\ncallers: [{name: A, startMs: ${t}}]", "bad.yaml:4:31: " + quote},
		{"# protects: x\nname: a\nmatrix: {t: [1]}\ncallers: [{name: A, startMs: 5}}\n", "bad.yaml:4:32: yaml: ',' or ']' must be specified"},
	} {
		if got := strings.Join(loadProblems(t, tc.src), "\n"); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestMatrixEdges: a matrix of exactly 1000 cases expands (as a product and
// as rows), one more is refused; every placeholder is replaced, in any list
// entry and several in one string.
func TestMatrixEdges(t *testing.T) {
	vals := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = "1"
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	// A product of 10 × 10 × 10: within the bound; the first case then
	// fails on its own (the unknown field), which stops the expansion.
	product := "# protects: x\nname: a\ndescription: ${a}${b}${c}\nbogus: 1\ncallers:\n  - name: A\nmatrix:\n  a: " + vals(10) + "\n  b: " + vals(10) + "\n  c: " + vals(10) + "\n"
	if got := strings.Join(loadProblems(t, product), "\n"); !strings.HasPrefix(got, "bad.yaml:4:1: bogus: unknown field") {
		t.Errorf("a product of 1000 cases: %s", got)
	}
	over := strings.Replace(product, "  c: "+vals(10), "  c: "+vals(11), 1)
	if got := strings.Join(loadProblems(t, over), "\n"); got != "bad.yaml:8:3: matrix: expands to more than 1000 cases" {
		t.Errorf("a product of 1100 cases: %s", got)
	}
	// 1000 rows: within the bound; the first case fails on its own.
	rows := "# protects: x\nname: a\ndescription: ${p}\ncallers:\n  - name: A\nmatrix:\n" + strings.Repeat("  - {p: 1}\n", 1000)
	if got := strings.Join(loadProblems(t, rows), "\n"); got != `bad.yaml:3:14: description: want a string; got integer "1"` {
		t.Errorf("1000 rows: %s", got)
	}
	// Placeholders in a later list entry, and two in one string.
	src := "# protects: x\nname: a\ndescription: \"${a}-${b}\"\nbridge:\n  list: [0, \"${lat}\"]\ncallers:\n  - name: A\nmatrix:\n  a: [x]\n  b: [y]\n  lat: [5]\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := loadRef([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	if sc := cases[0].Scenario; sc.Description != "x-y" || len(sc.Bridge.List) != 2 || sc.Bridge.List[1].LatencyMs != 5 {
		t.Errorf("substituted: description %q, list %+v", sc.Description, sc.Bridge.List)
	}
}

// TestSchemaProblem: a validation error of the whole input names the last
// property in its path and keeps the message after it; without a property,
// the message after "validating root: "; rationals and floats of whole
// numbers are written as integers.
func TestSchemaProblem(t *testing.T) {
	for _, tc := range []struct{ err, field, msg string }{
		{"validating root: validating /properties/a: validating /properties/timeoutMs: minimum: 5/1 is less than 1000/1", "timeoutMs", "minimum: 5 is less than 1000"},
		{"validating /properties/pollIntervalMs: 2.000 is not 3", "pollIntervalMs", "2 is not 3"},
		{"x: validating root: required: missing properties: [\"a\"]", "", "required: missing properties: [\"a\"]"},
		{"something else", "", "something else"},
		{"/properties/maxTotalChars: 3.0 is bad", "maxTotalChars", "3 is bad"},
	} {
		field, msg := schemaProblem(errors.New(tc.err))
		if field != tc.field || msg != tc.msg {
			t.Errorf("schemaProblem(%q) = %q, %q; want %q, %q", tc.err, field, msg, tc.field, tc.msg)
		}
	}
}

// TestLoadWorkEdges: the work of loading a file — its parse, then each
// scenario once and once per matrix case, each time the file's values — may
// reach MaxLoadWork but not pass it; the refusal names the scenario or the
// matrix that passes it.
func TestLoadWorkEdges(t *testing.T) {
	// file is a list of two scenarios: the first with a matrix of cases
	// cases (its first case fails on its own, which stops its expansion),
	// padded with messages until the file holds exactly v values. Its
	// work: v × (1 + (1 + cases)) before the second scenario.
	v := MaxLoadWork / 1000
	file := func(cases int) string {
		src := func(pad int) string {
			// The messages, spread over three agents (at most MaxEntries
			// a list).
			msgs := func(i int) string {
				n := pad / 3
				if i < pad%3 {
					n++
				}
				return strings.TrimSuffix(strings.Repeat("x, ", n), ", ")
			}
			return "# protects: x\n- name: a\n  bogus: 1\n  description: ${p}\n  callers: [{name: A}]\n  matrix: {p: [" +
				strings.TrimSuffix(strings.Repeat("x, ", cases), ", ") + "]}\n" +
				"  agents: [{id: c, state: running, messages: [" + msgs(0) + "]}, {id: d, state: running, messages: [" + msgs(1) + "]}, {id: e, state: running, messages: [" + msgs(2) + "]}]\n" +
				"- name: b\n  callers: [{name: A}]\n"
		}
		n, err := checkLimits([]byte(src(3))) // each message one value
		if err != nil {
			t.Fatal(err)
		}
		out := src(3 + v - n)
		if n, err := checkLimits([]byte(out)); err != nil || n != v {
			t.Fatalf("the padded file holds %d values (%v), want %d", n, err, v)
		}
		return out
	}
	const unknown = "bad.yaml:3:3: bogus: unknown field (known here: name, description, noBridge, bridge, agents, changes, callers, matrix, expect, horizonMs, transport, capMs, timers, seed)"
	for _, tc := range []struct {
		cases int
		want  []string
	}{
		// v × (1 + 1 + 996) + v × (1 + 1) = MaxLoadWork: within.
		{996, []string{unknown}},
		// The second scenario begins at MaxLoadWork; its one case passes it.
		{997, []string{unknown, fmt.Sprintf("bad.yaml:8:3: scenarios: 1 cases of a file of %d values: (1 + cases) × values is more than %d (docs/scenarios.md: Limits)", v, MaxLoadWork)}},
		// The first scenario ends at MaxLoadWork; the second begins past it.
		{998, []string{unknown, fmt.Sprintf("bad.yaml:8:3: scenarios: too much to load: 2 scenarios in a file of %d values: (1 + cases) × values summed over them is more than %d (docs/scenarios.md: Limits)", v, MaxLoadWork)}},
		// The first scenario's cases pass it.
		{999, []string{fmt.Sprintf("bad.yaml:6:11: matrix: 999 cases of a file of %d values: (1 + cases) × values is more than %d (docs/scenarios.md: Limits)", v, MaxLoadWork)}},
	} {
		if got := loadProblems(t, file(tc.cases)); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%d cases:\n got %q\nwant %q", tc.cases, got, tc.want)
		}
	}
}
