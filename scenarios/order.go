package scenarios

import (
	"bufio"
	"os"
	"strings"
)

// CaseOrderEnv names a file that reorders TestTable's cases: one test name
// a line ("TestTable/<case id>", as `go test -json` reports a case),
// optionally followed by a tab and the file that defines the case (relative
// to the module root, as CaseIndexEnv's file gives it). Listed cases run
// first, in the file's order; the others follow in the table's order. Names
// that match no case are ignored, and so is a file that cannot be read: the
// order only decides how soon a failing case is met (the mutation runner's
// kill first, with -test.failfast), never which cases run. With
// -test.failfast and a file on the first line, TestTable loads the files
// one at a time as the order needs them, so a run that stops at its first
// failing case has loaded only the files it reached.
const CaseOrderEnv = "WAITSIM_CASE_ORDER"

// CaseIndexEnv names a file TestTable writes after loading the table: a
// line per case, "TestTable/<case id>", a tab, and the file that defines it
// relative to the module root. The mutation runner reads it from its
// baseline run to write the files into CaseOrderEnv's file.
const CaseIndexEnv = "WAITSIM_CASE_INDEX"

// CaseLine is a line of CaseOrderEnv's and CaseIndexEnv's files: the test
// name, and a tab and the case's file when file is not "" (no newline).
func CaseLine(name, file string) string {
	if file == "" {
		return name
	}
	return name + "\t" + file
}

// SplitCaseLine splits a CaseLine into the test name and the case's file
// ("" when the line names none).
func SplitCaseLine(l string) (name, file string) {
	name, file, _ = strings.Cut(l, "\t")
	return name, file
}

// OrderCases returns cases with those named in first moved to the front, in
// first's order. A name is "TestTable/" and the case id, or its subtest form
// (spaces written _); other names are ignored. cases is not modified.
func OrderCases(cases []Case, first []string) []Case {
	if len(first) == 0 {
		return cases
	}
	byName := make(map[string]int, len(cases))
	for i, c := range cases {
		byName[c.ID] = i
		byName[strings.ReplaceAll(c.ID, " ", "_")] = i
	}
	out := make([]Case, 0, len(cases))
	taken := make([]bool, len(cases))
	for _, l := range first {
		n, _ := SplitCaseLine(l)
		id, ok := strings.CutPrefix(n, "TestTable/")
		if !ok {
			continue
		}
		if i, ok := byName[id]; ok && !taken[i] {
			taken[i] = true
			out = append(out, cases[i])
		}
	}
	for i, c := range cases {
		if !taken[i] {
			out = append(out, c)
		}
	}
	return out
}

// caseOrder reads the file CaseOrderEnv names: its non-blank lines, or nil.
func caseOrder() []string {
	p := os.Getenv(CaseOrderEnv)
	if p == "" {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			names = append(names, l)
		}
	}
	return names
}
