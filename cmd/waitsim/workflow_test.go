package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// workflow is what the tests read of a GitHub Actions workflow.
type workflow struct {
	Jobs map[string]struct {
		Needs any `yaml:"needs"`
		Steps []struct {
			Name string            `yaml:"name"`
			ID   string            `yaml:"id"`
			If   string            `yaml:"if"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func parseWorkflow(t *testing.T, name string, b []byte) workflow {
	t.Helper()
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w
}

// stepIndex is the index of the first step of job whose run holds every
// one of words, -1 when none does.
func stepIndex(w workflow, job string, words ...string) int {
	for i, s := range w.Jobs[job].Steps {
		if !slices.ContainsFunc(words, func(x string) bool { return !strings.Contains(s.Run, x) }) {
			return i
		}
	}
	return -1
}

// TestWorkflowsEmitAnnotations (issue 21 item 4): this repository's CI and
// the workflow `waitsim init` writes print the mutation gate's annotations:
// the report, with --annotations, runs on the mutation result whatever the
// gate's exit, and the gate's failure still fails the job, after it.
func TestWorkflowsEmitAnnotations(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	ci := parseWorkflow(t, "ci.yml", b)
	if i := stepIndex(ci, "report", "out/bin/waitsim report --out out/report/head --annotations"); i < 0 {
		t.Error("ci.yml: the report job renders head without --annotations")
	} else if s := ci.Jobs["report"].Steps[i]; !strings.Contains(s.If, "!cancelled()") || !strings.Contains(s.Run, "set +e") {
		t.Errorf("ci.yml: the annotating step does not run whatever failed before it: if %q", s.If)
	}
	if needs, _ := ci.Jobs["report"].Needs.([]any); !slices.Contains(needs, any("merge")) {
		t.Errorf("ci.yml: the report job does not wait for the merged mutation result (needs %v)", ci.Jobs["report"].Needs)
	}

	for _, hasCode := range []bool{true, false} {
		text := initWorkflow("waitsimtest", hasCode, "")
		w := parseWorkflow(t, "init's workflow", []byte(text))
		run := stepIndex(w, "waitsim", "go tool waitsim run --json")
		mutate := stepIndex(w, "waitsim", "go tool waitsim mutate", `echo "rc=$?" >> "$GITHUB_OUTPUT"`)
		report := stepIndex(w, "waitsim", "go tool waitsim report --annotations")
		steps := w.Jobs["waitsim"].Steps
		last := len(steps) - 1
		switch {
		case run < 0 || mutate < 0 || report < 0 || !(run < mutate && mutate < report):
			t.Errorf("init's workflow (code %t): steps run %d, mutate %d, report %d; want them in that order\n%s", hasCode, run, mutate, report, text)
		case !strings.Contains(steps[mutate].Run, "set +e") || !strings.Contains(steps[report].If, "!cancelled()"):
			t.Errorf("init's workflow (code %t): the gate's failure skips the report", hasCode)
		case steps[mutate].ID != "mutate" || steps[last].Env["RC"] != "${{ steps.mutate.outputs.rc }}" || !strings.Contains(steps[last].Run, `[ "$RC" != "0" ]`):
			t.Errorf("init's workflow (code %t): its last step does not fail on the gate's exit code", hasCode)
		}
		if want := "add --target ./yourtool/"; strings.Contains(text, want) == hasCode {
			t.Errorf("init's workflow (code %t): says %q: %t", hasCode, want, !hasCode)
		}
	}
	// init --target: the gate's line names the tool's package, and nothing
	// is left for the user to add.
	text := initWorkflow("waitsimtest", false, "mytool")
	w := parseWorkflow(t, "init --target's workflow", []byte(text))
	if stepIndex(w, "waitsim", "go tool waitsim mutate --progress plain --target ./mytool/") < 0 || strings.Contains(text, "add --target") {
		t.Errorf("init --target mytool: the gate's line does not mutate ./mytool/, or still asks for --target:\n%s", text)
	}
}
