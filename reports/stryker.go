package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/workspace"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// StrykerSchemaVersion is the schemaVersion written to the Stryker report; it
// is the major version of mutation-testing-report-schema the report is valid
// against.
const StrykerSchemaVersion = "2"

// StrykerStatus maps a waitsim mutant to Stryker's MutantStatus so that a
// Stryker viewer's score (detected / (detected + undetected), where Killed
// and Timeout are detected, Survived and NoCoverage undetected, and
// CompileError, RuntimeError and Ignored left out) is the gate's score:
//
//	                          operator mutant   catalog mutant
//	killed                    Killed            Killed
//	survived                  Survived          Survived
//	timed out                 Survived          Survived   (the gate counts it as not killed)
//	not viable                CompileError      Survived   (counts against the catalog score)
//	patch-no-longer-applies   RuntimeError      Survived   (likewise)
//	equivalent                Ignored           Ignored
//
// The sanity mutant is not exported (the gate does not count it). A mutant
// whose status is not its own says why in statusReason. An unknown status
// maps to RuntimeError.
func StrykerStatus(mu verdict.MutantResult) string {
	switch mu.Status {
	case verdict.StatusKilled:
		return "Killed"
	case verdict.StatusSurvived, verdict.StatusTimedOut:
		return "Survived"
	case verdict.StatusEquivalent:
		return "Ignored"
	case verdict.StatusNotViable, verdict.StatusNoApply:
		if mu.Source == verdict.SourceCatalog {
			return "Survived"
		}
		if mu.Status == verdict.StatusNotViable {
			return "CompileError"
		}
	}
	return "RuntimeError"
}

// strykerFileKey is the key of a mutant's file in the Stryker report: its
// path under "catalog/" or "operator/", so that a viewer's score of each
// directory is the gate's catalog and operator score.
func strykerFileKey(mu verdict.MutantResult) string {
	if mu.Source == verdict.SourceCatalog {
		return "catalog/" + mu.File
	}
	return "operator/" + mu.File
}

type strykerReport struct {
	SchemaVersion string                     `json:"schemaVersion"`
	Thresholds    strykerThresholds          `json:"thresholds"`
	Files         map[string]strykerFile     `json:"files"`
	TestFiles     map[string]strykerTestFile `json:"testFiles,omitempty"`
	Framework     strykerFramework           `json:"framework"`
	// Config is the schema's free-format object; it carries a note when
	// there is nothing to report.
	Config map[string]string `json:"config,omitempty"`
}

type strykerThresholds struct {
	High int `json:"high"`
	Low  int `json:"low"`
}

type strykerFramework struct {
	Name string `json:"name"`
}

type strykerFile struct {
	Language string          `json:"language"`
	Source   string          `json:"source"`
	Mutants  []strykerMutant `json:"mutants"`
}

type strykerMutant struct {
	ID           string          `json:"id"`
	MutatorName  string          `json:"mutatorName"`
	Location     strykerLocation `json:"location"`
	Status       string          `json:"status"`
	StatusReason string          `json:"statusReason,omitempty"`
	KilledBy     []string        `json:"killedBy,omitempty"`
	Replacement  string          `json:"replacement,omitempty"`
	Description  string          `json:"description,omitempty"`
}

type strykerLocation struct {
	Start strykerPos `json:"start"`
	End   strykerPos `json:"end"`
}

type strykerPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

type strykerTestFile struct {
	Tests []strykerTest `json:"tests"`
}

type strykerTest struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Location *strykerStart `json:"location,omitempty"`
}

type strykerStart struct {
	Start strykerPos `json:"start"`
}

// Stryker renders r's mutation result as a mutation-testing-report-schema
// report (schemaVersion 2). root is the directory the mutants' File paths are
// relative to: the schema requires each file's full source, read from there.
// Thresholds: low is the operator threshold (floored), high is 100. Scenario
// cases become testFiles (one per scenario file) so that killedBy ids resolve.
// Errors: r has no mutation result; a mutated file cannot be read.
func Stryker(r *Run, root string) ([]byte, error) {
	if r.Mutation == nil {
		return nil, fmt.Errorf("stryker report: the run has no mutation result")
	}
	low := int(math.Floor(r.Mutation.Threshold))
	low = max(0, min(100, low))
	rep := strykerReport{
		SchemaVersion: StrykerSchemaVersion,
		Thresholds:    strykerThresholds{High: 100, Low: low},
		Files:         map[string]strykerFile{},
		Framework:     strykerFramework{Name: "waitsim"},
	}
	if len(r.Mutation.Mutants) == 0 {
		rep.Config = map[string]string{"note": "no results: the mutation result has no mutants, nothing was tested (gate: " + text.OneLine(r.Mutation.Gate) + ")"}
	}
	sources := map[string][]string{}
	for _, mu := range r.Mutation.Mutants {
		if mu.Source == verdict.SourceSanity {
			continue // not a mutant the gate scores
		}
		if err := workspace.CheckLocalPath(mu.File); err != nil {
			return nil, fmt.Errorf("stryker report: mutant %s: field file: %v", mu.ID, err)
		}
		key := strykerFileKey(mu)
		f, ok := rep.Files[key]
		if !ok {
			if _, read := sources[mu.File]; !read {
				src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(mu.File)))
				if err != nil {
					return nil, fmt.Errorf("stryker report: source of mutant %s: %w", mu.ID, err)
				}
				sources[mu.File] = strings.Split(string(src), "\n")
			}
			f = strykerFile{Language: "go", Source: strings.Join(sources[mu.File], "\n")}
		}
		f.Mutants = append(f.Mutants, strykerMutantOf(mu, sources[mu.File]))
		rep.Files[key] = f
	}
	if s := r.Scenarios; s != nil && len(s.Cases) > 0 {
		rep.TestFiles = map[string]strykerTestFile{}
		for _, c := range s.Cases {
			tf := rep.TestFiles[c.File]
			t := strykerTest{ID: c.ID, Name: c.ID}
			if c.Protects != "" {
				t.Name += " — " + text.OneLine(c.Protects)
			}
			if c.Line > 0 {
				t.Location = &strykerStart{Start: strykerPos{Line: c.Line, Column: 1}}
			}
			tf.Tests = append(tf.Tests, t)
			rep.TestFiles[c.File] = tf
		}
	}
	for k, f := range rep.Files {
		sort.SliceStable(f.Mutants, func(i, j int) bool { return f.Mutants[i].ID < f.Mutants[j].ID })
		rep.Files[k] = f
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func strykerMutantOf(mu verdict.MutantResult, src []string) strykerMutant {
	sm := strykerMutant{
		ID:           mu.ID,
		MutatorName:  mutatorName(mu),
		Status:       StrykerStatus(mu),
		StatusReason: strings.TrimSpace(mu.Detail),
		KilledBy:     mu.KilledBy,
		Description:  mu.Intent,
		Replacement:  replacement(mu.Diff),
	}
	if mu.Status != verdict.StatusKilled {
		sm.KilledBy = nil
	}
	if own := map[string]bool{"Killed": true, "Survived": mu.Status == verdict.StatusSurvived, "Ignored": true, "CompileError": true, "RuntimeError": true}; !own[sm.Status] {
		sm.StatusReason = strings.TrimSpace(mu.Status + " (counted as not killed by the gate). " + sm.StatusReason)
	}
	line, col := mutantPos(mu)
	if line < 1 || line > len(src) {
		line = max(1, min(line, len(src)))
	}
	if col < 1 {
		// The first non-blank column of the line.
		text := ""
		if line <= len(src) {
			text = src[line-1]
		}
		col = len(text) - len(strings.TrimLeft(text, " \t")) + 1
	}
	endCol := col + 1
	if line <= len(src) && len(src[line-1])+1 > col {
		endCol = len(src[line-1]) + 1
	}
	sm.Location = strykerLocation{Start: strykerPos{line, col}, End: strykerPos{line, endCol}}
	return sm
}

// mutatorName is the gremlins operator type ("CONDITIONALS_BOUNDARY") of an
// operator mutant, "Catalog" for a semantic mutant, "Sanity" for the sanity mutant.
func mutatorName(mu verdict.MutantResult) string {
	switch mu.Source {
	case verdict.SourceGremlins:
		parts := strings.Split(mu.ID, ":")
		if len(parts) >= 5 {
			return parts[len(parts)-1]
		}
		return "Operator"
	case verdict.SourceSanity:
		return "Sanity"
	}
	return "Catalog"
}

// mutantPos finds where a mutant applies: the line and column in a gremlins
// id ("gremlins:<file>:<line>:<col>:<type>"), else MutantResult.Line, else
// the first changed line of the diff's first hunk. Column 0 means unknown.
func mutantPos(mu verdict.MutantResult) (int, int) {
	if mu.Source == verdict.SourceGremlins {
		parts := strings.Split(mu.ID, ":")
		if n := len(parts); n >= 5 {
			l, e1 := strconv.Atoi(parts[n-3])
			c, e2 := strconv.Atoi(parts[n-2])
			if e1 == nil && e2 == nil && l > 0 && c > 0 {
				return l, c
			}
		}
	}
	if mu.Line > 0 {
		return mu.Line, 0
	}
	return diffLine(mu.Diff), 0
}

// diffLine returns the line, in the original file, of the first removed (or
// else added) line of a unified diff; 1 when the diff has no hunk.
func diffLine(diff string) int {
	old := 0
	inHunk := false
	for _, ln := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(ln, "@@"):
			// "@@ -a,b +c,d @@" or "@@ -a +c @@": a is the hunk's first line.
			old = 0
			if f := strings.Fields(ln); len(f) >= 2 {
				spec, _, _ := strings.Cut(strings.TrimPrefix(f[1], "-"), ",")
				old, _ = strconv.Atoi(spec)
			}
			inHunk = true
		case !inHunk || strings.HasPrefix(ln, "---") || strings.HasPrefix(ln, "+++"):
		case strings.HasPrefix(ln, "-"), strings.HasPrefix(ln, "+"):
			return max(old, 1)
		default:
			old++
		}
	}
	return 1
}

// replacement is the added lines of a unified diff, trimmed, one per line.
func replacement(diff string) string {
	var out []string
	for _, ln := range strings.Split(diff, "\n") {
		if strings.HasPrefix(ln, "+") && !strings.HasPrefix(ln, "+++") {
			out = append(out, strings.TrimSpace(ln[1:]))
		}
	}
	return strings.Join(out, "\n")
}
