package mutants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suitebin"
)

// TestVetPassKept: a mutant that is not killed is vetted once per content.
// A second campaign on the same inputs reads the first one's vet pass (and
// says so), while a vet failure is never kept; a change to a file of the
// suite's inputs, even one no mutant overwrites, vets again. The second and third campaigns run under a go command
// whose vet fails every mutant: a mutant that passes there was not vetted
// again, and one made not viable there was.
func TestVetPassKept(t *testing.T) {
	if testing.Short() {
		t.Skip("runs campaigns")
	}
	// Its campaigns run in child processes (runChild) with the
	// environment they need: the test runs beside the others.
	t.Parallel()
	root := copyFixture(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "m.json")
	args := fixtureArgs(root, "--only", "^(label-changes|fails-vet)$", "--no-cache", "--out", out, "--workers", "1")
	env := []string{suitebin.DirEnv + "=" + t.TempDir()} // no pass kept by another test
	campaignOf := func(step string, exit int) map[string]verdict.MutantResult {
		t.Helper()
		if code, so, se := runChild(t, args, env...); code != exit {
			t.Fatalf("%s: exit %d, want %d; stdout:\n%s\nstderr:\n%s", step, code, exit, so, se)
		}
		res := readResult(t, out)
		reused := 0
		for _, n := range res.Notes {
			if strings.HasPrefix(n, "go vet's pass reused for 1 mutants") {
				reused++
			}
		}
		got := byID(&res)
		t.Logf("%s: label-changes %s, fails-vet %s, reuse noted %d", step, got["label-changes"].Status, got["fails-vet"].Status, reused)
		if step == "second" && reused != 1 {
			t.Errorf("second campaign: no note of the reused vet pass: %q", res.Notes)
		}
		if step != "second" && reused != 0 {
			t.Errorf("%s campaign: a vet pass reused: %q", step, res.Notes)
		}
		return got
	}
	first := campaignOf("first", verdict.ExitGateFailed) // label-changes survives
	if first["label-changes"].Status != verdict.StatusSurvived || first["fails-vet"].Status != verdict.StatusNotViable {
		t.Fatalf("first campaign: label-changes %s, fails-vet %s; want survived, not viable", first["label-changes"].Status, first["fails-vet"].Status)
	}
	// From now on vet fails every mutant it is asked about.
	env = append(env, "PATH="+pathWith(fakeGo(t, `*" vet -overlay="*`, "echo 'calc/calc.go:35:2: the stand-in vet fails every mutant' >&2\nexit 1")))
	second := campaignOf("second", verdict.ExitGateFailed)
	if second["label-changes"].Status != verdict.StatusSurvived {
		t.Errorf("second campaign: label-changes %s (%s); want survived on the kept vet pass", second["label-changes"].Status, second["label-changes"].Detail)
	}
	if m := second["fails-vet"]; m.Status != verdict.StatusNotViable || !strings.Contains(m.Detail, "the stand-in vet fails every mutant") {
		t.Errorf("second campaign: fails-vet %s (%s); want not viable by the stand-in vet (its first vet failure is not kept, so vet ran again)", m.Status, m.Detail)
	}
	// Any file of the suite's inputs changes the key: here one no mutant
	// overwrites.
	f := filepath.Join(root, "calc", "calc_test.go")
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(src, "\n// an edit after the second campaign\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	third := campaignOf("third", verdict.ExitGateFailed) // catalog mutants not viable fail the gate too
	if third["label-changes"].Status != verdict.StatusNotViable {
		t.Errorf("third campaign (an edited module): label-changes %s; want not viable (vetted again, by the failing stand-in)", third["label-changes"].Status)
	}
}
