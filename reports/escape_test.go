package reports

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"
)

// Text a scenario or catalog file can put in a report (issue 20 item 4).
const (
	hostileHTML  = `<img src=x onerror=alert(1)> **bold** [link](https://evil.example) _em_ | pipe`
	hostileIntro = `<script>alert(1)</script> ![img](https://evil.example/x.png) <!-- hidden -->`
	hostileMsg   = `<details open><summary>click</summary> <a href="https://evil.example">here</a>`
	// hostileID closes a three-backtick fence around it and opens HTML.
	hostileID = "fence```<iframe src=https://evil.example>"
)

// hostileRaw are pieces of the hostile text that must never reach the
// Markdown outside code: each would be HTML, a link, an image or emphasis.
var hostileRaw = []string{"<img", "**bold**", "[link](", "_em_", "<script", "![img](", "<!-- hidden", "<details open", "<a href", "<iframe"}

// hostileRuns are a base and a head run whose scenario and catalog texts
// are hostile, in every place a text reaches Markdown: a new failure and a
// case now fixed (protects, expectation, invariant and runtime error
// messages), a new survivor (intent, why no case was suggested) and a
// survivor now killed (intent), and the mutation gate naming them.
func hostileRuns() (base, head *Run) {
	mk := func(fixedPasses bool) *results.RunResult {
		fixed := results.CaseResult{ID: "fixed-case", File: "scenarios/table/f.yaml", Line: 1, Protects: hostileHTML,
			Verdict: results.VerdictFail, Failures: []string{hostileMsg}, Repro: "go test ./scenarios/ -count=1 -run '^TestTable$/^fixed-case$'"}
		if fixedPasses {
			fixed.Verdict, fixed.Failures = results.VerdictPass, nil
		}
		s := &results.RunResult{Version: results.ResultVersion, Cases: []results.CaseResult{fixed}}
		if fixedPasses {
			s.Cases = append(s.Cases,
				results.CaseResult{ID: hostileID, File: "scenarios/table/h.yaml", Line: 3, Protects: hostileHTML, Verdict: results.VerdictFail,
					Failures:  []string{hostileMsg},
					Violation: []results.Violation{{Invariant: "model-reply", Message: hostileIntro}},
					Repro:     "go test ./scenarios/ -count=1 -run '^TestTable$/^fence```$'"},
				results.CaseResult{ID: "boom", File: "scenarios/table/h.yaml", Line: 9, Protects: hostileIntro, Verdict: results.VerdictError,
					Error: hostileMsg, Repro: "go test ./scenarios/ -count=1 -run '^TestTable$/^boom$'"})
		}
		tally(s)
		return s
	}
	mut := func(head bool) *verdict.Result {
		m := &verdict.Result{Version: verdict.ResultVersion, Gate: "1 catalog mutant(s) not killed: " + hostileIntro, Threshold: 75,
			ExitCode: verdict.ExitGateFailed, Mutants: []verdict.MutantResult{
				{ID: "was-survivor", Source: verdict.SourceCatalog, File: "waittool/tool.go", Intent: hostileHTML, Status: verdict.StatusSurvived, Diff: "@@ -1 +1 @@\n-a\n+b\n"},
			}}
		if head {
			m.Mutants[0].Status = verdict.StatusKilled
			m.Mutants = append(m.Mutants, verdict.MutantResult{ID: "new-survivor", Source: verdict.SourceCatalog, File: "waittool/tool.go",
				Intent: hostileIntro, Status: verdict.StatusSurvived, Diff: "@@ -1 +1 @@\n-a\n+c\n", SuggestNote: hostileMsg})
		}
		return m
	}
	base = &Run{Version: RunVersion, Commit: "base", Scenarios: mk(false), Mutation: mut(false)}
	head = &Run{Version: RunVersion, Commit: "head", Scenarios: mk(true), Mutation: mut(true)}
	base.Normalize()
	head.Normalize()
	return base, head
}

// fenceLine opens or closes a fenced code block: up to three spaces, then
// three or more backticks.
var fenceLine = regexp.MustCompile("^ {0,3}(`{3,})(.*)$")

// outsideCode is md with its fenced code blocks and inline code spans left
// out (CommonMark: their content is literal text, never HTML or Markdown).
func outsideCode(md string) string {
	var out []string
	fence := ""
	for _, ln := range strings.Split(md, "\n") {
		if m := fenceLine.FindStringSubmatch(ln); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case len(m[1]) >= len(fence) && strings.TrimSpace(m[2]) == "":
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		out = append(out, withoutSpans(ln))
	}
	return strings.Join(out, "\n")
}

// withoutSpans removes the inline code spans of one line: a run of n
// backticks up to the next run of exactly n.
func withoutSpans(ln string) string {
	var b strings.Builder
	for i := 0; i < len(ln); {
		if ln[i] != '`' {
			b.WriteByte(ln[i])
			i++
			continue
		}
		n := 0
		for i+n < len(ln) && ln[i+n] == '`' {
			n++
		}
		closeAt := -1
		for j := i + n; j < len(ln); {
			if ln[j] != '`' {
				j++
				continue
			}
			k := 0
			for j+k < len(ln) && ln[j+k] == '`' {
				k++
			}
			if k == n {
				closeAt = j + k
				break
			}
			j += k
		}
		if closeAt < 0 {
			b.WriteString(ln[i : i+n])
			i += n
			continue
		}
		b.WriteString("CODE")
		i = closeAt
	}
	return b.String()
}

// TestMarkdownEscapesScenarioText: no protects, intent, id or message of a
// scenario or catalog file puts HTML, a link, an image or emphasis into
// comment.md or summary.md: outside code, each reaches the Markdown only
// escaped.
func TestMarkdownEscapesScenarioText(t *testing.T) {
	base, head := hostileRuns()
	for name, md := range map[string]string{
		"run":     RunMarkdown(head, SummaryLimit),
		"compare": CompareMarkdown(Compare(base, head), CommentLimit),
	} {
		text := outsideCode(md)
		for _, raw := range hostileRaw {
			if i := unescapedIndex(text, raw); i >= 0 {
				t.Errorf("%s: %q reaches the Markdown outside code, unescaped: …%s…", name, raw, text[max(0, i-80):min(len(text), i+80)])
			}
		}
		// The escaped text still says what the file says.
		if !strings.Contains(md, "onerror") || !strings.Contains(md, "alert") {
			t.Errorf("%s: the hostile text was dropped rather than escaped:\n%s", name, md)
		}
	}
}

// unescapedIndex is the index of the first occurrence of raw in text that
// is not backslash-escaped (an odd run of backslashes before it makes its
// first character literal), or -1.
func unescapedIndex(text, raw string) int {
	for from := 0; ; {
		i := strings.Index(text[from:], raw)
		if i < 0 {
			return -1
		}
		i += from
		n := 0
		for j := i - 1; j >= 0 && text[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
		from = i + 1
	}
}

// shellRun runs line with sh in a fresh directory, the go command replaced
// by a function that prints its arguments, and returns the arguments go
// got and the files the line made.
func shellRun(t *testing.T, line string) (args, files []string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	cmd := exec.Command(sh, "-c", `go() { printf '%s\0' "$@"; }; `+line)
	cmd.Dir = dir
	out, _ := cmd.Output()
	if s := strings.TrimSuffix(string(out), "\x00"); s != "" {
		args = strings.Split(s, "\x00")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		files = append(files, filepath.Join(dir, e.Name()))
	}
	return args, files
}

// shLines are the lines of md's ```sh blocks.
func shLines(md string) []string {
	var out []string
	fence := ""
	for _, ln := range strings.Split(md, "\n") {
		if m := fenceLine.FindStringSubmatch(ln); m != nil {
			if fence == "" {
				if strings.TrimSpace(m[2]) == "sh" {
					fence = m[1]
				} else {
					fence = "other:" + m[1]
				}
				continue
			}
			if strings.TrimPrefix(fence, "other:") == m[1] || len(m[1]) >= len(strings.TrimPrefix(fence, "other:")) && strings.TrimSpace(m[2]) == "" {
				fence = ""
				continue
			}
		}
		if fence != "" && !strings.HasPrefix(fence, "other:") && strings.TrimSpace(ln) != "" {
			out = append(out, ln)
		}
	}
	return out
}

// injected is the re-run line an earlier waitsim wrote for the case id
// "x[p=x'; touch pwned; echo ']": pasted, it runs `touch pwned`.
const injected = `go test ./scenarios/ -count=1 -run '^TestTable$/^x\[p=x'; touch pwned; echo '\]$'`

// TestReproLinesPasteSafely: every re-run line the Markdown, HTML and JUnit
// reports print for a person to paste runs go test and nothing else: a
// recorded line that is not one plain command (a quote in a case id ended
// its quoting) is not printed as a command; a plain one is printed so that
// go gets the same arguments.
func TestReproLinesPasteSafely(t *testing.T) {
	base, head := hostileRuns()
	ok := "go test ./scenarios/ -count=1 -run '^TestTable$/^boundary\\[timeoutMs=30500\\]$' -args -waitsim.paths=../extra/it's.yaml"
	okArgs := []string{"test", "./scenarios/", "-count=1", "-run", `^TestTable$/^boundary\[timeoutMs=30500\]$`, "-args", "-waitsim.paths=../extra/it's.yaml"}
	ok = strings.Replace(ok, "it's", `it\'s`, 1) // a backslash-escaped quote: one plain command
	head.Scenarios.Cases[1].Repro = injected
	head.Scenarios.Cases[2].Repro = ok
	md := map[string]string{
		"run":     RunMarkdown(head, SummaryLimit),
		"compare": CompareMarkdown(Compare(base, head), CommentLimit),
	}
	sawOK := false
	for name, m := range md {
		for _, line := range shLines(m) {
			line, _, _ = strings.Cut(line, "  # ")
			args, files := shellRun(t, line)
			if len(files) > 0 {
				t.Errorf("%s: pasting %q made %q", name, line, files)
			}
			if slices.Equal(args, okArgs) {
				sawOK = true
			}
		}
	}
	if !sawOK {
		t.Errorf("the plain re-run line is not printed with the same arguments:\n%s", md["run"])
	}
	page := string(HTML(head, nil))
	if strings.Contains(page, "touch pwned") && strings.Contains(page, `class="repro">`+htmlEsc(injected)) {
		t.Error("report.html prints the injected re-run line as a command")
	}
	jb, err := JUnit(head)
	if err != nil {
		t.Fatal(err)
	}
	j := string(jb)
	if strings.Contains(j, "touch pwned") && strings.Contains(j, "repro: ") && strings.Contains(j, xmlEsc(injected)) {
		t.Error("junit.xml prints the injected re-run line as a command")
	}
}

func htmlEsc(s string) string { return text.HTML(s) }

func xmlEsc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&#39;", `"`, "&#34;").Replace(s)
}
