package mutants

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suggest"
)

// demoKillers are, for three catalog mutants, the lines of the table that
// hold every case that kills them (out/mutation.json's killedBy on the
// whole table): a matrix row, or a whole file ("" as the line).
var demoKillers = map[string][][2]string{
	"waiting-is-terminal": {
		{"scenarios/table/agent-states.yaml", "{state: waiting, _at: 30000, _done: false}"}, // agent-state[state=waiting]
		{"scenarios/table/completes-mid-wait.yaml", ""},
	},
	"total-budget-not-shared": {
		{"scenarios/table/numeric-boundaries.yaml", "{budget: total-1000, "},                  // budget-bounds[budget=total-1000]
		{"scenarios/table/budget-edges.yaml", "{budget: total, _args: {maxTotalChars: 1000}"}, // budget-spent-at-message-end[budget=total]
		{"scenarios/table/budget-cuts.yaml", ""},
	},
	"failed-read-not-charged": {
		{"scenarios/table/bridge-errors.yaml", "{latency: 2000, _at: 26000, "}, // error-first-list[latency=2000]
	},
}

// TestSuggestDemonstration is issue 12's demonstration: on a copy of the
// module, remove from the table the cases that kill three catalog mutants;
// the gate with --suggest lets them survive and writes one case for each
// (and nothing into the tree but out/); add those files to the table; the
// gate passes, each mutant killed by its suggested case alone. One copy of
// the module serves both runs, so the second reuses the first's compiled
// packages; --only keeps the campaign to the three mutants.
func TestSuggestDemonstration(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	root := copyModule(t)
	for _, ks := range demoKillers {
		for _, k := range ks {
			removeLine(t, filepath.Join(root, k[0]), k[1])
		}
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range demoKillers {
			if !yield(id) {
				return
			}
		}
	})
	cfg := Config{Root: root, NoOperators: true, NoVet: true, Workers: 2, Suggest: true,
		Only: regexp.MustCompile("^(" + strings.Join(ids, "|") + ")$"), Progress: logWriter{t}}
	before := treeSum(t, root)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != verdict.ExitGateFailed {
		t.Fatalf("without the killers: exit %d (%s), want %d", res.ExitCode, res.Gate, verdict.ExitGateFailed)
	}
	if after := treeSum(t, root); after != before {
		t.Fatal("the run with --suggest changed the tree outside out/")
	}
	got := byID(res)
	table := filepath.Join(root, "scenarios", "table")
	for _, id := range ids {
		m := got[id]
		if m.Status != verdict.StatusSurvived || m.Suggested == "" {
			t.Fatalf("%s: %s, suggested %q (%s); want a survivor with a suggested case", id, m.Status, m.Suggested, m.SuggestNote)
		}
		if !strings.HasPrefix(m.Suggested, "# protects: "+id+"\n") {
			t.Errorf("%s: the case does not open with its # protects: line:\n%s", id, m.Suggested)
		}
		file := filepath.Join(root, filepath.FromSlash(m.SuggestedFile))
		b, err := os.ReadFile(file)
		if err != nil || string(b) != m.Suggested || filepath.Dir(file) != filepath.Join(root, "out", "suggested") {
			t.Fatalf("%s: file %s (%v) is not the result's suggestion", id, m.SuggestedFile, err)
		}
		t.Logf("suggested for %s:\n%s", id, b)
		if err := os.WriteFile(filepath.Join(table, filepath.Base(file)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The suggested cases added to the table: the gate passes, each
	// mutant killed by its own case, and a killed mutant keeps no file.
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != verdict.ExitPass {
		t.Fatalf("with the suggested cases: exit %d (%s), want the gate to pass", res.ExitCode, res.Gate)
	}
	got = byID(res)
	for _, id := range ids {
		m := got[id]
		if want := []string{"TestTable/" + suggest.CaseName(id) + ".yaml/" + suggest.CaseName(id)}; m.Status != verdict.StatusKilled || !slices.Equal(m.KilledBy, want) || m.Suggested != "" {
			t.Errorf("%s: %s by %v (suggested %q), want killed by %v alone", id, m.Status, m.KilledBy, m.Suggested, want)
		}
		if _, err := os.Stat(filepath.Join(root, "out", "suggested", suggest.CaseName(id)+".yaml")); !os.IsNotExist(err) {
			t.Errorf("%s was killed, but its suggestion file is still there (%v)", id, err)
		}
	}
}

// copyModule copies the module (the parent of this package) into a
// temporary directory, without .git, out/ and other hidden directories but
// .ci.
func copyModule(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	copyTree(t, src, dst, func(rel string, d fs.DirEntry) bool {
		return rel == ".git" || d.IsDir() && (rel == "out" || strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci")
	})
	return dst
}

// removeLine removes from file the one line that contains sub, or the whole
// file when sub is "". It fails when sub is not on exactly one line: the
// table moved, and the demonstration must follow it.
func removeLine(t *testing.T, file, sub string) {
	t.Helper()
	if sub == "" {
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var keep []string
	for _, l := range lines {
		if !strings.Contains(l, sub) {
			keep = append(keep, l)
		}
	}
	if len(keep) != len(lines)-1 {
		t.Fatalf("%s: %d lines contain %q, want 1", file, len(lines)-len(keep), sub)
	}
	if err := os.WriteFile(file, []byte(strings.Join(keep, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeSum hashes every file under root except out/.
func treeSum(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && rel == "out" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s %x\n", rel, sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// logWriter writes a campaign's progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
