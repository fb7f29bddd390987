package waitsim

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/waitsim/waitsim/scenario"
)

// TestHotFilesLoad: a hot process's kept load serves, and gives what a
// load of its own gives: after the cases it handed out were changed deep
// inside (a caller's args, a roster change, an expectation); a file that
// changed, or other load options, load afresh.
func TestHotFilesLoad(t *testing.T) {
	src, err := os.ReadFile("scenarios/table/membership.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "membership.yaml")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var opts scenario.Options
	fresh := func() []scenario.Case {
		t.Helper()
		cases, problems := scenario.LoadFile(file, opts)
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		return cases
	}
	h := &hotFiles{}
	for round := range 3 {
		got, ok := h.load(file, opts)
		if !ok || !reflect.DeepEqual(got, fresh()) {
			t.Fatalf("round %d: the kept load differs from a load of its own", round)
		}
		if h.loads != 1 {
			t.Fatalf("round %d: %d loads of the file, want 1 (the kept load serves)", round, h.loads)
		}
		// What a world could do to the case it runs.
		got[0].Scenario.Callers[0].Args["timeoutMs"] = 1
		got[0].Scenario.Callers[0].Args["sessionIds"].([]any)[0] = "z"
		got[0].Scenario.Changes[0].AtMs = 99
		got[0].Scenario.Agents = append(got[0].Scenario.Agents[:0], scenario.AgentSpec{ID: "q"})
		got[1].Scenario.Expect = nil
	}
	// The file changes: its new cases, not the kept ones.
	if err := os.WriteFile(file, append(src, "\n# one more line\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	before := len(h.files[file].src)
	if got, ok := h.load(file, opts); !ok || !reflect.DeepEqual(got, fresh()) || len(h.files[file].src) == before || h.loads != 2 {
		t.Fatal("after the file changed: the kept load served")
	}
	// Other options: loaded again, and kept under them.
	old := string(h.files[file].opts)
	opts.DefaultTool = "other"
	if got, ok := h.load(file, opts); !ok || !reflect.DeepEqual(got, fresh()) || string(h.files[file].opts) == old || h.loads != 3 {
		t.Fatal("under other options: the kept load served")
	}
}
