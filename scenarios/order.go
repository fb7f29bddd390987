package scenarios

import (
	"bufio"
	"os"
	"strings"
)

// CaseOrderEnv names a file that reorders TestTable's cases: one test name
// a line ("TestTable/<case id>", as `go test -json` reports a case). Listed
// cases run first, in the file's order; the others follow in the table's
// order. Names that match no case are ignored, and so is a file that cannot
// be read: the order only decides how soon a failing case is met (the
// mutation runner's kill first, with -test.failfast), never which cases run.
const CaseOrderEnv = "WAITSIM_CASE_ORDER"

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
	for _, n := range first {
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
