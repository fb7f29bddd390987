package reports

import (
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// JUnit XML (the de-facto schema read by CI systems): one <testsuite> for the
// scenario table and one for the mutants, one <testcase> per scenario case and
// per mutant. Assertion failures are <failure> elements, runtime errors are
// <error> elements:
//
//	scenario verdict fail              → <failure type="assertion">
//	scenario verdict error             → <error type="runtime">
//	mutant survived                    → <failure type="survived">
//	mutant timed out                   → <error type="timed out">
//	mutant patch-no-longer-applies     → <error type="patch-no-longer-applies">
//	mutant not viable / equivalent     → <skipped>
//	scenario pass, mutant killed       → no child element
//
// No time attribute is written: wall time would make the file differ between
// two runs of the same commit.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties *junitProps     `xml:"properties,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit renders r as JUnit XML (see the mapping above). A run without
// scenarios or without mutation has no suite for it. A result with nothing in
// it (a scenario result without cases, a mutation result without mutants, a
// run with neither) is not a success: its suite holds one test case
// "no results" with an <error type="no results">.
func JUnit(r *Run) ([]byte, error) {
	root := junitSuites{Name: "waitsim"}
	if r.Scenarios != nil {
		s := scenarioSuite(r)
		if len(r.Scenarios.Cases) == 0 {
			noResults(&s, "scenarios", "the scenario result has no cases: nothing was checked")
		}
		root.Suites = append(root.Suites, s)
	}
	if r.Mutation != nil {
		s := mutantSuite(r.Mutation)
		switch nr := notRunText(r.Mutation); {
		case nr != "" && len(r.Mutation.Mutants) == 0:
			noResults(&s, "mutants", "the "+nr)
		case len(r.Mutation.Mutants) == 0:
			noResults(&s, "mutants", "the mutation result has no mutants: nothing was tested")
		}
		root.Suites = append(root.Suites, s)
	}
	if r.Scenarios == nil && r.Mutation == nil {
		s := junitSuite{Name: "waitsim", Properties: runProps(r)}
		noResults(&s, "waitsim", "the run has neither a scenario nor a mutation result")
		root.Suites = append(root.Suites, s)
	}
	for _, s := range root.Suites {
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
		root.Skipped += s.Skipped
	}
	b, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// noResults adds the test case that says a suite had nothing to report.
func noResults(s *junitSuite, class, msg string) {
	s.Cases = append(s.Cases, junitTestCase{Name: "no results", Classname: class,
		Error: &junitProblem{Message: msg, Type: "no results", Text: msg + "\n"}})
	s.Tests++
	s.Errors++
}

func runProps(r *Run) *junitProps {
	p := &junitProps{Props: []junitProp{{"commit", r.Commit}}}
	for _, k := range slices.Sorted(maps.Keys(r.Seeds)) {
		p.Props = append(p.Props, junitProp{"seed." + k, fmt.Sprint(r.Seeds[k])})
	}
	return p
}

func scenarioSuite(r *Run) junitSuite {
	s := junitSuite{Name: "scenarios", Properties: runProps(r)}
	for _, c := range r.Scenarios.Cases {
		tc := junitTestCase{Name: c.ID, Classname: "scenarios." + classFromFile(c.File), File: c.File, Line: c.Line}
		switch c.Verdict {
		case results.VerdictFail:
			var msgs []string
			msgs = append(msgs, c.Failures...)
			for _, v := range c.Violation {
				msgs = append(msgs, "invariant "+v.Invariant+": "+v.Message)
			}
			tc.Failure = &junitProblem{Message: firstOr(msgs, "failed"), Type: "assertion", Text: caseText(c, msgs)}
			tc.SystemOut = c.Timeline
			s.Failures++
		case results.VerdictError:
			tc.Error = &junitProblem{Message: firstOr([]string{c.Error}, "runtime error"), Type: "runtime", Text: caseText(c, []string{c.Error})}
			tc.SystemOut = c.Timeline
			s.Errors++
		case results.VerdictSkip:
			tc.Skipped = &junitProblem{Message: firstOr([]string{c.Error}, "skipped")}
			s.Skipped++
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Tests = len(s.Cases)
	return s
}

func caseText(c results.CaseResult, msgs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d\nprotects: %s\n", c.File, c.Line, c.Protects)
	for _, m := range msgs {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	if cmd, why, ok := text.PasteLine(c.Repro); ok {
		fmt.Fprintf(&b, "repro: %s\n", cmd)
	} else {
		fmt.Fprintf(&b, "repro: not shown: the line recorded is not one plain shell command (%s)\n", why)
	}
	return b.String()
}

func mutantSuite(m *verdict.Result) junitSuite {
	s := junitSuite{Name: "mutants", Properties: &junitProps{Props: []junitProp{
		{"catalogScore", catalogPct(m)},
		{"operatorScore", operatorPct(m)},
		{"operatorThreshold", thresholdPct(m)},
		{"gate", m.Gate},
	}}}
	for _, mu := range m.Mutants {
		tc := junitTestCase{Name: mu.ID, Classname: "mutants." + mu.Source, File: mu.File, Line: mu.Line}
		body := mu.Intent + "\n" + mu.Diff
		switch mu.Status {
		case verdict.StatusSurvived:
			tc.Failure = &junitProblem{Message: "mutant survived: no scenario case failed — " + mu.Intent, Type: "survived", Text: body}
			s.Failures++
		case verdict.StatusTimedOut:
			tc.Error = &junitProblem{Message: "mutant timed out: the test binary ran past its timeout", Type: "timed out", Text: body + mu.Detail}
			s.Errors++
		case verdict.StatusNoApply:
			tc.Error = &junitProblem{Message: "patch no longer applies: " + text.OneLine(mu.Detail), Type: "patch-no-longer-applies", Text: body + mu.Detail}
			s.Errors++
		case verdict.StatusNotViable, verdict.StatusEquivalent:
			tc.Skipped = &junitProblem{Message: mu.Status + ": " + text.OneLine(mu.Detail)}
			s.Skipped++
		case verdict.StatusKilled:
			if len(mu.KilledBy) > 0 {
				tc.SystemOut = "killed by: " + strings.Join(mu.KilledBy, ", ")
			}
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Tests = len(s.Cases)
	return s
}

// classFromFile turns "scenarios/table/cap.yaml" into "table.cap".
func classFromFile(f string) string {
	f = strings.TrimPrefix(f, "scenarios/")
	if i := strings.LastIndexByte(f, '.'); i > 0 {
		f = f[:i]
	}
	return strings.ReplaceAll(f, "/", ".")
}

func firstOr(xs []string, def string) string {
	for _, x := range xs {
		if x != "" {
			return text.OneLine(x)
		}
	}
	return def
}
