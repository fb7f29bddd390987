package reports

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/waitsim/waitsim/reports/model"
	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// Size limits of the places Markdown is published, in bytes. A limit in bytes
// also bounds the number of characters.
const (
	// CommentLimit is GitHub's limit of a pull-request comment (65536 characters).
	CommentLimit = 65536
	// SummaryLimit is GitHub's limit of one step's job summary (1 MiB).
	SummaryLimit = 1 << 20
)

// CommentMarker is the hidden first line of every Markdown report; CI finds
// the pull-request comment to update by it.
const CommentMarker = "<!-- waitsim-report -->"

// timelineLines is how many lines of a failing case's text timeline Markdown
// shows whole; a longer one is excerpted (see timelineExcerpt).
const timelineLines = 80

// RunMarkdown renders one run for a job summary or a pull-request comment,
// cut to limit bytes (0 = no limit) with an explicit notice when cut.
func RunMarkdown(r *Run, limit int) string {
	var b mdBuilder
	b.line(CommentMarker)
	icon, headline := runHeadline(r)
	b.line("## waitsim: %s %s", icon, headline)
	b.line("%s", runIdentity(r))
	b.blank()
	if s := r.Scenarios; s != nil {
		b.line("| scenarios | passed | failed | errors | skipped |")
		b.line("|---|---:|---:|---:|---:|")
		b.line("| %d | %d | %d | %d | %d |", len(s.Cases), s.Passed, s.Failed, s.Errors, s.Skipped)
		b.blank()
		survivalMarkdown(&b, s)
	}
	if m := r.Mutation; m != nil {
		mutationTable(&b, m)
		ratchetMarkdown(&b, m)
	}
	conformanceMarkdown(&b, r)
	if fs := model.HeadFailures(r); len(fs) > 0 {
		b.line("### Failures (%d)", len(fs))
		b.blank()
		for _, c := range fs {
			failureBlock(&b, c, true)
		}
	}
	if ss := model.Survivors(r); len(ss) > 0 {
		b.line("### Survivors (%d)", len(ss))
		b.blank()
		for _, m := range ss {
			survivorBlock(&b, m, ratchetNote(r.Mutation, m))
		}
	}
	return Cut(b.String(), limit)
}

// CompareMarkdown renders a base-vs-head comparison: the verdict first, then
// new failures, fixes, added and removed cases, per-case changes, the
// mutation score, new survivors with their diff, and the repro line of each
// failure. It is cut to limit bytes (0 = no limit) with a notice when cut.
func CompareMarkdown(c *Comparison, limit int) string {
	var b mdBuilder
	b.line(CommentMarker)
	b.line("## waitsim: %s %s — base %s → head %s", verdictIcon(c.Verdict), c.Verdict,
		text.Code(text.Short(c.Base.Commit)), text.Code(text.Short(c.Head.Commit)))
	b.line("**%s**", compareHeadline(c))
	b.blank()
	if c.Base.Scenarios == nil || c.Head.Scenarios == nil {
		b.line("_Scenarios not compared: no scenario result in %s._", missingSide(c.Base.Scenarios == nil, c.Head.Scenarios == nil))
		b.blank()
	}
	if c.Base.Mutation == nil || c.Head.Mutation == nil {
		b.line("_Mutation not compared: no mutation result in %s._", missingSide(c.Base.Mutation == nil, c.Head.Mutation == nil))
		b.blank()
	}
	if c.HeadPartial != "" {
		b.line("_Head ran only part of its table (%s): what it did not run it did not check._", text.Cell(c.HeadPartial))
		b.blank()
	}
	if len(c.MutationNotRun) > 0 {
		b.line("_Mutation not compared: a campaign never ran, so no score is compared and no mutant is listed as removed or surviving._")
		b.blank()
		for _, n := range c.MutationNotRun {
			b.line("- %s", text.Cell(n))
		}
		b.blank()
	}
	if len(c.NewFailures) > 0 {
		b.line("### New failures (%d)", len(c.NewFailures))
		b.blank()
		for _, f := range c.NewFailures {
			failureBlock(&b, f, true)
		}
	}
	if len(c.NewSurvivors) > 0 {
		b.line("### New survivors (%d)", len(c.NewSurvivors))
		b.blank()
		for _, m := range c.NewSurvivors {
			survivorBlock(&b, m, ratchetNote(c.Head.Mutation, m))
		}
	}
	if s := c.Score; s != nil {
		b.line("### Mutation score")
		b.blank()
		b.line("| | base | head | change |")
		b.line("|---|---:|---:|---:|")
		b.line("| catalog | %s | %s | %s |", verdict.FormatScore(s.BaseCatalog, s.BaseCatalogScored, 100),
			verdict.FormatScore(s.HeadCatalog, s.HeadCatalogScored, 100), ptsOrNA(s.HeadCatalog-s.BaseCatalog, s.BaseCatalogScored, s.HeadCatalogScored))
		b.line("| operator | %s | %s | %s |", verdict.FormatScore(s.BaseOperator, s.BaseOperatorScored, s.BaseThreshold),
			verdict.FormatScore(s.HeadOperator, s.HeadOperatorScored, s.HeadThreshold), ptsOrNA(s.HeadOperator-s.BaseOperator, s.BaseOperatorScored, s.HeadOperatorScored))
		b.line("| gate | %s | %s | |", text.Cell(s.BaseGate), text.Cell(s.HeadGate))
		b.blank()
	}
	if len(c.Fixed) > 0 {
		b.line("### Fixed (%d)", len(c.Fixed))
		b.blank()
		for _, f := range c.Fixed {
			b.line("- %s — %s", text.Code(f.ID), text.Cell(f.Protects))
		}
		b.blank()
	}
	if m := c.Head.Mutation; m != nil {
		ratchetMarkdown(&b, m)
	}
	if len(c.FixedSurvivors) > 0 {
		b.line("### Survivors now killed (%d)", len(c.FixedSurvivors))
		b.blank()
		for _, m := range c.FixedSurvivors {
			b.line("- %s (%s) — %s", text.Code(m.ID), text.Cell(m.Status), text.Cell(m.Intent))
		}
		b.blank()
	}
	idList(&b, "Added cases", c.Added)
	idList(&b, "Removed cases", c.Removed)
	idList(&b, "Added mutants", c.AddedMutants)
	idList(&b, "Removed mutants", c.RemovedMutants)
	if len(c.Changes) > 0 {
		b.line("### Changed behaviour (%d cases)", len(c.Changes))
		b.blank()
		b.line("Per call (caller#index): virtual ms the reply resolves at, its remainingMs, and the list and output reads it issued. base → head.")
		b.blank()
		b.line("| case | call | resolves at (ms) | remainingMs | lists | reads |")
		b.line("|---|---|---:|---:|---:|---:|")
		for _, ch := range c.Changes {
			for _, cc := range ch.Calls {
				b.line("| %s | %s#%d | %s | %s | %s | %s |", text.CodeCell(ch.ID), text.Cell(cc.Caller), cc.Index,
					arrow(cc.Base, cc.Head, resolvesText), arrow(cc.Base, cc.Head, remainingText),
					arrow(cc.Base, cc.Head, func(f model.CallFacts) string { return fmt.Sprint(f.Lists) }),
					arrow(cc.Base, cc.Head, func(f model.CallFacts) string { return fmt.Sprint(f.Reads) }))
			}
		}
		b.blank()
	}
	if len(c.StillFailing) > 0 {
		b.line("### Still failing (%d)", len(c.StillFailing))
		b.blank()
		for _, f := range c.StillFailing {
			failureBlock(&b, f, false)
		}
	}
	if fs := model.HeadFailures(c.Head); len(fs) > 0 {
		b.line("### Repro of every failure in head")
		b.blank()
		var lines, unshown []string
		for _, f := range fs {
			if cmd, why, ok := text.PasteLine(f.Repro); ok {
				lines = append(lines, cmd+"  # "+text.OneLine(f.ID))
			} else {
				unshown = append(unshown, fmt.Sprintf("- %s: %s", text.Code(f.ID), reproNotShown(why)))
			}
		}
		if len(lines) > 0 {
			b.fence("sh", strings.Join(lines, "\n"))
		}
		for _, l := range unshown {
			b.line("%s", l)
		}
		if len(unshown) > 0 {
			b.blank()
		}
	}
	return Cut(b.String(), limit)
}

func missingSide(base, head bool) string {
	switch {
	case base && head:
		return "base and head"
	case base:
		return "base"
	}
	return "head"
}

// runHeadline returns an icon and one line saying how r went: ❌ when
// anything fails or the scenario result is missing, ⚠️ when the scenarios
// pass but there is no mutation result (the gate's half of the report is
// missing, so the whole is no pass), ✅ otherwise.
func runHeadline(r *Run) (string, string) { return runHeadlineWith(r, text.Cell) }

// runHeadlineWith is runHeadline with the gate's text (which may quote a
// catalog or an option) written by esc: text.Cell for Markdown, as it is
// for the HTML page, which escapes the whole line itself.
func runHeadlineWith(r *Run, esc func(string) string) (string, string) {
	var parts []string
	icon := "✅"
	if s := r.Scenarios; s != nil && len(s.Cases) > 0 {
		bad := s.Failed + s.Errors
		switch {
		case bad > 0:
			icon = "❌"
			parts = append(parts, fmt.Sprintf("%d of %d scenarios fail", bad, len(s.Cases)))
		case s.Passed == 0:
			// Nothing was checked: a table of skips is no pass.
			icon = "❌"
			parts = append(parts, fmt.Sprintf("no scenario passes: all %d skipped", s.Skipped))
		case s.Skipped > 0:
			parts = append(parts, fmt.Sprintf("%d scenarios pass, %d skipped", s.Passed, s.Skipped))
		default:
			parts = append(parts, fmt.Sprintf("all %d scenarios pass", len(s.Cases)))
		}
		if u := model.Unrun(s); u > 0 {
			icon = "❌"
			parts[len(parts)-1] += fmt.Sprintf(" (%d of the table's %d cases did not run)", u, len(s.Index))
		}
		// A run of a part of the table is no pass of the table.
		switch missing, total, known := model.TableMissing(s); {
		case !known:
			icon = "❌"
			parts[len(parts)-1] += " (the results do not record the scenario table they cover: written by an older waitsim; run them again)"
		case total == 0:
			// `waitsim run` without paths stops on an empty table: a
			// run that records one ran no table of its own.
			icon = "❌"
			parts[len(parts)-1] += fmt.Sprintf(" (the test's own table %s holds no scenario file)", esc(s.Table.Dir))
		case len(missing) > 0:
			icon = "❌"
			parts[len(parts)-1] += fmt.Sprintf(" (%d of the table's %d scenario files did not run)", len(missing), total)
		}
	} else {
		icon = "❌"
		parts = append(parts, "no scenario results")
	}
	if m := r.Mutation; m != nil {
		if m.Gate != "pass" {
			icon = "❌"
		}
		if nr := notRunText(m); nr != "" {
			icon = "❌"
			parts = append(parts, esc(nr))
		} else {
			parts = append(parts, fmt.Sprintf("mutation score %s catalog, %s operator (gate: %s)",
				catalogPct(m), operatorPct(m), esc(gateText(m))))
		}
	} else {
		if icon == "✅" {
			icon = "⚠️"
		}
		parts = append(parts, "no mutation results")
	}
	return icon, strings.Join(parts, " · ")
}

func runIdentity(r *Run) string {
	s := "commit " + text.Code(text.Short(r.Commit))
	switch {
	case r.Commit == "" && r.Tree != "":
		s += fmt.Sprintf(" (no commit yet: the results are tied to the work tree's content, tree %.12s)", r.Tree)
	case r.Commit == "":
		s += " (not made in a git work tree: nothing ties these results to the source they ran on)"
	}
	if len(r.Seeds) > 0 {
		var ps []string
		for _, k := range slices.Sorted(maps.Keys(r.Seeds)) {
			ps = append(ps, fmt.Sprintf("%s=%d", k, r.Seeds[k]))
		}
		s += " · seeds " + text.Code(strings.Join(ps, " "))
	}
	return s
}

func compareHeadline(c *Comparison) string {
	var parts []string
	add := func(n int, one, many string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(len(c.NewFailures), "new failure", "new failures")
	add(len(c.NewSurvivors), "new survivor", "new survivors")
	add(len(c.Fixed), "fixed case", "fixed cases")
	add(len(c.FixedSurvivors), "survivor now killed", "survivors now killed")
	add(len(c.Changes), "case changed behaviour", "cases changed behaviour")
	add(len(c.Added), "case added", "cases added")
	add(len(c.Removed), "case removed", "cases removed")
	if c.HeadPartial != "" {
		parts = append(parts, "head: "+c.HeadPartial)
	}
	for _, n := range c.MutationNotRun {
		side, _, _ := strings.Cut(n, ":")
		parts = append(parts, fmt.Sprintf("%s's mutation campaign never ran", side))
	}
	if s := c.Score; s != nil {
		parts = append(parts, fmt.Sprintf("mutation score %s catalog (%s), %s operator (%s)",
			verdict.FormatScore(s.HeadCatalog, s.HeadCatalogScored, 100), ptsOrNA(s.HeadCatalog-s.BaseCatalog, s.BaseCatalogScored, s.HeadCatalogScored),
			verdict.FormatScore(s.HeadOperator, s.HeadOperatorScored, s.HeadThreshold), ptsOrNA(s.HeadOperator-s.BaseOperator, s.BaseOperatorScored, s.HeadOperatorScored)))
	}
	if len(parts) == 0 {
		return "no difference between base and head"
	}
	return strings.Join(parts, " · ")
}

func verdictIcon(v string) string {
	switch v {
	case VerdictRegressed:
		return "❌"
	case VerdictImproved:
		return "✅"
	case VerdictChanged:
		return "⚠️"
	}
	return "✅"
}

func mutationTable(b *mdBuilder, m *verdict.Result) {
	b.line("| mutation score | catalog | operator | operator threshold | gate |")
	b.line("|---|---:|---:|---:|---|")
	b.line("| | %s | %s | %s | %s |", catalogPct(m), operatorPct(m), thresholdPct(m), text.Cell(gateText(m)))
	b.blank()
	var cs []string
	for _, st := range verdict.Statuses {
		if n := countStatus(m, st); n > 0 {
			cs = append(cs, fmt.Sprintf("%s %d", st, n))
		}
	}
	counted := 0
	for _, mu := range m.Mutants {
		if mu.Source != verdict.SourceSanity {
			counted++
		}
	}
	if bf := m.Baseline; bf != nil && counted == 0 {
		b.line("No mutant ran: the kill suite failed on the unmutated code, so the campaign stopped before its mutants (%s).", baselineCases(bf))
	} else {
		b.line("%d mutants: %s. Score = killed / (killed + survived + timed out).", counted, strings.Join(cs, " · "))
	}
	if g := generatorText(m); g != "" {
		b.line("%s", text.Cell(g))
	}
	if sanity := sanityStatus(m); sanity != "" {
		b.line("The sanity mutant, which breaks every function of the target package to prove the suite sees the overlay, is not counted above: it was %s.", sanity)
	}
	b.blank()
}

// baselineCases names the cases a failed baseline records as failing, each
// in a code span, at most 10 of them.
func baselineCases(bf *verdict.BaselineFailure) string {
	if len(bf.Failed) == 0 {
		return "no failing case recorded"
	}
	ids := make([]string, 0, 10)
	for _, id := range verdict.First(bf.Failed, 10) {
		ids = append(ids, text.Code(id))
	}
	s := "failing: " + strings.Join(ids, ", ")
	if n := len(bf.Failed) - len(ids); n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}

// sanityStatus is the status of m's sanity mutant, "" when it has none.
func sanityStatus(m *verdict.Result) string {
	for _, mu := range m.Mutants {
		if mu.Source == verdict.SourceSanity {
			return mu.Status
		}
	}
	return ""
}

// countStatus counts the mutants of m with status st (from the mutant list,
// so that it always agrees with the tables), leaving out the sanity mutant as
// mutation.json's counts and the console do.
func countStatus(m *verdict.Result, st string) int {
	n := 0
	for _, mu := range m.Mutants {
		if mu.Status == st && mu.Source != verdict.SourceSanity {
			n++
		}
	}
	return n
}

func failureBlock(b *mdBuilder, c results.CaseResult, detail bool) {
	b.line("#### ❌ %s — %s", text.Code(c.ID), text.Cell(c.Verdict))
	b.line("%s · protects: %s", text.Code(fmt.Sprintf("%s:%d", c.File, c.Line)), text.Cell(c.Protects))
	b.blank()
	for _, f := range c.Failures {
		b.line("- expectation: %s", text.Cell(f))
	}
	for _, v := range c.Violation {
		b.line("- invariant %s: %s", text.Code(v.Invariant), text.Cell(v.Message))
	}
	if c.Error != "" {
		b.line("- runtime error: %s", text.Cell(c.Error))
	}
	b.blank()
	if cmd, why, ok := text.PasteLine(c.Repro); ok {
		b.line("Repro:")
		b.blank()
		b.fence("sh", cmd)
	} else {
		b.line("Repro: %s", reproNotShown(why))
		b.blank()
	}
	if detail && c.Timeline != "" {
		b.line("<details><summary>timeline (virtual ms)</summary>")
		b.blank()
		b.fence("text", timelineExcerpt(&c))
		b.line("</details>")
		b.blank()
	}
}

// Sizes of a failing case's timeline excerpt in Markdown.
const (
	// excerptHead is how many lines from the start are always shown.
	excerptHead = 5
	// excerptBefore is how many lines are shown up to and including the
	// reply of each call a failure names.
	excerptBefore = 20
	// excerptCalls is how many named calls get an excerpt at most.
	excerptCalls = 8
	// excerptTail is how many last lines are shown when no failure names a
	// call that can be found in the timeline.
	excerptTail = 20
)

// callRef finds "call A#1" (caller A's first call) in failure messages.
var callRef = regexp.MustCompile(`\bcall (\S+?)#(\d+)\b`)

// timelineExcerpt is the part of c's text timeline a reader of a failure
// needs. A timeline of at most timelineLines lines is shown whole. Otherwise:
// the first excerptHead lines, and for each call a failure message names
// ("call A#1"), the excerptBefore lines up to and including its outcome at
// the caller (its reply, error or loss); with no such call, the first lines
// and the last excerptTail. Left-out lines are counted in between.
func timelineExcerpt(c *results.CaseResult) string {
	lines := strings.Split(strings.TrimRight(c.Timeline, "\n"), "\n")
	if len(lines) <= timelineLines {
		return strings.Join(lines, "\n")
	}
	var msgs []string
	msgs = append(msgs, c.Failures...)
	for _, v := range c.Violation {
		msgs = append(msgs, v.Message)
	}
	msgs = append(msgs, c.Error)
	keep := make([]bool, len(lines))
	for i := range min(excerptHead, len(lines)) {
		keep[i] = true
	}
	seen := map[string]bool{}
	found := 0
	for _, m := range msgs {
		for _, ref := range callRef.FindAllStringSubmatch(m, -1) {
			key := ref[1] + "#" + ref[2]
			if seen[key] || len(seen) >= excerptCalls {
				continue
			}
			seen[key] = true
			idx, _ := strconv.Atoi(ref[2])
			r := outcomeLine(lines, ref[1], idx)
			if r < 0 {
				continue
			}
			found++
			for i := max(0, r-excerptBefore+1); i <= r; i++ {
				keep[i] = true
			}
		}
	}
	if found == 0 {
		for i := range timelineLines - excerptTail {
			keep[i] = true
		}
		for i := len(lines) - excerptTail; i < len(lines); i++ {
			keep[i] = true
		}
	}
	var out []string
	skipped := 0
	for i, ln := range lines {
		if !keep[i] {
			skipped++
			continue
		}
		if skipped > 0 {
			out = append(out, fmt.Sprintf("… %d lines left out …", skipped))
			skipped = 0
		}
		out = append(out, ln)
	}
	if skipped > 0 {
		out = append(out, fmt.Sprintf("… %d more lines (see report.html)", skipped))
	}
	return strings.Join(out, "\n")
}

// outcomeLine returns the index of the line where caller's call number index
// ended at the caller: the caller's next line after the call's start line
// ("caller:A   call 1: <args>"), which is its reply, error or loss (a
// caller makes one call at a time). The last line when the call never ended;
// -1 when the call is not in lines.
func outcomeLine(lines []string, caller string, index int) int {
	actor := "caller:" + caller
	start := fmt.Sprintf("call %d: ", index)
	for i, ln := range lines {
		if a, rest := timelineActor(ln); a != actor || !strings.HasPrefix(rest, start) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if a, _ := timelineActor(lines[j]); a == actor {
				return j
			}
		}
		return len(lines) - 1
	}
	return -1
}

// timelineActor splits a timeline line ("  30000 ms  caller:A   call 1: …")
// into its actor and the text after it.
func timelineActor(ln string) (actor, text string) {
	f := strings.Fields(ln)
	if len(f) < 3 || f[1] != "ms" {
		return "", ""
	}
	_, rest, _ := strings.Cut(ln, " ms ")
	rest = strings.TrimLeft(rest, " ")
	return f[2], strings.TrimLeft(strings.TrimPrefix(rest, f[2]), " ")
}

// survivorBlock renders a survivor: its id, place, intent, note (the
// ratchet's word on it, Markdown already: ratchetNote), diff and suggested
// case.
func survivorBlock(b *mdBuilder, m verdict.MutantResult, note string) {
	b.line("#### 🧟 %s (%s) — %s", text.Code(m.ID), text.Cell(m.Source), text.Cell(m.Status))
	loc := m.File
	if m.Line > 0 {
		loc = fmt.Sprintf("%s:%d", m.File, m.Line)
	}
	b.line("%s · %s", text.Code(loc), text.Cell(m.Intent))
	b.blank()
	if note != "" {
		b.line("%s", note)
		b.blank()
	}
	if m.Diff != "" {
		b.fence("diff", m.Diff)
	}
	switch {
	case m.Suggested != "":
		b.line("A case that kills it, found by `waitsim mutate --suggest` (%s; head passes it, the mutant fails it): copy it into `scenarios/table/`.", text.Code(m.SuggestedFile))
		b.blank()
		b.fence("yaml", m.Suggested)
	case m.SuggestNote != "":
		b.line("No case suggested: %s", text.Cell(m.SuggestNote))
		b.blank()
	}
}

func idList(b *mdBuilder, title string, ids []string) {
	if len(ids) == 0 {
		return
	}
	b.line("### %s (%d)", title, len(ids))
	b.blank()
	for _, id := range ids {
		b.line("- %s", text.Code(id))
	}
	b.blank()
}

func resolvesText(f model.CallFacts) string {
	if !f.Present {
		return "—"
	}
	if f.Lost {
		return fmt.Sprintf("%d LOST", f.ResolvesAtMs)
	}
	return fmt.Sprint(f.ResolvesAtMs)
}

func remainingText(f model.CallFacts) string {
	if !f.Present || f.RemainingMs == nil {
		return "—"
	}
	return fmt.Sprint(*f.RemainingMs)
}

// arrow renders "base → head" in bold, or just the value when both are
// equal; a call one side did not make reads "—".
func arrow(b, h model.CallFacts, f func(model.CallFacts) string) string {
	g := func(c model.CallFacts) string {
		if !c.Present {
			return "—"
		}
		return f(c)
	}
	bs, hs := g(b), g(h)
	if bs == hs {
		return bs
	}
	return "**" + bs + " → " + hs + "**"
}

// reproNotShown says, in Markdown, why a case's recorded re-run line is not
// printed (text.PasteLine): why it is not one plain command.
func reproNotShown(why string) string {
	return "_not shown: the re-run line recorded for this case is not one plain shell command (" + text.Cell(why) + "); pasted, it could run anything._"
}

// mdBuilder accumulates Markdown lines.
type mdBuilder struct{ sb strings.Builder }

func (b *mdBuilder) line(format string, args ...any) {
	fmt.Fprintf(&b.sb, format, args...)
	b.sb.WriteByte('\n')
}

func (b *mdBuilder) blank() { b.sb.WriteByte('\n') }

// fence writes text as a fenced code block whose fence is longer than any
// run of backticks in text.
func (b *mdBuilder) fence(lang, text string) {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	b.sb.WriteString(f + lang + "\n")
	b.sb.WriteString(strings.TrimRight(text, "\n"))
	b.sb.WriteString("\n" + f + "\n\n")
}

func (b *mdBuilder) String() string { return b.sb.String() }

// cutNotice is appended to a cut report; %d are the kept and full sizes and
// the limit, in bytes.
const cutNotice = "\n---\n\n> ⚠️ **This report was cut**: %d of %d bytes are shown (the limit here is %d). " +
	"The full report is in the CI job summary and in `out/report/` (run artifact `waitsim-report`).\n"

// Cut returns md unchanged when it fits in limit bytes (or limit <= 0).
// Otherwise it keeps whole lines from the start, closes an open code fence
// and open <details> elements, and appends an explicit notice; the result is
// at most limit bytes.
func Cut(md string, limit int) string {
	if limit <= 0 || len(md) <= limit {
		return md
	}
	lines := strings.SplitAfter(md, "\n")
	// Room for the notice (sizes up to 8 digits each), closers and slack.
	reserve := len(cutNotice) + 3*8 + 64
	budget := limit - reserve
	kept := 0
	var fence string
	details := 0
	var out strings.Builder
	for _, ln := range lines {
		closeLen := len(fence) + 1 + details*len("</details>\n")
		if kept+len(ln)+closeLen > budget {
			break
		}
		out.WriteString(ln)
		kept += len(ln)
		t := strings.TrimSpace(ln)
		switch {
		case fence == "" && strings.HasPrefix(t, "```"):
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
		case fence != "" && t == fence:
			fence = ""
		case fence == "":
			details += strings.Count(t, "<details>") - strings.Count(t, "</details>")
		}
	}
	s := out.String()
	if !strings.HasSuffix(s, "\n") && s != "" {
		s += "\n"
	}
	if fence != "" {
		s += fence + "\n"
	}
	for ; details > 0; details-- {
		s += "</details>\n"
	}
	return s + fmt.Sprintf(cutNotice, len(s), len(md), limit)
}
