package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/scenarios"
)

func TestCompareMarkdownLeadsWithVerdict(t *testing.T) {
	base, head := loadFixture(t, "base.json"), loadFixture(t, "head.json")
	md := CompareMarkdown(Compare(base, head), CommentLimit)
	lines := strings.Split(md, "\n")
	if lines[0] != CommentMarker || !strings.HasPrefix(lines[1], "## waitsim: ❌ regressed — base `111111111111` → head `222222222222`") {
		t.Fatalf("does not open with the marker and the verdict:\n%s", strings.Join(lines[:3], "\n"))
	}
	if !strings.Contains(lines[2], "2 new failures · 2 new survivors") {
		t.Errorf("headline: %s", lines[2])
	}
	// Sections in the order a reviewer needs them.
	order := []string{"### New failures (2)", "### New survivors (2)", "### Mutation score", "### Added cases (1)",
		"### Removed cases (1)", "### Changed behaviour (1 cases)", "### Repro of every failure in head"}
	at := -1
	for _, h := range order {
		i := strings.Index(md, h)
		if i < 0 || i < at {
			t.Errorf("section %q missing or out of order", h)
		}
		at = i
	}
	for _, want := range []string{
		// the why: the failing expectation and the violated invariant
		"- expectation: call A#1: outputsUnavailable: want true, got absent",
		"- invariant `reply-survives-caller`:",
		// the per-call change, base → head
		"| `slow-list[list=5000]` | A#1 | **21500 → 20750** | **578500 → 579250** | 4 | 1 |",
		// the score, absolute and change
		"| catalog | 100.0% | 75.0% | -25.0 pts |",
		// the survivor's diff
		"```diff\n--- a/waittool/tool.go",
		// a repro line per failure
		"go test ./scenarios/ -count=1 -run '^TestTable$/^fast-then-stall$'  # fast-then-stall",
		"go test ./scenarios/ -count=1 -run '^TestTable$/^short-caller-timeout$'  # short-caller-timeout",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "This report was cut") {
		t.Error("a small report must not be cut")
	}
	if again := CompareMarkdown(Compare(loadFixture(t, "base.json"), loadFixture(t, "head.json")), CommentLimit); again != md {
		t.Error("two renders of the same input differ")
	}
}

func TestRunMarkdown(t *testing.T) {
	md := RunMarkdown(smallRun(), SummaryLimit)
	for _, want := range []string{
		"## waitsim: ❌ 2 of 3 scenarios fail",
		"commit `c0ffee`",
		"| 3 | 1 | 1 | 1 |",
		"#### ❌ `bad` — fail",
		"- expectation: want <x> & got \"y\"",
		"#### ❌ `boom` — error",
		"- runtime error: horizon reached",
		"```sh\nrepro boom\n```",
		"### Survivors (2)", // survived and timed out
		"6 mutants: killed 1 · survived 1 · not viable 1 · timed out 1 · patch-no-longer-applies 1 · equivalent 1.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q\n%s", want, md)
		}
	}
}

// bigHead is a head run with n failing cases, each with a long timeline.
func bigHead(n int) *Run {
	r := loadFixtureNoT()
	tl := strings.Repeat("    1000 ms  tool:1     sleep 1000 ms (cost 0 ms)\n", 100)
	for i := 0; i < n; i++ {
		r.Scenarios.Cases = append(r.Scenarios.Cases, scenarios.CaseResult{ID: fmt.Sprintf("generated[%04d]", i), File: "scenarios/table/gen.yaml",
			Line: i + 1, Verdict: scenarios.VerdictFail, Failures: []string{"call A#1: remainingMs: want 570000, got absent"},
			Repro: fmt.Sprintf("go test ./scenarios/ -count=1 -run '^TestTable$/^generated\\[%04d\\]$'", i), Timeline: tl})
	}
	tally(r.Scenarios)
	return r
}

func loadFixtureNoT() *Run {
	r, err := LoadRun("testdata/head.json")
	if err != nil {
		panic(err)
	}
	return r
}

func TestCutKeepsUnderLimitWithNotice(t *testing.T) {
	base := loadFixtureNoT()
	head := bigHead(400)
	full := CompareMarkdown(Compare(base, head), 0)
	if len(full) <= SummaryLimit {
		t.Fatalf("fixture too small to test the cut: %d bytes", len(full))
	}
	for _, limit := range []int{CommentLimit, SummaryLimit} {
		md := CompareMarkdown(Compare(base, head), limit)
		if len(md) > limit {
			t.Errorf("limit %d: %d bytes", limit, len(md))
		}
		if !strings.Contains(md, "This report was cut") || !strings.Contains(md, fmt.Sprintf("of %d bytes are shown (the limit here is %d)", len(full), limit)) {
			t.Errorf("limit %d: no explicit notice:\n%s", limit, md[max(0, len(md)-400):])
		}
		// The verdict survives the cut; fences and <details> are closed.
		if !strings.HasPrefix(md, CommentMarker+"\n## waitsim: ❌ regressed") {
			t.Errorf("limit %d: verdict lost", limit)
		}
		fences := 0
		for _, ln := range strings.Split(md, "\n") {
			if strings.HasPrefix(ln, "```") {
				fences++
			}
		}
		if fences%2 != 0 {
			t.Errorf("limit %d: unbalanced code fences (%d)", limit, fences)
		}
		if o, c := strings.Count(md, "<details>"), strings.Count(md, "</details>"); o != c {
			t.Errorf("limit %d: %d <details> but %d </details>", limit, o, c)
		}
	}
}

func TestCutClosesOpenFence(t *testing.T) {
	md := "# t\n\n````diff\n" + strings.Repeat("+ a line of the diff\n", 500) + "````\n"
	got := Cut(md, 2000)
	if len(got) > 2000 {
		t.Fatalf("%d bytes", len(got))
	}
	i := strings.LastIndex(got, "````\n")
	j := strings.Index(got, "This report was cut")
	if i < 0 || j < i {
		t.Errorf("the open ```` fence is not closed before the notice:\n%s", got[max(0, len(got)-500):])
	}
	if Cut(md, 0) != md || Cut(md, len(md)) != md {
		t.Error("a report within its limit must be unchanged")
	}
}

func TestCodeSpansAndCells(t *testing.T) {
	if got := code("a`b"); got != "``a`b``" {
		t.Errorf("code: %s", got)
	}
	if got := cell("x | y\nz"); got != `x \| y z` {
		t.Errorf("cell: %s", got)
	}
}

// TestHeadlineEmptyRun: a run without results says so, never "all 0 pass".
func TestHeadlineEmptyRun(t *testing.T) {
	icon, line := runHeadline(&Run{Version: RunVersion})
	if icon != "❌" || !strings.Contains(line, "no scenario results") || !strings.Contains(line, "no mutation results") {
		t.Fatalf("headline %s %q", icon, line)
	}
}
