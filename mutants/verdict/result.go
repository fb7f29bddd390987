package verdict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/waitsim/waitsim/workspace"
)

// ResultVersion is the version of the JSON written to out/mutation.json.
const ResultVersion = 1

// Mutant statuses, in the field's terms.
const (
	StatusKilled     = "killed"                  // a test failed: the table caught it
	StatusSurvived   = "survived"                // every test passed: a gap in the table
	StatusNotViable  = "not viable"              // does not compile, or fails vet
	StatusTimedOut   = "timed out"               // the test binary ran past its timeout
	StatusNoApply    = "patch-no-longer-applies" // the source moved under the patch
	StatusEquivalent = "equivalent"              // an operator mutant justified in mutants/equivalent.yaml
	SourceCatalog    = "catalog"                 // a semantic mutant of mutants/catalog/
	SourceGremlins   = "gremlins"                // an operator mutant found by gremlins
	SourceSanity     = "sanity"                  // the mutant that breaks everything
)

// MutantResult is one mutant's verdict.
type MutantResult struct {
	ID     string `json:"id"`     // stable id: catalog name, or "gremlins:<file>:<line>:<col>:<type>"
	Source string `json:"source"` // SourceCatalog, SourceGremlins or SourceSanity
	Intent string `json:"intent"` // one line: the defect it models
	File   string `json:"file"`   // target file, relative to the module root
	Line   int    `json:"line,omitempty"`
	Status string `json:"status"`
	// KilledBy lists the scenario case ids (test names) that failed.
	KilledBy   []string `json:"killedBy,omitempty"`
	Diff       string   `json:"diff"`             // unified diff of the mutant against the source
	DurationMs int64    `json:"durationMs"`       // wall ms of build + test run
	Detail     string   `json:"detail,omitempty"` // compiler or vet output, or why not applied
	// Cached is true when the verdict came from the incremental cache
	// (DurationMs is then the original run's).
	Cached bool `json:"cached,omitempty"`
	// Generator is the generator campaign's verdict on the mutant (killed,
	// survived or timed out; "" when it was not run: see
	// Result.Generator), and GeneratorDetail the counterexample's first
	// broken invariant.
	Generator       string `json:"generator,omitempty"`
	GeneratorDetail string `json:"generatorDetail,omitempty"`
	GeneratorMs     int64  `json:"generatorMs,omitempty"` // wall ms of its generator run (in DurationMs too)
	// Suggested is the scenario file `--suggest` wrote for this survivor
	// (SuggestedFile, relative to the module root): a case that kills it.
	// SuggestNote says why none was written.
	Suggested     string `json:"suggested,omitempty"`
	SuggestedFile string `json:"suggestedFile,omitempty"`
	SuggestNote   string `json:"suggestNote,omitempty"`
	// Runner is "hot" when the suite's verdict came from a hot process
	// (hot.go), "" when from a process of the mutant's own.
	Runner string `json:"runner,omitempty"`
}

// Result is the whole of out/mutation.json.
type Result struct {
	Version int    `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// Tree is the sha256 of the work tree's content the run saw (see
	// TreeState): two dirty trees of one commit differ here. "" outside git.
	Tree    string         `json:"tree,omitempty"`
	Mutants []MutantResult `json:"mutants"`
	// Counts by status, and the mutation score: killed / (killed + survived +
	// timed out), in percent, over catalog and operator mutants separately.
	// The sanity mutant is not counted.
	Counts        map[string]int `json:"counts"`
	CatalogScore  float64        `json:"catalogScore"`
	OperatorScore float64        `json:"operatorScore"`
	// CatalogScored and OperatorScored are the scores' denominators: when
	// one is 0 nothing was scored and the score is printed "n/a" (its
	// number is then 100). Every catalog mutant is scored: one that is not
	// viable or no longer applies counts against the catalog score.
	CatalogScored  int     `json:"catalogScored"`
	OperatorScored int     `json:"operatorScored"`
	Threshold      float64 `json:"operatorThreshold"`
	BaselineMs     int64   `json:"baselineMs"`
	WallMs         int64   `json:"wallMs"`
	Gate           string  `json:"gate"` // "pass" or why it failed

	// Suite is the kill suite that ran (package and -test.run pattern).
	Suite Suite `json:"suite"`
	// Shard is "k/n" for one shard of a split campaign, "" for a whole or
	// merged one. A shard's gate leaves out the operator threshold and the
	// zero-mutants rule, which only the merge can judge.
	Shard string `json:"shard,omitempty"`
	// Options are the run's options that decide its mutant set or its
	// verdicts (target, catalog, equivalents, config, --no-*, --only,
	// --diff, timeouts), canonically; merge refuses shards that differ.
	Options string `json:"options,omitempty"`
	// DiffRef is --diff's ref, when given.
	DiffRef string `json:"diffRef,omitempty"`
	// Campaign describes the whole campaign's selection (before sharding),
	// so that merge can check each shard holds exactly its share. nil when
	// the run stopped before selecting mutants (a failed baseline).
	Campaign *Campaign `json:"campaign,omitempty"`
	// Baseline is why the baseline failed, when it did.
	Baseline *BaselineFailure `json:"baselineFailure,omitempty"`
	// TimeoutMs is the test-run timeout of one mutant (from the baseline).
	TimeoutMs int64 `json:"timeoutMs"`
	// MedianMutantMs is the median wall ms of the mutants built and run
	// in this campaign (cached ones left out).
	MedianMutantMs int64 `json:"medianMutantMs"`
	// SchemataMs is the wall ms spent building and checking the shared
	// schemata test binary (not in any mutant's DurationMs); 0 when none.
	SchemataMs int64 `json:"schemataMs,omitempty"`
	// Generator is the generator campaign, when one ran (generator.go).
	Generator *GeneratorCampaign `json:"generator,omitempty"`
	// Gremlins is gremlins' own campaign, when measured.
	Gremlins *GremlinsRun `json:"gremlins,omitempty"`
	// Ratchet is the accepted survivors the gate ran with (accepted.go):
	// nil in results written before the ratchet, where every survivor is new.
	Ratchet *Ratchet `json:"ratchet,omitempty"`
	// Notes are things a reader should know: a suite fallback, stale
	// equivalents, mutants not run.
	Notes []string `json:"notes,omitempty"`
	// ExitCode is the exit code of `waitsim mutate` for this result.
	ExitCode int `json:"exitCode"`
}

// Campaign is the selection of a whole campaign: how many mutants (the
// sanity mutant left out) and the sha256 of their ids, sorted, one a line.
type Campaign struct {
	Total   int    `json:"total"`
	IDsHash string `json:"idsHash"`
}

// BaselineFailure says why the unmutated suite could not serve: the failing
// cases (test names), the command that reproduces it, and its output.
type BaselineFailure struct {
	Failed []string `json:"failed,omitempty"`
	Repro  string   `json:"repro"`
	Output string   `json:"output,omitempty"`
}

// Statuses are the statuses a MutantResult may carry once it was judged.
var Statuses = []string{StatusKilled, StatusSurvived, StatusNotViable, StatusTimedOut, StatusNoApply, StatusEquivalent}

// FieldError is a result file's field that is not what a result may hold.
// Field is a JSON path such as "mutants[3].status".
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return "field " + e.Field + ": " + e.Msg }

// Check is nil when every mutant of r has an id (unique), a known source
// and status (Statuses), and a file that is a path inside the module
// (CheckLocalPath; "" only for a mutant that was not materialized), and
// when a result without a failed baseline has a mutant list at all. It is
// the check every reader of a result file (merge, report) applies before
// trusting it.
func (r *Result) Check() error {
	if r.Mutants == nil && r.Baseline == nil {
		return &FieldError{"mutants", "missing (null): a result without a failed baseline lists its mutants; a report cannot show a pass without them"}
	}
	if err := checkRatchet(r.Ratchet); err != nil {
		return err
	}
	seen := map[string]int{}
	for i, m := range r.Mutants {
		f := fmt.Sprintf("mutants[%d]", i)
		if m.ID == "" {
			return &FieldError{f + ".id", "empty"}
		}
		if strings.ContainsFunc(m.ID, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
			// An id goes into logs, annotations and merge's messages as it
			// is: one with a line break could forge a workflow command.
			return &FieldError{f + ".id", fmt.Sprintf("%q: a mutant's id is one line of printable text", m.ID)}
		}
		if j, dup := seen[m.ID]; dup {
			return &FieldError{f + ".id", fmt.Sprintf("%q repeats mutants[%d]", m.ID, j)}
		}
		seen[m.ID] = i
		if !slices.Contains(Statuses, m.Status) && !(m.Source == SourceSanity && m.Status == "") {
			q := make([]string, len(Statuses))
			for i, st := range Statuses {
				q[i] = strconv.Quote(st)
			}
			return &FieldError{f + ".status", fmt.Sprintf("%q is not one of %s (mutant %s)", m.Status, strings.Join(q, ", "), m.ID)}
		}
		switch m.Source {
		case SourceCatalog, SourceGremlins, SourceSanity:
		default:
			return &FieldError{f + ".source", fmt.Sprintf("%q is not %q, %q or %q (mutant %s)", m.Source, SourceCatalog, SourceGremlins, SourceSanity, m.ID)}
		}
		switch m.Generator {
		case "", StatusKilled, StatusSurvived, StatusTimedOut:
		default:
			return &FieldError{f + ".generator", fmt.Sprintf("%q is not %q, %q or %q (mutant %s)", m.Generator, StatusKilled, StatusSurvived, StatusTimedOut, m.ID)}
		}
		if m.Generator != "" && r.Generator == nil {
			return &FieldError{f + ".generator", fmt.Sprintf("%q, but the result records no generator campaign (mutant %s)", m.Generator, m.ID)}
		}
		if m.Suggested != "" && m.Status == StatusKilled {
			return &FieldError{f + ".suggested", fmt.Sprintf("a suggested case for a killed mutant (%s)", m.ID)}
		}
		if m.SuggestedFile != "" {
			if err := workspace.CheckLocalPath(m.SuggestedFile); err != nil {
				return &FieldError{f + ".suggestedFile", fmt.Sprintf("%v (mutant %s)", err, m.ID)}
			}
		}
		if m.File != "" {
			if err := workspace.CheckLocalPath(m.File); err != nil {
				return &FieldError{f + ".file", fmt.Sprintf("%v (mutant %s)", err, m.ID)}
			}
		}
	}
	return nil
}

// GremlinsRun is gremlins' own campaign on the target package, measured for
// comparison (--measure-gremlins): its wall time, the mutants it tested
// (killed, lived, not viable, timed out) and the wall ms per tested mutant.
// Gremlins runs only the mutated package's own tests. Disagreements lists
// operator mutants whose gremlins verdict differs from the gate's in a way
// that matters (e.g. gremlins KILLED, the gate not viable).
type GremlinsRun struct {
	WallMs        int64          `json:"wallMs"`
	Tested        int            `json:"tested"`
	PerMutantMs   float64        `json:"perMutantMs"`
	Statuses      map[string]int `json:"statuses"`
	ExitCode      int            `json:"exitCode"`
	Disagreements []string       `json:"disagreements,omitempty"`
}

// Suite is the kill suite a campaign runs: a package, its directory and a
// -test.run pattern. Note says why it differs from the configured one.
type Suite struct {
	Pkg  string `json:"pkg"`
	Run  string `json:"run"`
	Dir  string `json:"-"`
	Note string `json:"note,omitempty"`
}
