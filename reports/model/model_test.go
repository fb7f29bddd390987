package model

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"
)

func loadFixture(t *testing.T, name string) *Run {
	t.Helper()
	r, err := LoadRun(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A Run marshals byte-stably: loading what was written and writing it again
// gives the same bytes. (The fixture files may lag fields the producers'
// models gain, so the comparison is with the first rewrite, not the file.)
func TestRunRoundTripIsByteStable(t *testing.T) {
	for _, name := range []string{"base.json", "head.json"} {
		first, err := loadFixture(t, name).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseRun(name, first)
		if err != nil {
			t.Fatal(err)
		}
		second, err := again.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Errorf("%s: load + marshal is not byte-stable", name)
		}
		if !bytes.Contains(first, []byte(`"repro": "go test ./scenarios/`)) || !bytes.Contains(first, []byte(`"seeds": {`)) ||
			!bytes.Contains(first, []byte(`"commit": "`)) {
			t.Errorf("%s: repro, seeds or commit missing from the run", name)
		}
	}
}

func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadRunErrorsNameFileAndField(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string
	}{
		{"malformed", "{\n  \"version\": 1,\n  \"scenarios\": {,\n}", []string{"malformed JSON at line 3, column 17"}},
		{"no-version", `{"scenarios": {"version": 1, "cases": []}}`, []string{`field version: missing`}},
		{"wrong-version", `{"version": 2, "scenarios": {"version": 1, "cases": []}}`, []string{"field version: is 2; this waitsim reads version 1"}},
		{"string-version", `{"version": "1"}`, []string{`field version: "1" is not an integer`}},
		{"empty", `{"version": 1}`, []string{"neither scenarios nor mutation"}},
		{"scenarios-version", `{"version": 1, "scenarios": {"version": 9, "cases": []}}`, []string{"field scenarios.version: is 9"}},
		{"mutation-version", `{"version": 1, "mutation": {"version": 0, "mutants": []}}`, []string{"field mutation.version: is 0"}},
		{"verdict", `{"version": 1, "scenarios": {"version": 1, "cases": [{"id": "a", "verdict": "pass"}, {"id": "b", "verdict": "ok"}]}}`,
			[]string{`field scenarios.cases[1].verdict: "ok" is not "pass", "fail", "error" or "skip"`}},
		{"pass-with-failure", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "failures": ["A#1: resolved at 30001 ms, want 30000 ms"]}]}}`,
			[]string{`field scenarios.cases[0].failures: a case that passed records a failed expectation`}},
		{"pass-with-violation", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "violations": [{"invariant": "x", "message": "late"}]}]}}`,
			[]string{`field scenarios.cases[0].violations: a case that passed records a broken invariant`}},
		{"pass-with-error", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "error": "stuck"}]}}`,
			[]string{`field scenarios.cases[0].error: a case that passed records an error`}},
		{"problems", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass"}], "problems": [{"file": "x.yaml", "line": 1, "column": 1, "field": "name", "message": "bad"}]}}`,
			[]string{`field scenarios.problems: 1 problem(s) in the scenario files`, "ran no case"}},
		{"skipped-count", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "skipped": 5, "cases": [{"id": "a", "verdict": "pass"}]}}`,
			[]string{`field scenarios.skipped: records 5, the cases hold 0`}},
		{"file-without-case", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "file": "a.yaml"}], "files": {"a.yaml": "h1", "b.yaml": "h2"}}}`,
			[]string{`field scenarios.files: "b.yaml" has no case in the result: its cases were cut out`}},
		{"case-file-not-hashed", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "file": "c.yaml"}], "files": {"a.yaml": "h1"}}}`,
			[]string{`field scenarios.cases[0].file: "c.yaml" is not among the files the result hashed`}},
		{"not-indexed", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass"}], "index": [{"id": "b", "file": "x.yaml", "test": "T/x.yaml/b"}]}}`,
			[]string{`field scenarios.cases[0].id: "a" is not in the file's index`}},
		{"table-file-outside", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "file": "t/a.yaml"}], "table": {"dir": "t", "files": ["t/a.yaml", "../b.yaml"]}}}`,
			[]string{`field scenarios.table.files[1]:`}},
		{"table-file-twice", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "file": "t/a.yaml"}], "table": {"dir": "t", "files": ["t/a.yaml", "t/a.yaml"]}}}`,
			[]string{`field scenarios.table.files[1]: "t/a.yaml" repeats table.files[0]`}},
		{"trace-hash", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "trace": [{"atMs": 0, "step": 1, "actor": "tool:1", "text": "start"}], "traceHash": "deadbeef"}]}}`,
			[]string{`field scenarios.cases[0].traceHash: not the hash of the case's trace`}},
		{"trace-timeline", `{"version": 1, "scenarios": {"version": 1, "passed": 1, "cases": [{"id": "a", "verdict": "pass", "trace": [{"atMs": 0, "step": 1, "actor": "tool:1", "text": "start"}], "traceHash": "5310a0ac49c9264f2744fdd43f4129ab5df00f10b0add7f5d21d59ee1162326d", "timeline": "        0 ms  tool:1     other\n"}]}}`,
			[]string{`field scenarios.cases[0].timeline: not the timeline of the case's trace`}},
		{"dup-case", `{"version": 1, "scenarios": {"version": 1, "cases": [{"id": "a", "verdict": "pass"}, {"id": "a", "verdict": "pass"}]}}`,
			[]string{`field scenarios.cases[1].id: "a" repeats cases[0]`}},
		{"type", `{"version": 1, "scenarios": {"version": 1, "cases": [{"id": "a", "verdict": "pass", "endMs": "soon"}]}}`,
			[]string{"field scenarios.cases.0.endMs: string is not a valid int64"}},
		{"no-sanity", `{"version": 1, "mutation": {"version": 1, "mutants": [{"id": "m", "source": "catalog", "status": "killed", "file": "x.go", "line": 1}], "counts": {"killed": 1}, "catalogScore": 100, "catalogScored": 1, "gate": "pass"}}`,
			[]string{`field mutation.mutants: 1 mutants and no sanity mutant`}},
		{"threshold", `{"version": 1, "mutation": {"version": 1, "operatorThreshold": -1e308, "mutants": [{"id": "sanity", "source": "sanity", "status": "killed"}]}}`,
			[]string{`field mutation.operatorThreshold: -1e+308 is not a percentage`}},
		{"campaign-cut", `{"version": 1, "mutation": {"version": 1, "campaign": {"total": 50, "idsHash": "0"}, "mutants": [{"id": "sanity", "source": "sanity", "status": "killed"}, {"id": "m", "source": "catalog", "status": "killed", "file": "x.go", "line": 1}], "counts": {"killed": 1}, "catalogScore": 100, "catalogScored": 1, "gate": "pass"}}`,
			[]string{`field mutation.campaign.total: the campaign selected 50 mutants, this file lists 1 of them (want 50)`}},
		{"status", `{"version": 1, "mutation": {"version": 1, "mutants": [{"id": "m", "status": "dead"}]}}`,
			[]string{`field mutation.mutants[0].status: "dead" is not one of "killed"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTemp(t, tt.name+".json", tt.data)
			_, err := LoadRun(p)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, p+": ") {
				t.Errorf("error does not start with the file name: %s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestAssembleNormalizesWallTime(t *testing.T) {
	sp := writeTemp(t, "scenarios.json", `{"version": 1, "commit": "abc", "tree": "t1", "cases": [{"id": "a", "verdict": "pass", "wallMs": 12.5, "repro": "go test x"}], "passed": 1}`)
	mp := writeTemp(t, "mutation.json", `{"version": 1, "commit": "abc", "tree": "t1", "mutants": [{"id": "sanity", "source": "sanity", "status": "killed"}, {"id": "m", "source": "catalog", "status": "killed", "durationMs": 99}], "counts": {"killed": 1}, "catalogScore": 100, "catalogScored": 1, "operatorScore": 100, "baselineMs": 7, "wallMs": 8, "gate": "pass"}`)
	r, err := Assemble(sp, mp, "", map[string]int64{"gen": 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Commit != "abc" {
		t.Errorf("commit %q, want the mutation result's abc", r.Commit)
	}
	if r.Scenarios.Cases[0].WallMs != 0 || r.Mutation.Mutants[0].DurationMs != 0 || r.Mutation.BaselineMs != 0 || r.Mutation.WallMs != 0 {
		t.Errorf("wall-clock fields kept: %+v %+v", r.Scenarios.Cases[0], r.Mutation)
	}
	if r.Seeds["gen"] != 3 || r.Scenarios.Cases[0].Repro != "go test x" {
		t.Errorf("seeds or repro lost: %+v", r)
	}
	// A wrong version in a producer's file names that file.
	bad := writeTemp(t, "old.json", `{"version": 0, "cases": []}`)
	if _, err := Assemble(bad, "", "", nil); err == nil || !strings.Contains(err.Error(), bad+": field version: is 0") {
		t.Errorf("got %v", err)
	}
	if _, err := Assemble("", "", "", nil); err == nil {
		t.Error("assembling nothing must fail")
	}
}

// CheckTable lists the table's directory in the work tree again: a result
// whose list of the table's files leaves one out (cut to hide a file the
// run did not cover) or names one the directory does not hold is refused,
// naming the file and field; the true list passes.
func TestCheckTableRelistsTheWorkTree(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"t/a.yaml", "t/sub/b.yml", "t/notes.txt", "other/c.yaml"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("name: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir string, files ...string) *Run {
		return &Run{Scenarios: &results.RunResult{Table: &results.Table{Dir: dir, Files: files}}}
	}
	for _, c := range []struct {
		name string
		r    *Run
		want string
	}{
		{"true list", run("t", "t/a.yaml", "t/sub/b.yml"), ""},
		{"a file left out", run("t", "t/a.yaml"), "leaves out t/sub/b.yml"},
		{"a file the table lacks", run("t", "t/a.yaml", "t/sub/b.yml", "t/z.yaml"), "lists t/z.yaml"},
		{"no table directory, no file", run("none"), ""},
		{"no table directory, a file", run("none", "none/a.yaml"), "lists none/a.yaml"},
		{"an fs.FS table", &Run{Scenarios: &results.RunResult{Table: &results.Table{Dir: "t", Files: []string{"t/x.yaml"}, FS: true}}}, ""},
		{"no table recorded", &Run{Scenarios: &results.RunResult{}}, ""},
	} {
		err := CheckTable(c.r, "scenarios.json", root)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "scenarios.json: field table.files: ")):
			t.Errorf("%s: %v, want an input error on table.files saying %q", c.name, err, c.want)
		}
	}
}
