//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/reports"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/workspace"
)

// TestReportRefusesStaleAndInconsistentInputs (issue 11 items 3 and 4):
// `waitsim report` exits 2, naming the file and field, and writes no
// report, for inputs that are missing what they claim, disagree with their
// own mutant list, come from different trees, or from another tree than
// the work tree. Consistent inputs of the current tree render (exit 0).
func TestReportRefusesStaleAndInconsistentInputs(t *testing.T) {
	commit, tree, err := workspace.TreeState(context.Background(), ".")
	if err != nil {
		t.Skip(err)
	}
	scen := func(commit, tree string) string {
		return fmt.Sprintf(`{"version":1,"commit":%q,"tree":%q,"cases":[{"id":"a","file":"scenarios/table/a.yaml","verdict":"pass","repro":"x"}],"passed":1}`, commit, tree)
	}
	// One killed catalog mutant: a pass.
	const mutOK = `"mutants":[{"id":"sanity","source":"sanity","file":"waittool/tool.go","status":"killed"},{"id":"c","source":"catalog","file":"waittool/tool.go","status":"killed"}],
		"counts":{"killed":1},"catalogScore":100,"catalogScored":1,"operatorScore":100,"operatorScored":0,"operatorThreshold":100,"gate":"pass","exitCode":0`
	mut := func(commit, tree, body string) string {
		return fmt.Sprintf(`{"version":1,"commit":%q,"tree":%q,%s}`, commit, tree, body)
	}
	for _, c := range []struct {
		name       string
		scen, mut  string
		code       int
		file, want string
	}{
		{"consistent", scen(commit, tree), mut(commit, tree, mutOK), reportOK, "", ""},
		{"mutants null", scen(commit, tree), mut(commit, tree, `"mutants":null,"counts":{},"catalogScore":100,"operatorScore":100,"gate":"pass","exitCode":0`),
			reportUsage, "mutation.json", "field mutants"},
		{"counts not the mutants'", scen(commit, tree), mut(commit, tree, strings.Replace(mutOK, `"killed":1`, `"killed":40`, 1)),
			reportUsage, "mutation.json", "field counts"},
		{"pass over a survivor", scen(commit, tree), mut(commit, tree, strings.Replace(mutOK, `"file":"waittool/tool.go","status":"killed"}]`, `"file":"waittool/tool.go","status":"survived"}]`, 1)),
			reportUsage, "mutation.json", "field counts"},
		{"unknown status", scen(commit, tree), mut(commit, tree, strings.Replace(mutOK, `"status":"killed"}]`, `"status":"bogus"}]`, 1)),
			reportUsage, "mutation.json", "mutants[1].status"},
		{"file escapes", scen(commit, tree), mut(commit, tree, strings.Replace(mutOK, `"id":"c","source":"catalog","file":"waittool/tool.go"`, `"id":"c","source":"catalog","file":"../../../etc/passwd"`, 1)),
			reportUsage, "mutation.json", "mutants[1].file"},
		{"tallies not the cases'", strings.Replace(scen(commit, tree), `"passed":1`, `"passed":84`, 1), mut(commit, tree, mutOK),
			reportUsage, "scenarios.json", "field passed"},
		{"scenarios of an older table", `{"version":1,"cases":[{"id":"a","verdict":"pass","repro":"x"}],"passed":1}`, mut(commit, tree, mutOK),
			reportUsage, "scenarios.json", "no tree recorded"},
		{"inputs of two trees", scen(commit, "0000"), mut(commit, tree, mutOK), reportUsage, "scenarios.json", "different trees"},
		{"both of another tree", scen(commit, "0000"), mut(commit, "0000", mutOK), reportUsage, "scenarios.json", "stale"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			sp, mp := filepath.Join(dir, "scenarios.json"), filepath.Join(dir, "mutation.json")
			os.WriteFile(sp, []byte(c.scen), 0o644)
			os.WriteFile(mp, []byte(c.mut), 0o644)
			out := filepath.Join(dir, "report")
			var stdout, stderr strings.Builder
			code := reportMain([]string{"--scenarios", sp, "--mutation", mp, "--root", "../..", "--out", out}, &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr.String())
			}
			if c.code == reportOK {
				return
			}
			if msg := stderr.String(); !strings.Contains(msg, c.file) || !strings.Contains(msg, c.want) {
				t.Errorf("stderr does not name %s and %q:\n%s", c.file, c.want, msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("reports written for refused inputs")
			}
		})
	}
}

// A report takes scenario results as current only while every scenario
// file they record has the content they ran: a file the tree's hash leaves
// out (out/, ignored, a link out of the tree) that changed, or is gone, or
// is not a regular file, makes them stale (before, they passed as current).
func TestScenarioFilesChecked(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "x.yaml")
	if err := os.WriteFile(f, []byte("# protects: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := results.FileHash(f)
	if err != nil {
		t.Fatal(err)
	}
	run := func(files map[string]string) *reports.Run {
		return &reports.Run{Scenarios: &results.RunResult{Files: files}}
	}
	if err := checkScenarioFiles(run(map[string]string{"x.yaml": h}), dir, "s.json"); err != nil {
		t.Errorf("unchanged: %v", err)
	}
	if err := os.WriteFile(f, []byte("# protects: y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, files := range map[string]map[string]string{
		"changed":    {"x.yaml": h},
		"gone":       {"nope.yaml": h},
		"not a file": {"/dev/zero": h},
	} {
		if err := checkScenarioFiles(run(files), dir, "s.json"); err == nil || !strings.Contains(err.Error(), "stale results") {
			t.Errorf("%s: %v, want stale results", name, err)
		}
	}
}
