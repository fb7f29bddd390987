//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The ratchet and the annotations (issue 21 items 3 and 4), end to end, on
// the mutants package's fixture module (mutants/testdata/fixture, copied
// out) with a small campaign: a catalog of two mutants, add-subtracts
// (killed) and label-changes (the deliberate survivor: no test reads
// Label), and gremlins' operator mutants of calc/, where `>` → `>=` in
// Clamp survives (Clamp(100) is 100 either way). The accepted file is the
// module-aware default, waitsim/accepted.yaml.
func TestRatchetAndAnnotations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three mutation campaigns")
	}
	bin := waitsimBin(t)
	src := filepath.Join(repoRoot(t), "mutants", "testdata", "fixture")
	dir := filepath.Join(t.TempDir(), "fixture")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"add-subtracts", "label-changes"} {
		b, err := os.ReadFile(filepath.Join(src, "catalog", id+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		write("cat/"+id+".yaml", string(b))
	}
	calc, err := os.ReadFile(filepath.Join(src, "calc", "calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	marked := strings.Replace(string(calc), "\tif v > Limit {", "\t//waitsim:equivalent CONDITIONALS_BOUNDARY: at v == Limit both branches return Limit\n\tif v > Limit {", 1)
	mutate := func(step string, want int) string {
		t.Helper()
		out, code := inModule(t, dir, nil, bin, "mutate", "--pkg", "./calc/", "--target", "./calc/", "--catalog", "cat",
			"--config", "gremlins.yaml", "--no-cache", "--progress", "off", "--workers", "2", "--timeout-floor", "5s")
		t.Logf("%s: waitsim mutate, exit %d:\n%s", step, code, out)
		if code != want {
			t.Fatalf("%s: waitsim mutate exited %d, want %d", step, code, want)
		}
		return out
	}
	annotations := func(step string) string {
		t.Helper()
		out, code := inModule(t, dir, nil, bin, "report", "--mutation", "out/mutation.json", "--annotations")
		t.Logf("%s: waitsim report --annotations, exit %d:\n%s", step, code, out)
		if code != 0 {
			t.Fatalf("%s: waitsim report exited %d", step, code)
		}
		var cmds []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "::") {
				cmds = append(cmds, l)
			}
		}
		return strings.Join(cmds, "\n")
	}
	has := func(step, text string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: lacks %q", step, w)
			}
		}
	}

	// 1. The operator survivor marked equivalent in the source, no accepted
	// file: label-changes is a new survivor, the gate fails on it, and it
	// is a warning on its line.
	write("calc/calc.go", marked)
	out := mutate("1 new survivor", 1)
	has("1", out,
		"equivalent              gremlins gremlins:calc/calc.go:18:7:CONDITIONALS_BOUNDARY — conditionals boundary: > → >=\n"+
			"    equivalent: at v == Limit both branches return Limit (//waitsim:equivalent at calc/calc.go:17; not run)\n",
		"survived                catalog  label-changes — Label says w=: no test sees it\n"+
			"    new: not in waitsim/accepted.yaml (add a case that kills it, or accept it there with a reason)\n",
		"ratchet: 1 new survivor(s), 0 accepted survivor(s) of 0 entries in waitsim/accepted.yaml\n",
		"gate: 1 catalog mutant(s) not killed: label-changes (survived, not in waitsim/accepted.yaml) (exit 1)\n")
	if a := annotations("1"); a != "::warning file=calc/calc.go,line=35,title=waitsim%3A new survivor label-changes (survived)::Label says w=: no test sees it"+
		"%0ANew survivor: not in waitsim/accepted.yaml. Add a case that kills it, or accept it there with a reason." {
		t.Errorf("1: annotations:\n%s", a)
	}

	// 2. label-changes accepted, with add-subtracts (killed: its entry can
	// go) and an entry no mutant has: the gate passes, and says so.
	write("waitsim/accepted.yaml", "# accepted survivors\n"+
		"- id: label-changes\n  reason: Label is a debugging aid that nothing reads\n"+
		"- id: add-subtracts\n  reason: a gap once\n"+
		"- id: gone-mutant\n  reason: its catalog file was removed\n")
	out = mutate("2 accepted", 0)
	has("2", out,
		"survived                catalog  label-changes — Label says w=: no test sees it\n"+
			"    accepted (waitsim/accepted.yaml:2): Label is a debugging aid that nothing reads\n",
		"ratchet: 0 new survivor(s), 1 accepted survivor(s) of 3 entries in waitsim/accepted.yaml\n",
		"accepted survivor add-subtracts is killed now: its entry can go (waitsim/accepted.yaml:4)\n",
		"stale accepted entry gone-mutant: no mutant has this id any more; remove it (waitsim/accepted.yaml:6)\n",
		"gate: pass (exit 0)\n")
	if a := annotations("2"); a != "::notice file=waitsim/accepted.yaml,line=4,title=waitsim%3A accepted survivor add-subtracts is killed now::The accepted survivor add-subtracts is killed now: its entry can go.\n"+
		"::notice file=waitsim/accepted.yaml,line=6,title=waitsim%3A stale accepted entry gone-mutant::No mutant has the id gone-mutant any more (its line moved, or it is gone): remove the entry." {
		t.Errorf("2: annotations:\n%s", a)
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", "report", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	has("2: summary.md", string(md),
		"### Accepted survivors (`waitsim/accepted.yaml`)",
		"| `label-changes` | `waitsim/accepted.yaml:2` | Label is a debugging aid that nothing reads |",
		"- `add-subtracts` is killed now (`waitsim/accepted.yaml:4`)",
		"- `gone-mutant` (`waitsim/accepted.yaml:6`)")

	// 3. The mark removed: the operator survivor runs, survives, and is
	// new: the gate fails on it alone, and it alone is a warning.
	write("calc/calc.go", string(calc))
	out = mutate("3 a new operator survivor beside the accepted one", 1)
	has("3", out, "gate: operator mutation score 66.7% (2 of 3 killed) is below the threshold 100.0% (gremlins.yaml unleash.threshold.efficacy): "+
		"1 new survivor(s), not in waitsim/accepted.yaml: gremlins:calc/calc.go:17:7:CONDITIONALS_BOUNDARY (exit 1)\n")
	a := annotations("3")
	if w := regexp.MustCompile(`(?m)^::warning .*$`).FindAllString(a, -1); len(w) != 1 ||
		w[0] != "::warning file=calc/calc.go,line=17,title=waitsim%3A new survivor gremlins%3Acalc/calc.go%3A17%3A7%3ACONDITIONALS_BOUNDARY (survived)::conditionals boundary: > → >="+
			"%0ANew survivor: not in waitsim/accepted.yaml. Add a case that kills it, or accept it there with a reason." {
		t.Errorf("3: warnings %q", w)
	}
}
