package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/reports/model"
	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"

	"github.com/waitsim/waitsim/mutants/verdict"
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
		"- expectation: want \\<x\\> \\& got \"y\"", // escaped: a message never opens HTML
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
		r.Scenarios.Cases = append(r.Scenarios.Cases, results.CaseResult{ID: fmt.Sprintf("generated[%04d]", i), File: "scenarios/table/gen.yaml",
			Line: i + 1, Verdict: results.VerdictFail, Failures: []string{"call A#1: remainingMs: want 570000, got absent"},
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
	if got := text.Code("a`b"); got != "``a`b``" {
		t.Errorf("code: %s", got)
	}
	if got := text.Cell("x | y\nz"); got != `x \| y z` {
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

// TestHeadlineNoMutation: passing scenarios without a mutation result are
// no pass of the report (the gate's half is missing): ⚠️ "incomplete", in
// Markdown and HTML; a failing scenario is still ❌.
func TestHeadlineNoMutation(t *testing.T) {
	s := results.RunResult{Cases: []results.CaseResult{{ID: "a", File: "t/a.yaml", Verdict: results.VerdictPass}}, Index: []results.IndexEntry{{ID: "a"}},
		Table: &results.Table{Dir: "t", Files: []string{"t/a.yaml"}}}
	s.Count()
	r := &Run{Version: RunVersion, Scenarios: &s}
	if icon, line := runHeadline(r); icon != "⚠️" || !strings.Contains(line, "no mutation results") {
		t.Errorf("headline %s %q, want ⚠️ and no mutation results", icon, line)
	}
	if h := string(HTML(r, nil)); !strings.Contains(h, `<p class="headline"><span class="badge error">incomplete</span>`) {
		t.Errorf("HTML headline is not marked incomplete:\n%s", h)
	}
	f := results.RunResult{Cases: []results.CaseResult{{ID: "a", Verdict: results.VerdictFail}}, Index: []results.IndexEntry{{ID: "a"}}}
	f.Count()
	if icon, _ := runHeadline(&Run{Version: RunVersion, Scenarios: &f}); icon != "❌" {
		t.Errorf("failing scenarios without a mutation result: %s, want ❌", icon)
	}
}

// TestDirtyCommitShown: a run made from a modified tree says "-dirty" in the
// comment's identity line, the comparison's title and the HTML.
func TestDirtyCommitShown(t *testing.T) {
	const sha = "8117b995efb5a0cef0af15c76e837b2f81524f72"
	if got := text.Short(sha + "-dirty"); got != "8117b995efb5-dirty" {
		t.Errorf("short = %q", got)
	}
	if got := text.Short(sha); got != "8117b995efb5" {
		t.Errorf("short = %q", got)
	}
	base, head := smallRun(), smallRun()
	base.Commit, head.Commit = sha, sha+"-dirty"
	if md := RunMarkdown(head, CommentLimit); !strings.Contains(md, "`8117b995efb5-dirty`") {
		t.Errorf("run comment does not show -dirty:\n%s", md)
	}
	md := CompareMarkdown(Compare(base, head), CommentLimit)
	if !strings.Contains(md, "base `8117b995efb5` → head `8117b995efb5-dirty`") {
		t.Errorf("comparison title does not show -dirty:\n%s", strings.SplitN(md, "\n", 3)[1])
	}
	if page := string(HTML(head, Compare(base, head))); !strings.Contains(page, "head 8117b995efb5-dirty") {
		t.Error("HTML does not show -dirty")
	}
}

// TestMutantCountsLeaveOutSanity: the Markdown counts agree with
// mutation.json's counts (which leave out the sanity mutant) and say how the
// sanity mutant went.
func TestMutantCountsLeaveOutSanity(t *testing.T) {
	r := loadFixture(t, "head.json")
	// The counts as the mutation gate itself computes them (the fixture's own
	// counts are made by hand).
	m := r.Mutation
	verdict.Evaluate(m)
	md := RunMarkdown(r, 0)
	var cs []string
	total := 0
	for _, st := range verdict.Statuses {
		if n := m.Counts[st]; n > 0 {
			cs = append(cs, fmt.Sprintf("%s %d", st, n))
			total += n
		}
	}
	want := fmt.Sprintf("%d mutants: %s.", total, strings.Join(cs, " · "))
	if !strings.Contains(md, want) {
		t.Errorf("want %q (mutation.json's counts %v) in:\n%s", want, m.Counts, md)
	}
	if !strings.Contains(md, "The sanity mutant") || !strings.Contains(md, "it was killed.") {
		t.Errorf("the sanity mutant is not mentioned:\n%s", md)
	}
}

// longTimeline is a timeline of n filler lines with caller A's call 1
// starting at line 0 and its reply at line reply.
func longTimeline(n, reply int, replyText string) string {
	var b strings.Builder
	for i := range n {
		ms := i * 10
		switch i {
		case 0:
			fmt.Fprintf(&b, "%9d ms  %-10s call 1: pollIntervalMs=250 timeoutMs=600000\n", ms, "caller:A")
		case reply:
			fmt.Fprintf(&b, "%9d ms  %-10s %s\n", ms, "caller:A", replyText)
		default:
			fmt.Fprintf(&b, "%9d ms  %-10s filler %d\n", ms, "bridge", i)
		}
	}
	return b.String()
}

// TestFailureTimelineShowsTheFailingReply: a long timeline is excerpted
// around the reply of the call a failure names, however late it comes.
func TestFailureTimelineShowsTheFailingReply(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		c           func(tl string) results.CaseResult
	}{
		{"expectation", "call 1: reply agents=[c=running] outputs=0 outputsUnavailable=true", func(tl string) results.CaseResult {
			return results.CaseResult{ID: "x", Verdict: results.VerdictFail, Timeline: tl,
				Failures: []string{"call A#1: outputsUnavailable: want true, got absent"}}
		}},
		{"invariant, lost", "request timeout (20000 ms): reply LOST", func(tl string) results.CaseResult {
			return results.CaseResult{ID: "x", Verdict: results.VerdictFail, Timeline: tl,
				Violation: []results.Violation{{Invariant: "reply-survives-caller", Message: "call A#1 resolved at 20000 ms: reply LOST"}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n, reply = 600, 481
			c := tc.c(longTimeline(n, reply, tc.reply))
			c.Calls = []results.CallSummary{{Caller: "A", Index: 1}}
			s := &results.RunResult{Version: results.ResultVersion, Cases: []results.CaseResult{c}}
			tally(s)
			md := RunMarkdown(&Run{Version: RunVersion, Scenarios: s}, CommentLimit)
			if !strings.Contains(md, tc.reply) {
				t.Fatalf("the failing reply (line %d) is not shown:\n%s", reply+1, md)
			}
			for i := reply - excerptBefore + 1; i < reply; i++ {
				if !strings.Contains(md, fmt.Sprintf("filler %d\n", i)) {
					t.Errorf("line %d before the reply is not shown", i+1)
				}
			}
			for _, gone := range []int{reply - excerptBefore, excerptHead, reply + 1} {
				if strings.Contains(md, fmt.Sprintf("filler %d\n", gone)) {
					t.Errorf("line %d is shown", gone+1)
				}
			}
			if !strings.Contains(md, "call 1: pollIntervalMs=250") {
				t.Error("the first lines are not shown")
			}
			if !strings.Contains(md, fmt.Sprintf("… %d lines left out …", reply-excerptBefore+1-excerptHead)) ||
				!strings.Contains(md, fmt.Sprintf("… %d more lines", n-reply-1)) {
				t.Errorf("left-out lines are not counted:\n%s", md)
			}
		})
	}
}

// TestFailureTimelineWithoutNamedCall: a failure that names no call shows
// the start and the end of a long timeline.
func TestFailureTimelineWithoutNamedCall(t *testing.T) {
	c := results.CaseResult{ID: "x", Verdict: results.VerdictError, Error: "horizon reached",
		Timeline: longTimeline(600, 1, "call 1: reply ok=true")}
	got := timelineExcerpt(&c)
	if !strings.Contains(got, "filler 2\n") || !strings.HasSuffix(got, "filler 599") || strings.Contains(got, "filler 300\n") {
		t.Errorf("excerpt:\n%s", got)
	}
}

// A partial campaign's gate says what narrowed it wherever the gate is
// shown: "pass" of two mutants picked with --only is no pass of the whole
// campaign (before, comment.md said "(gate: pass)" for two of six
// catalog mutants).
func TestPartialCampaignGateSaysSo(t *testing.T) {
	r := smallRun()
	whole := RunMarkdown(r, 0)
	if strings.Contains(whole, "partial campaign") {
		t.Errorf("a whole campaign called partial:\n%s", whole)
	}
	r.Mutation.Options = `target=./waittool/ no-catalog=false no-operators=true only="k" diff=""`
	want := `pass on a partial campaign (--only "k", --no-operators)`
	_, headline := runHeadline(r)
	md := RunMarkdown(r, 0)
	html := string(HTML(r, nil))
	if !strings.Contains(headline, "(gate: "+want+")") || strings.Count(md, "partial campaign") < 2 || !strings.Contains(html, "gate: pass on a partial campaign (--only &#34;k&#34;, --no-operators)") {
		t.Errorf("want %q in the headline, the Markdown's headline and table, and the HTML:\nheadline %q\n%s", want, headline, md)
	}
	r.Mutation.Options, r.Mutation.Shard = "", "2/3"
	if _, h := runHeadline(r); !strings.Contains(h, "pass on a partial campaign (shard 2/3)") {
		t.Errorf("a shard's headline %q", h)
	}
}

// The HTML page's headline carries the gate as it is, not escaped for
// Markdown (before: "CONDITIONALS\_BOUNDARY" on the page).
func TestHTMLHeadlineNotMarkdownEscaped(t *testing.T) {
	r := smallRun()
	r.Mutation.Gate = "gremlins:a.go:1:2:CONDITIONALS_BOUNDARY survived"
	html := string(HTML(r, nil))
	if !strings.Contains(html, "CONDITIONALS_BOUNDARY survived)</p>") || strings.Contains(html, `CONDITIONALS\_BOUNDARY`) {
		t.Errorf("the headline of the page:\n%s", html[:min(len(html), 3000)])
	}
	if _, md := runHeadline(r); !strings.Contains(md, `CONDITIONALS\_BOUNDARY`) {
		t.Errorf("the Markdown headline %q: want the gate escaped for Markdown", md)
	}
}

// Results made outside git carry no commit or tree, so no report can tie
// them to the source: the identity line says so rather than only "unknown".
func TestIdentityWithoutGit(t *testing.T) {
	r := smallRun()
	if strings.Contains(runIdentity(r), "not made in a git work tree") {
		t.Errorf("a run with a commit: %q", runIdentity(r))
	}
	r.Commit, r.Tree = "", ""
	if got := runIdentity(r); !strings.Contains(got, "commit `unknown` (not made in a git work tree") {
		t.Errorf("a run without a commit: %q", got)
	}
	// A repository with no commit yet: the tree ties the results.
	r.Tree = "0123456789abcdef"
	if got := runIdentity(r); !strings.Contains(got, "(no commit yet: the results are tied to the work tree's content, tree 0123456789ab)") {
		t.Errorf("a run in a repository with no commit yet: %q", got)
	}
}

// Skipped cases are neither passes nor failures in the headline (a run of
// a table with skips, as `waitsim run --json` writes it, is reported, not
// refused), but a run in which no case passed (all skipped) is no pass; a
// run that left cases of its table's index without a verdict, or files of
// the test's own table without a case (`waitsim run FILE`), is never a pass
// of the table, nor is one that records no table (an older waitsim's).
func TestHeadlineSkipsAndUnrun(t *testing.T) {
	idx := []results.IndexEntry{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	table := &results.Table{Dir: "t", Files: []string{"t/a.yaml", "t/b.yaml"}}
	pass := func(id, file string) results.CaseResult {
		return results.CaseResult{ID: id, File: file, Verdict: results.VerdictPass}
	}
	skip := func(id, file string) results.CaseResult {
		return results.CaseResult{ID: id, File: file, Verdict: results.VerdictSkip}
	}
	whole := []results.CaseResult{pass("a", "t/a.yaml"), pass("b", "t/a.yaml"), pass("c", "t/b.yaml")}
	for _, c := range []struct {
		name  string
		s     results.RunResult
		icon  string
		words string
	}{
		{"skips", results.RunResult{Cases: []results.CaseResult{pass("a", "t/a.yaml"), skip("b", "t/a.yaml"), pass("c", "t/b.yaml")}, Index: idx, Table: table}, "✅", "2 scenarios pass, 1 skipped"},
		{"all skipped", results.RunResult{Cases: []results.CaseResult{skip("a", "t/a.yaml"), skip("b", "t/a.yaml"), skip("c", "t/b.yaml")}, Index: idx, Table: table}, "❌", "no scenario passes: all 3 skipped"},
		{"unrun", results.RunResult{Cases: []results.CaseResult{pass("a", "t/a.yaml")}, Index: idx, Table: table}, "❌", "all 1 scenarios pass (2 of the table's 3 cases did not run)"},
		{"part of the table", results.RunResult{Cases: whole[:2], Index: idx[:2], Table: table}, "❌", "all 2 scenarios pass (1 of the table's 2 scenario files did not run)"},
		{"beside another file", results.RunResult{Cases: append(whole[:2:2], pass("s", "sweep/s.yaml")), Index: idx, Table: table}, "❌", "(1 of the table's 2 scenario files did not run)"},
		{"no table recorded", results.RunResult{Cases: whole, Index: idx}, "❌", "do not record the scenario table they cover"},
		{"empty table", results.RunResult{Cases: whole, Index: idx, Table: &results.Table{Dir: "t", Files: []string{}}}, "❌", "holds no scenario file"},
		{"whole", results.RunResult{Cases: whole, Index: idx, Table: table}, "✅", "all 3 scenarios pass"},
		{"whole and more", results.RunResult{Cases: append(whole[:3:3], pass("s", "sweep/s.yaml")), Index: append(idx[:3:3], results.IndexEntry{ID: "s"}), Table: table}, "✅", "all 4 scenarios pass"},
	} {
		c.s.Count()
		icon, line := runHeadline(&Run{Version: RunVersion, Scenarios: &c.s, Mutation: &verdict.Result{Gate: "pass"}})
		if icon != c.icon || !strings.Contains(line, c.words) {
			t.Errorf("%s: %s %q, want %s and %q", c.name, icon, line, c.icon, c.words)
		}
		if c.name == "skips" {
			if fs := model.HeadFailures(&Run{Scenarios: &c.s}); len(fs) != 0 {
				t.Errorf("skips: %d failing cases, want none (a skip is no failure)", len(fs))
			}
		}
	}
}
