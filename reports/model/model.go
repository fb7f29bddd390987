package model

import (
	"encoding/json"
	"errors"
	"fmt"
	simtimeline "github.com/waitsim/waitsim/sim/timeline"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/workspace"

	"github.com/waitsim/waitsim/conformance"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// RunVersion is the version of the Run JSON model (out/report/run.json). A
// reader refuses any other version.
const RunVersion = 1

// Run is one versioned record of a waitsim run: the scenario table and the
// mutation gate of one commit. It is the unit compared between base and head.
//
// A Run holds no wall-clock data: Normalize zeroes every wall time of its
// parts (results.CaseResult.WallMs, verdict.MutantResult.DurationMs,
// verdict.Result.BaselineMs and WallMs), so the same commit and seeds give a
// byte-identical run.json. Each case's repro line is results.CaseResult.Repro.
type Run struct {
	// Version is RunVersion.
	Version int `json:"version"`
	// Commit is the commit the run was made from ("" when unknown).
	Commit string `json:"commit"`
	// Tree is the sha256 of the work tree's content the results were run
	// on (workspace.TreeState), "" when unknown. Both inputs of a Run share it.
	Tree string `json:"tree,omitempty"`
	// Seeds are the seeds of the case generators, by generator name (empty
	// when no case was generated). A map is written with sorted keys.
	Seeds map[string]int64 `json:"seeds"`
	// Scenarios is the scenario table's result; nil when the table was not run.
	Scenarios *results.RunResult `json:"scenarios"`
	// Mutation is the mutation gate's result; nil when the gate was not run.
	Mutation *verdict.Result `json:"mutation"`
	// Conformance is the "simulation vs real" table of `make conformance`
	// (out/conformance.json), when present. It is wall-clock data by nature,
	// so it stays out of run.json and of the base-vs-head comparison; the
	// Markdown and HTML of a single run show it.
	Conformance *conformance.Report `json:"-"`
}

// InputError is a bad input file: malformed JSON, a wrong version, a field of
// the wrong type or value. File is the path as given; Field is a JSON path
// such as "scenarios.cases[3].verdict" ("" when the file is not JSON at all).
type InputError struct {
	File  string
	Field string
	Msg   string
}

func (e *InputError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: field %s: %s", e.File, e.Field, e.Msg)
}

// Wall-clock fields of the producers' models, by type. They are zeroed by
// name, so that a field a producer adds later (listed here ahead of it) is
// zeroed as soon as it exists. Times of virtual time are never listed.
var (
	caseWallFields   = []string{"WallMs"}
	mutantWallFields = []string{"DurationMs", "Cached"}
	resultWallFields = []string{"BaselineMs", "WallMs", "TimeoutMs", "MedianMutantMs"}
)

func zeroFields(v reflect.Value, names []string) {
	for _, n := range names {
		if f := v.FieldByName(n); f.IsValid() && f.CanSet() {
			f.SetZero()
		}
	}
}

// Normalize zeroes the wall-clock fields of r's parts (see Run; also
// verdict.Result.TimeoutMs and MedianMutantMs and MutantResult.Cached where
// they exist) and fills a nil Seeds with an empty map, so that r marshals
// byte-stably.
func (r *Run) Normalize() {
	if r.Seeds == nil {
		r.Seeds = map[string]int64{}
	}
	if r.Scenarios != nil {
		for i := range r.Scenarios.Cases {
			zeroFields(reflect.ValueOf(&r.Scenarios.Cases[i]).Elem(), caseWallFields)
		}
	}
	if r.Mutation != nil {
		zeroFields(reflect.ValueOf(r.Mutation).Elem(), resultWallFields)
		for i := range r.Mutation.Mutants {
			zeroFields(reflect.ValueOf(&r.Mutation.Mutants[i]).Elem(), mutantWallFields)
		}
	}
}

// Marshal returns r as indented JSON with a final newline.
func (r *Run) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Assemble builds a normalized Run from the producers' files. An empty path
// leaves that part nil; at least one part is required. Errors are
// *InputError values naming the file and field.
func Assemble(scenariosPath, mutationPath, commit string, seeds map[string]int64) (*Run, error) {
	if scenariosPath == "" && mutationPath == "" {
		return nil, errors.New("reports: nothing to assemble: neither a scenarios nor a mutation result given")
	}
	r := &Run{Version: RunVersion, Commit: commit, Seeds: map[string]int64{}}
	for k, v := range seeds {
		r.Seeds[k] = v
	}
	if scenariosPath != "" {
		s, err := LoadScenarios(scenariosPath)
		if err != nil {
			return nil, err
		}
		r.Scenarios = s
	}
	if mutationPath != "" {
		m, err := LoadMutation(mutationPath)
		if err != nil {
			return nil, err
		}
		r.Mutation = m
	}
	if s, m := r.Scenarios, r.Mutation; s != nil && m != nil && (s.Tree != m.Tree || s.Commit != m.Commit) {
		return nil, &InputError{scenariosPath, "tree", fmt.Sprintf("was run on %s, but %s on %s: results of different trees cannot make one report; run both again",
			describeTree(s.Commit, s.Tree), mutationPath, describeTree(m.Commit, m.Tree))}
	}
	if s, m := r.Scenarios, r.Mutation; s != nil && m != nil {
		if err := checkKillers(mutationPath, "", s, m); err != nil {
			return nil, err
		}
	}
	switch {
	case r.Mutation != nil:
		r.Tree = r.Mutation.Tree
		if r.Commit == "" {
			r.Commit = r.Mutation.Commit
		}
	case r.Scenarios != nil:
		r.Tree = r.Scenarios.Tree
		if r.Commit == "" {
			r.Commit = r.Scenarios.Commit
		}
	}
	r.Normalize()
	return r, nil
}

// CheckTree is nil when r was run on the work tree whose state is commit
// and tree (workspace.TreeState). A run that records no tree, or another
// one, is stale: its results are not those of the tree a report would be
// read against (issue 11 item 4). tree "" (not a git work tree) checks
// nothing.
func CheckTree(r *Run, sources, commit, tree string) error {
	if tree == "" {
		return nil
	}
	if r.Tree == "" {
		return fmt.Errorf("%s: stale or unknown results: they record no tree (written by an older waitsim, or by go test directly); the work tree is %s: run them again", sources, describeTree(commit, tree))
	}
	if r.Tree != tree {
		return fmt.Errorf("%s: stale results: they were run on %s, the work tree is now %s: run them again", sources, describeTree(inputsCommit(r), r.Tree), describeTree(commit, tree))
	}
	return nil
}

// inputsCommit is the commit r's inputs record they ran on (not the one a
// report was asked to name).
func inputsCommit(r *Run) string {
	switch {
	case r.Mutation != nil && r.Mutation.Commit != "":
		return r.Mutation.Commit
	case r.Scenarios != nil && r.Scenarios.Commit != "":
		return r.Scenarios.Commit
	}
	return r.Commit
}

// describeTree names a tree state for people: "commit abc… (tree 123…)".
func describeTree(commit, tree string) string {
	c := "no commit"
	if commit != "" {
		c = "commit " + commit
	}
	if tree == "" {
		return c + " (no tree recorded)"
	}
	return fmt.Sprintf("%s (tree %.12s)", c, tree)
}

// LoadRun reads and checks a Run file (run.json). Errors name the file and field.
func LoadRun(path string) (*Run, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	return parseRun(path, data)
}

// ParseRun parses and checks a Run from data, first against the limits of
// a results file (limits.Check); name is used in errors.
func ParseRun(name string, data []byte) (*Run, error) {
	text, err := limits.Check(data, limits.Results)
	if err != nil {
		return nil, inputError(name, err)
	}
	return parseRun(name, text.Src)
}

// parseRun parses and checks a Run from data, already checked against the
// limits.
func parseRun(name string, data []byte) (*Run, error) {
	if err := checkVersion(name, data, "version", RunVersion); err != nil {
		return nil, err
	}
	var r Run
	if err := decode(name, data, &r); err != nil {
		return nil, err
	}
	if r.Scenarios == nil && r.Mutation == nil {
		return nil, &InputError{name, "scenarios", "neither scenarios nor mutation present"}
	}
	if r.Scenarios != nil {
		if r.Scenarios.Version != results.ResultVersion {
			return nil, &InputError{name, "scenarios.version", fmt.Sprintf("is %d; this waitsim reads version %d", r.Scenarios.Version, results.ResultVersion)}
		}
		if err := checkScenarios(name, "scenarios.", r.Scenarios); err != nil {
			return nil, err
		}
	}
	if r.Mutation != nil {
		if r.Mutation.Version != verdict.ResultVersion {
			return nil, &InputError{name, "mutation.version", fmt.Sprintf("is %d; this waitsim reads version %d", r.Mutation.Version, verdict.ResultVersion)}
		}
		if err := checkMutation(name, "mutation.", r.Mutation); err != nil {
			return nil, err
		}
	}
	if r.Scenarios != nil && r.Mutation != nil {
		if err := checkKillers(name, "mutation.", r.Scenarios, r.Mutation); err != nil {
			return nil, err
		}
	}
	if r.Seeds == nil {
		r.Seeds = map[string]int64{}
	}
	return &r, nil
}

// checkKillers checks that every mutant's killers (KilledBy: go test
// names) are cases of the table s ran: a test of its index, or the test
// or file subtest above one (a failure outside any case). It checks only
// what s can tell: s must cover its test's whole table (TableMissing); and
// when the kill suite runs more than the table's test (Suite.Run is not
// "^Test$" for it), killers under other tests are not the table's to judge.
// name and prefix name the mutation input and its field, for the error.
func checkKillers(name, prefix string, s *results.RunResult, m *verdict.Result) error {
	if missing, _, known := TableMissing(s); !known || len(missing) > 0 || len(s.Index) == 0 {
		return nil
	}
	cases := map[string]bool{}
	tops := map[string]bool{}
	for _, e := range s.Index {
		parts := strings.Split(e.Test, "/")
		for i := range parts {
			cases[strings.Join(parts[:i+1], "/")] = true
		}
		tops[parts[0]] = true
	}
	only := len(tops) == 1
	for t := range tops {
		only = only && m.Suite.Run == "^"+t+"$"
	}
	for i, mu := range m.Mutants {
		for j, k := range mu.KilledBy {
			top, _, _ := strings.Cut(k, "/")
			if cases[k] || !only && !tops[top] {
				continue
			}
			return &InputError{name, fmt.Sprintf("%smutants[%d].killedBy[%d]", prefix, i, j),
				fmt.Sprintf("%q is not a case of the scenario table the results ran (mutant %s): the mutation result is not of this table, or was edited", text.OneLine(k), text.OneLine(mu.ID))}
		}
	}
	return nil
}

// LoadScenarios reads and checks out/scenarios.json.
func LoadScenarios(path string) (*results.RunResult, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(path, data, "version", results.ResultVersion); err != nil {
		return nil, err
	}
	var s results.RunResult
	if err := decode(path, data, &s); err != nil {
		return nil, err
	}
	if err := checkScenarios(path, "", &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// LoadMutation reads and checks out/mutation.json.
func LoadMutation(path string) (*verdict.Result, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(path, data, "version", verdict.ResultVersion); err != nil {
		return nil, err
	}
	var m verdict.Result
	if err := decode(path, data, &m); err != nil {
		return nil, err
	}
	if err := checkMutation(path, "", &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// readInput reads the input file path through limits.Read, as a results
// file: a refusal (not a regular file, too large, too deep…) is an
// *InputError naming path:line:column and the field; the errors of the file
// system are returned as they are.
func readInput(path string) ([]byte, error) {
	text, err := limits.Read(path, limits.Results)
	if err != nil {
		return nil, inputError(path, err)
	}
	return text.Src, nil
}

// inputError is err, a refusal of limits.Read or limits.Check of the file
// name, as an *InputError; any other error as it is.
func inputError(name string, err error) error {
	var le *limits.Error
	if errors.As(err, &le) {
		return &InputError{File: fmt.Sprintf("%s:%d:%d", name, le.Line, le.Column), Msg: le.Field + ": " + le.Message}
	}
	return err
}

// checkVersion reads the top-level version field of data and compares it
// with want.
func checkVersion(name string, data []byte, field string, want int) error {
	var head map[string]json.RawMessage
	if err := decode(name, data, &head); err != nil {
		return err
	}
	raw, ok := head[field]
	if !ok {
		return &InputError{name, field, fmt.Sprintf("missing; this waitsim reads version %d", want)}
	}
	var v int
	if err := json.Unmarshal(raw, &v); err != nil {
		return &InputError{name, field, fmt.Sprintf("%s is not an integer", raw)}
	}
	if v != want {
		return &InputError{name, field, fmt.Sprintf("is %d; this waitsim reads version %d", v, want)}
	}
	return nil
}

// decode unmarshals data into v, turning syntax and type errors into
// *InputError values with a line and column or a field path.
func decode(name string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := results.JSONLineCol(data, se.Offset)
		return &InputError{File: name, Msg: fmt.Sprintf("malformed JSON at line %d, column %d: %v", line, col, se)}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := te.Field
		if f == "" {
			f = "(top level)"
		}
		return &InputError{name, f, fmt.Sprintf("%s is not a valid %s", te.Value, te.Type)}
	}
	return &InputError{File: name, Msg: err.Error()}
}

// checkScenarios checks a scenario result: ids (unique), verdicts (pass,
// fail, error or skip), each case's own record against its verdict (a pass
// with a failure, a violation or an error is no pass), paths, the tallies
// against the cases, no problems (a run with problems ran no case) and
// every case in the table's index when the file has one.
func checkScenarios(name, prefix string, s *results.RunResult) error {
	if len(s.Problems) > 0 {
		return &InputError{name, prefix + "problems", fmt.Sprintf("%d problem(s) in the scenario files (the first: %s): a run with problems ran no case", len(s.Problems), s.Problems[0])}
	}
	indexed := map[string]bool{}
	for _, e := range s.Index {
		indexed[e.ID] = true
	}
	seen := map[string]int{}
	for i, c := range s.Cases {
		f := fmt.Sprintf("%scases[%d]", prefix, i)
		if c.ID == "" {
			return &InputError{name, f + ".id", "empty"}
		}
		if j, dup := seen[c.ID]; dup {
			return &InputError{name, f + ".id", fmt.Sprintf("%q repeats cases[%d]", c.ID, j)}
		}
		seen[c.ID] = i
		if len(s.Index) > 0 && !indexed[c.ID] {
			return &InputError{name, f + ".id", fmt.Sprintf("%q is not in the file's index of the table's cases", c.ID)}
		}
		switch c.Verdict {
		case results.VerdictPass, results.VerdictFail, results.VerdictError, results.VerdictSkip:
		default:
			return &InputError{name, f + ".verdict", fmt.Sprintf("%q is not %q, %q, %q or %q", c.Verdict,
				results.VerdictPass, results.VerdictFail, results.VerdictError, results.VerdictSkip)}
		}
		if c.Verdict == results.VerdictPass {
			switch {
			case len(c.Failures) > 0:
				return &InputError{name, f + ".failures", "a case that passed records a failed expectation"}
			case len(c.Violation) > 0:
				return &InputError{name, f + ".violations", "a case that passed records a broken invariant"}
			case c.Error != "":
				return &InputError{name, f + ".error", "a case that passed records an error"}
			}
		}
		// A trace, its timeline and its hash are one: a report shows the
		// timeline and compares runs by the hash.
		if len(c.Trace) > 0 {
			tl := simtimeline.FormatEntries(c.Trace)
			if c.Timeline != "" && c.Timeline != tl {
				return &InputError{name, f + ".timeline", "not the timeline of the case's trace"}
			}
			if c.TraceHash != simtimeline.HashTimeline(tl) {
				return &InputError{name, f + ".traceHash", "not the hash of the case's trace"}
			}
		}
		if c.File != "" {
			if err := workspace.CheckLocalPath(c.File); err != nil {
				return &InputError{name, f + ".file", err.Error()}
			}
		}
	}
	// The files the result hashed are the cases' files, each with a case:
	// a file without one is a file whose cases were cut out.
	if len(s.Files) > 0 {
		has := map[string]bool{}
		for i, c := range s.Cases {
			if _, ok := s.Files[c.File]; !ok {
				return &InputError{name, fmt.Sprintf("%scases[%d].file", prefix, i), fmt.Sprintf("%q is not among the files the result hashed", c.File)}
			}
			has[c.File] = true
		}
		for _, f := range slices.Sorted(maps.Keys(s.Files)) {
			if !has[f] {
				return &InputError{name, prefix + "files", fmt.Sprintf("%q has no case in the result: its cases were cut out", f)}
			}
		}
	}
	// The table's record: local paths, each once.
	if t := s.Table; t != nil {
		if !t.FS && t.Dir != "" {
			if err := workspace.CheckLocalPath(t.Dir); err != nil {
				return &InputError{name, prefix + "table.dir", err.Error()}
			}
		}
		listed := map[string]int{}
		for i, f := range t.Files {
			field := fmt.Sprintf("%stable.files[%d]", prefix, i)
			if err := workspace.CheckLocalPath(f); err != nil {
				return &InputError{name, field, err.Error()}
			}
			if j, dup := listed[f]; dup {
				return &InputError{name, field, fmt.Sprintf("%q repeats table.files[%d]", f, j)}
			}
			listed[f] = i
		}
	}
	// The tallies must be the cases' verdicts.
	n := map[string]int{}
	for _, c := range s.Cases {
		n[c.Verdict]++
	}
	for _, t := range []struct {
		field string
		got   int
		v     string
	}{{"passed", s.Passed, results.VerdictPass}, {"failed", s.Failed, results.VerdictFail}, {"errors", s.Errors, results.VerdictError}, {"skipped", s.Skipped, results.VerdictSkip}} {
		if t.got != n[t.v] {
			return &InputError{name, prefix + t.field, fmt.Sprintf("records %d, the cases hold %d with verdict %q: the file does not match its own cases", t.got, n[t.v], t.v)}
		}
	}
	return nil
}

// Unrun is how many cases of the table's index a scenario result holds no
// verdict for (a run of some cases, `waitsim run --case`): a report never
// calls such a run a pass of the table.
func Unrun(s *results.RunResult) int {
	return max(0, len(s.Index)-len(s.Cases))
}

// TableMissing is what a scenario result leaves out of its test's own
// table (results.RunResult.Table): the table's files without a case in
// the result, and how many files the table has. known is false when the
// result records no table (written by an older waitsim): a report never
// calls such a run a pass of the table either.
func TableMissing(s *results.RunResult) (missing []string, total int, known bool) {
	if s.Table == nil {
		return nil, 0, false
	}
	ran := map[string]bool{}
	for _, c := range s.Cases {
		ran[c.File] = true
	}
	for _, f := range s.Table.Files {
		if !ran[f] {
			missing = append(missing, f)
		}
	}
	return missing, len(s.Table.Files), true
}

// CheckTable is nil when the table r's scenario result records
// (results.RunResult.Table) is the table in the work tree at root: its
// directory, listed again as the door lists it (scenario.Expand), holds
// exactly the files the result lists, so that a list cut by hand cannot
// hide a file the run left out. A table of a test's fs.FS, and a result
// without a table, are not checked here (TableMissing says so).
func CheckTable(r *Run, name, root string) error {
	if r.Scenarios == nil || r.Scenarios.Table == nil || r.Scenarios.Table.FS {
		return nil
	}
	t := r.Scenarios.Table
	dir := filepath.Join(root, filepath.FromSlash(t.Dir))
	var now []string
	if _, err := os.Stat(dir); err == nil {
		files, err := scenario.Expand([]string{dir})
		if err != nil {
			return &InputError{name, "table.dir", fmt.Sprintf("the table directory %s cannot be listed: %v", t.Dir, err)}
		}
		for _, f := range files {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				return &InputError{name, "table.dir", err.Error()}
			}
			now = append(now, filepath.ToSlash(rel))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &InputError{name, "table.dir", fmt.Sprintf("the table directory %s: %v", t.Dir, err)}
	}
	slices.Sort(now)
	listed := slices.Sorted(slices.Values(t.Files))
	for _, f := range now {
		if _, ok := slices.BinarySearch(listed, f); !ok {
			return &InputError{name, "table.files", fmt.Sprintf("leaves out %s, a scenario file of the table %s in the work tree: the list was cut, or the results are stale; run them again", f, t.Dir)}
		}
	}
	for _, f := range listed {
		if _, ok := slices.BinarySearch(now, f); !ok {
			return &InputError{name, "table.files", fmt.Sprintf("lists %s, which the table %s in the work tree does not hold: the results are stale; run them again", f, t.Dir)}
		}
	}
	return nil
}

// checkMutation checks a mutation result (verdict.Result.Check: ids,
// statuses, sources, paths, a mutant list) and that its counts, scores and
// exit code are what its mutant list gives (verdict.Evaluate): a report
// never shows a count or a pass the mutants do not back. The recomputed
// values replace the recorded ones (older files rounded their scores). A
// result whose baseline failed (verdict.Result.StopAtBaseline) scored
// nothing: its recorded scores are not compared, but it must exit
// verdict.ExitUntrusted.
func checkMutation(name, prefix string, m *verdict.Result) error {
	if err := m.Check(); err != nil {
		var fe *verdict.FieldError
		if errors.As(err, &fe) {
			return &InputError{name, prefix + fe.Field, fe.Msg}
		}
		return &InputError{name, prefix + "mutants", err.Error()}
	}
	if p := m.CampaignProblem(); p != "" {
		field, msg, _ := strings.Cut(p, ": ")
		return &InputError{name, prefix + field, msg}
	}
	// A failed baseline stops a campaign before its mutants run: the file
	// records why (baselineFailure) and exit 3, and no gate can pass. One
	// that records a failed baseline and any other exit code is no file
	// waitsim writes.
	if m.Baseline != nil && m.ExitCode != verdict.ExitUntrusted {
		return &InputError{name, prefix + "exitCode", fmt.Sprintf("records %d (gate %q) with a failed baseline (baselineFailure): a campaign whose baseline failed exits %d and passes no gate", m.ExitCode, text.OneLine(m.Gate), verdict.ExitUntrusted)}
	}
	re := *m
	re.Counts = nil
	verdict.Evaluate(&re)
	bad := func(field, format string, args ...any) error {
		return &InputError{name, prefix + field, fmt.Sprintf(format, args...) + ": the file does not match its own mutant list (edited, or written by a broken run)"}
	}
	// A score of nothing (its denominator 0) is "n/a", whatever number
	// it records: a campaign stopped by its baseline writes 0 there
	// without scoring anything (Evaluate's number is 100).
	scoreDiffers := func(recorded, recomputed float64, scored int) bool {
		if scored == 0 && m.Baseline != nil {
			return false
		}
		return math.Abs(recorded-recomputed) >= 0.05
	}
	for _, k := range slices.Sorted(maps.Keys(re.Counts)) {
		if m.Counts[k] != re.Counts[k] {
			return bad("counts", "records %d %s, its mutants %d", m.Counts[k], k, re.Counts[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Counts)) {
		if m.Counts[k] != re.Counts[k] {
			return bad("counts", "records %d %s, its mutants %d", m.Counts[k], k, re.Counts[k])
		}
	}
	switch {
	case m.CatalogScored != re.CatalogScored:
		return bad("catalogScored", "records %d, its mutants %d", m.CatalogScored, re.CatalogScored)
	case m.OperatorScored != re.OperatorScored:
		return bad("operatorScored", "records %d, its mutants %d", m.OperatorScored, re.OperatorScored)
	case scoreDiffers(m.CatalogScore, re.CatalogScore, re.CatalogScored):
		return bad("catalogScore", "records %v, its mutants %v", m.CatalogScore, re.CatalogScore)
	case scoreDiffers(m.OperatorScore, re.OperatorScore, re.OperatorScored):
		return bad("operatorScore", "records %v, its mutants %v", m.OperatorScore, re.OperatorScore)
	case m.ExitCode != re.ExitCode:
		return bad("exitCode", "records %d (gate %q), its mutants give %d (%s)", m.ExitCode, text.OneLine(m.Gate), re.ExitCode, text.OneLine(re.Gate))
	case (m.Gate == "pass") != (re.Gate == "pass"):
		return bad("gate", "records %q, its mutants give %q", text.OneLine(m.Gate), text.OneLine(re.Gate))
	}
	if g, rg := m.Generator, re.Generator; g != nil && rg != nil {
		switch {
		case g.CatalogKilled != rg.CatalogKilled || g.CatalogScored != rg.CatalogScored:
			return bad("generator.catalogKilled", "records %d of %d, its mutants %d of %d", g.CatalogKilled, g.CatalogScored, rg.CatalogKilled, rg.CatalogScored)
		case g.OperatorKilled != rg.OperatorKilled || g.OperatorScored != rg.OperatorScored:
			return bad("generator.operatorKilled", "records %d of %d, its mutants %d of %d", g.OperatorKilled, g.OperatorScored, rg.OperatorKilled, rg.OperatorScored)
		}
	}
	m.Counts, m.CatalogScore, m.OperatorScore, m.Generator, m.Ratchet = re.Counts, re.CatalogScore, re.OperatorScore, re.Generator, re.Ratchet
	return nil
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
