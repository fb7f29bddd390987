package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/waitsim/waitsim/reports/timeline"
)

// Output file names under the report directory (out/report by default).
const (
	FileRun     = "run.json"             // the Run (head's, when comparing)
	FileSummary = "summary.md"           // Markdown for the CI job summary (≤ SummaryLimit)
	FileComment = "comment.md"           // Markdown for the pull-request comment (≤ CommentLimit)
	FileJUnit   = "junit.xml"            // JUnit XML
	FileStryker = "mutation-report.json" // Stryker mutation-testing-report-schema JSON
	FileHTML    = "report.html"          // the self-contained HTML report
	DirTrace    = "trace"                // trace-event JSON, one file per scenario case
)

// Write renders every output of r into dir and returns the paths written, in
// a fixed order. When cmp is not nil (cmp.Head is r), the Markdown files are
// the base-vs-head comparison and the HTML leads with its verdict. root is
// the source tree of r's mutants (for the Stryker report, which needs each
// mutated file's source); the Stryker report is written only when r has a
// mutation result. The trace directory is emptied first, so no file of an
// earlier run is left beside the new ones.
func Write(dir string, r *Run, cmp *Comparison, root string) ([]string, error) {
	var written []string
	put := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		written = append(written, p)
		return nil
	}
	runJSON, err := r.Marshal()
	if err != nil {
		return nil, err
	}
	if err := put(FileRun, runJSON); err != nil {
		return nil, err
	}
	summary, comment := RunMarkdown(r, SummaryLimit), RunMarkdown(r, CommentLimit)
	if cmp != nil {
		summary, comment = CompareMarkdown(cmp, SummaryLimit), CompareMarkdown(cmp, CommentLimit)
	}
	if err := put(FileSummary, []byte(summary)); err != nil {
		return nil, err
	}
	if err := put(FileComment, []byte(comment)); err != nil {
		return nil, err
	}
	junit, err := JUnit(r)
	if err != nil {
		return nil, err
	}
	if err := put(FileJUnit, junit); err != nil {
		return nil, err
	}
	if r.Mutation != nil {
		st, err := Stryker(r, root)
		if err != nil {
			return nil, err
		}
		if err := put(FileStryker, st); err != nil {
			return nil, err
		}
	}
	if err := put(FileHTML, HTML(r, cmp)); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(filepath.Join(dir, DirTrace)); err != nil {
		return nil, err
	}
	if r.Scenarios != nil {
		used := map[string]bool{}
		for i := range r.Scenarios.Cases {
			c := &r.Scenarios.Cases[i]
			name := timeline.TraceFileName(c.ID)
			for n := 2; used[strings.ToLower(name)]; n++ {
				name = strings.TrimSuffix(timeline.TraceFileName(c.ID), ".json") + fmt.Sprintf("-%d.json", n)
			}
			used[strings.ToLower(name)] = true
			data, err := timeline.TraceEvents(c)
			if err != nil {
				return nil, err
			}
			if err := put(filepath.Join(DirTrace, name), data); err != nil {
				return nil, err
			}
		}
	}
	return written, nil
}
