package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/waitsim/waitsim/results"
)

func TestWriteIsDeterministic(t *testing.T) {
	render := func() map[string][]byte {
		base, head := loadFixture(t, "base.json"), loadFixture(t, "head.json")
		// Two ids whose file names differ only in case get distinct files
		// (a case-insensitive file system would take them for one).
		head.Scenarios.Cases[0].ID = "slow-list"
		head.Scenarios.Cases = append(head.Scenarios.Cases, head.Scenarios.Cases[0])
		head.Scenarios.Cases[len(head.Scenarios.Cases)-1].ID = "SLOW-LIST"
		dir := t.TempDir()
		// A stale trace from an earlier run must go.
		if err := os.MkdirAll(filepath.Join(dir, DirTrace), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, DirTrace, "stale.json"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		paths, err := Write(dir, head, Compare(base, head), "..")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, p := range paths {
			rel, _ := filepath.Rel(dir, p)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[rel] = b
		}
		if _, err := os.Stat(filepath.Join(dir, DirTrace, "stale.json")); err == nil {
			t.Error("stale trace file left behind")
		}
		return out
	}
	a, b := render(), render()
	for _, name := range []string{FileRun, FileSummary, FileComment, FileJUnit, FileStryker, FileHTML,
		filepath.Join(DirTrace, "slow-list.json"), filepath.Join(DirTrace, "SLOW-LIST-2.json")} {
		if len(a[name]) == 0 {
			t.Errorf("%s not written", name)
		}
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two renders of the same input", name)
		}
	}
	if len(a) != len(b) {
		t.Errorf("%d files, then %d", len(a), len(b))
	}
	if len(a[FileComment]) > CommentLimit || len(a[FileSummary]) > SummaryLimit {
		t.Error("markdown over its limit")
	}
}

func TestWriteWithoutMutation(t *testing.T) {
	r := &Run{Version: RunVersion, Scenarios: &results.RunResult{Version: results.ResultVersion}}
	r.Normalize()
	dir := t.TempDir()
	if _, err := Write(dir, r, nil, "."); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileStryker)); err == nil {
		t.Error("a Stryker report without a mutation result")
	}
}
