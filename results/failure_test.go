package results_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
)

// TestSafeFileName (issue 11 item 16): golden trace names hold no
// character that breaks a shell, a glob or a file system, stay stable, and
// never collide.
func TestSafeFileName(t *testing.T) {
	for id, want := range map[string]string{
		"oracle-read-20000":                               "oracle-read-20000",
		"boundary[timeoutMs=30500]":                       "boundary_timeoutMs=30500-",
		`congestion[holds=[{"atMs":4500,"holdMs":3000}]]`: "congestion_holds=_atMs_4500_holdMs_3000-",
		"agent-state[state=other:archived]":               "agent-state_state=other_archived-",
		"../x":                                            "case.._x-",
	} {
		got := results.SafeFileName(id)
		if !strings.HasPrefix(got, want) || (strings.HasSuffix(want, "-") && len(got) != len(want)+8) {
			t.Errorf("%q → %q, want %s…", id, got, want)
		}
		if results.SafeFileName(id) != got {
			t.Errorf("%q: not stable", id)
		}
	}
	safe := regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._=-]*$`)
	seen := map[string]string{}
	cases, err := loadRef()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(cases, scenario.Case{ID: "a[b]"}, scenario.Case{ID: "a_b"}, scenario.Case{ID: "a{b}"}) {
		n := results.SafeFileName(c.ID)
		if !safe.MatchString(n) || len(n) > 96+9 {
			t.Errorf("%q → %q is not a safe file name", c.ID, n)
		}
		if other, dup := seen[strings.ToLower(n)]; dup {
			t.Errorf("%q and %q share the file name %q", c.ID, other, n)
		}
		seen[strings.ToLower(n)] = c.ID
	}
}
func loadRef() ([]scenario.Case, error) {
	opts, err := waitagents.Reference().LoadOptions()
	if err != nil {
		return nil, err
	}
	return scenario.Load([]string{"../scenarios/table"}, opts)
}

// A word with anything a shell reads is quoted, and a quote inside cannot
// end the quoting.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain-word_1.2":          "plain-word_1.2",
		"":                        "''",
		"a b":                     "'a b'",
		"x'; touch pwned; echo '": `'x'\''; touch pwned; echo '\'''`,
		"$(id)":                   "'$(id)'",
		"a\nb":                    "'a\nb'",
	} {
		if got := results.ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := results.Command("go", "test", "-run", "^a b$"); got != "go test -run '^a b$'" {
		t.Errorf("Command: %s", got)
	}
}

// go test's own rewriting of subtest names: white space becomes _, a
// character that does not print its escape.
func TestTestName(t *testing.T) {
	for in, want := range map[string]string{"p=a b": "p=a_b", "z\u200bw": `z\u200bw`, "tab\tx": "tab_x", "é": "é"} {
		if got := results.TestName(in); got != want {
			t.Errorf("TestName(%q) = %q, want %q", in, got, want)
		}
	}
	re := regexp.MustCompile(results.RunPattern("z\u200bw"))
	if !re.MatchString(`z\u200bw`) {
		t.Error("RunPattern does not match the rewritten name")
	}
}

// The table's row of a case that could not run shows the first line of its
// error; the whole of it (the wall-clock watchdog's goroutine stacks) is in
// the failure report below the table.
func TestTableRowShowsFirstLineOfError(t *testing.T) {
	var b strings.Builder
	results.PrintTable(&b, results.RunResult{Cases: []results.CaseResult{{ID: "spins", Verdict: results.VerdictError, Error: "the table stopped at this case\ngoroutine 1 [running]:\nmain.spin()"}}, Errors: 1})
	table, _, _ := strings.Cut(b.String(), "\n\n")
	lines := strings.Split(table, "\n")
	if len(lines) != 2 || !strings.HasSuffix(strings.TrimSpace(lines[1]), "error: the table stopped at this case") {
		t.Errorf("the table: %q, want its header and one row ending with the error's first line", lines)
	}
	if !strings.Contains(b.String(), "goroutine 1 [running]") {
		t.Errorf("the failure report lacks the rest of the error:\n%s", b.String())
	}
}

// TestPrintTableWidth: a case id longer than its column overflows its own
// row alone; the other rows keep the column at its cap (they were padded to
// the longest id, 90 characters for a matrix case, before).
func TestPrintTableWidth(t *testing.T) {
	long := "a-matrix-case[holds=[{\"atMs\":0,\"holdMs\":40000}],profile=ts-sdk-reset,mode=stateless-sse]"
	var b strings.Builder
	results.PrintTable(&b, results.RunResult{Cases: []results.CaseResult{
		{ID: long, Verdict: results.VerdictPass, Calls: []results.CallSummary{{Caller: "A", Index: 1, EndMs: 30000}}},
		{ID: "short", Verdict: results.VerdictPass, Calls: []results.CallSummary{{Caller: "A", Index: 1, EndMs: 30000}}},
	}, Passed: 2})
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[1], "PASS     "+long+"  30000") {
		t.Errorf("the long id's row: %q", lines[1])
	}
	if want := "PASS     short" + strings.Repeat(" ", 44-len("short")+2) + "30000"; lines[2] != want {
		t.Errorf("a short id's row:\n%q\nwant\n%q", lines[2], want)
	}
}

// TestReplyColumnFlagsAndTimesFirst: a tool of one's own gets its reply's
// flags, then its times (…Ms), then other short values in the REPLY
// column, five at most: remainingMs is not hidden behind the alphabet.
func TestReplyColumnFlagsAndTimesFirst(t *testing.T) {
	var b strings.Builder
	results.PrintTable(&b, results.RunResult{Cases: []results.CaseResult{{ID: "a", Verdict: results.VerdictPass, Calls: []results.CallSummary{{Caller: "A", Index: 1, EndMs: 30000,
		Reply: map[string]any{"elapsedMs": 30000.0, "jobId": "job-5000", "polls": 25.0, "ready": false, "remainingMs": 90000.0, "log": []any{"x"}, "zeta": 1.0}}}}}, Passed: 1})
	if want := `ready=false elapsedMs=30000 remainingMs=90000 jobId="job-5000" polls=25 … 2 more`; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant a REPLY of %s", b.String(), want)
	}
}
