package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/waitsim/waitsim/limits"
)

// ParamsEnv names the environment variable that holds the path of a Params
// file: a command (`waitsim run`, the mutation runner) writes one and runs
// the test binary with it; the door (waitsim.Run) reads it. Unset, the test
// runs as `go test` runs it: its own scenario files, no results file.
const ParamsEnv = "WAITSIM_PARAMS"

// ParamsVersion is the version of the Params file.
const ParamsVersion = 1

// Params is how a command asks a test binary to run its table this time.
// The test's own waitsim.Params say what is tested; these only how. Paths
// are absolute.
type Params struct {
	Version int `json:"version"`
	// Paths are scenario files or directories to run instead of the test's
	// own.
	Paths []string `json:"paths,omitempty"`
	// Cases, when not empty, runs only the cases with these ids.
	Cases []string `json:"cases,omitempty"`
	// Results is the file the run writes its RunResult to.
	Results string `json:"results,omitempty"`
	// NoTraces leaves each case's trace out of the results file: its
	// Trace, BridgeReqs and ToolEvents, and the Timeline of a case that
	// passed or was skipped (a failing case keeps its timeline as a failure
	// report shows it, CutTimeline; TraceHash stays). For a
	// caller that reads only verdicts, failures and calls (`waitsim mutate
	// --suggest` runs batches of generated worlds), the file is a fraction
	// of its size, to write and to read.
	NoTraces bool `json:"noTraces,omitempty"`
	// Repeat runs every case this many times and fails a case whose traces
	// differ (0 and 1: once).
	Repeat int `json:"repeat,omitempty"`
	// Order lists cases to run first, in this order (the mutation runner's
	// kill first); the rest follow in the table's order. An entry that
	// names no case is ignored. With -test.failfast and a File on the first
	// entry, files are loaded one at a time as the order reaches them, so a
	// run that stops at its first failure reads only those.
	Order []CaseRef `json:"order,omitempty"`
	// KillSuite: the run is a mutant's kill suite: the scenario generator
	// stops at its first counterexample instead of shrinking it.
	KillSuite bool `json:"killSuite,omitempty"`
	// GenWorlds, when > 0, is how many worlds the scenario generator draws.
	GenWorlds int `json:"genWorlds,omitempty"`
	// WatchdogMs, when > 0, is the wall-clock watchdog of the run's worlds
	// in ms (sim.SetWatchdog; else sim.DefaultWallTimeout). A mutation
	// runner sets it beyond its own timeout for a mutant.
	WatchdogMs int64 `json:"watchdogMs,omitempty"`
	// Sites, when set, is a file the run writes the mutation sites of a
	// schemata binary that each case runs to (a Sites record, through the
	// sites flags of its mutated packages: hot.SitesFlagPrefix).
	Sites string `json:"sites,omitempty"`
	// SitesFresh, with Sites: each case starts from the mutated packages'
	// state at init (their variables reset), not from what the cases
	// before it left.
	SitesFresh bool `json:"sitesFresh,omitempty"`
	// Hot, when set, makes the run a hot runner's (package hot): the test
	// binary stays up and serves request after request (HotRequest) read
	// from one pipe, answering each (HotReply) on another, instead of
	// running its table once.
	Hot *HotPipes `json:"hot,omitempty"`
	// Serve, when set, serves one case to real clients instead of running
	// the table (`waitsim serve`); the results file then holds its Serve
	// outcome, or the file's Problems.
	Serve *ServeParams `json:"serve,omitempty"`
}

// HotPipes are the file descriptors of a hot run's pipes, as the test
// binary inherited them.
type HotPipes struct {
	In  int `json:"in"`  // HotRequest values, JSON, one after another
	Out int `json:"out"` // HotReply values, JSON, one after another
}

// Kinds of hot request: the door that serves it.
const (
	HotTable     = "table"     // waitsim.Run: the scenario table
	HotGenerator = "generator" // a pack's generator (Generated)
	HotExit      = "exit"      // end the process
)

// HotRequest asks a hot test binary to run one mutant's kill suite, or
// a part of it.
type HotRequest struct {
	Seq  int    `json:"seq"`
	Kind string `json:"kind"` // HotTable, HotGenerator, HotExit
	// Mutant is the schemata switch to turn on (0: the unmutated code).
	Mutant int `json:"mutant"`
	// Order and StopAtFirst are the table's: the cases to run first (as
	// Params.Order), and whether the run stops at its first failing case
	// (kill first; false runs every case, --all-killers).
	Order       []CaseRef `json:"order,omitempty"`
	StopAtFirst bool      `json:"stopAtFirst,omitempty"`
	// Only, with StopAtFirst and an Order: the cases the order does not
	// name do not run (the runner knows they cannot fail: they never run
	// the mutant's code, mutants/testbin/sites.go).
	Only bool `json:"only,omitempty"`
	// GenWorlds is the generator's: how many worlds it draws.
	GenWorlds int `json:"genWorlds,omitempty"`
	// GenOrder is the generator's: the worlds (by index, from 0) to run
	// first, in this order; the rest follow by index. The worlds are the
	// same in any order.
	GenOrder []int `json:"genOrder,omitempty"`
}

// HotReply is a hot test binary's answer: the first one (Seq 0) says it is
// ready, and what it serves; then one per request, with the same Seq.
type HotReply struct {
	Seq int `json:"seq"`
	// Kinds are the doors that serve requests (in the first reply).
	Kinds []string `json:"kinds,omitempty"`
	// Reached are the schemata switches whose mutated functions ran
	// before the first request (at init, or in a test's setup): such a
	// mutant can change what the process holds before any request, so
	// the runner runs it in a process of its own (first reply).
	Reached []int `json:"reached,omitempty"`
	// Failed are the go test names of the leaf tests that failed, in order
	// (as a run of its own would name them: no #01 of a repeated subtest),
	// with what each reported.
	Failed []HotFailure `json:"failed,omitempty"`
	// Passed counts the tests and subtests that passed.
	Passed int `json:"passed"`
	// World is the generator's: the world that failed, by index from 1
	// (0: none, or one of rapid's fail files).
	World int `json:"world,omitempty"`
	// Error says why the request could not be served (an unknown kind, a
	// switch that could not be set); the runner then runs it in a
	// process of its own.
	Error string `json:"error,omitempty"`
}

// HotFailure is one failed test of a hot request.
type HotFailure struct {
	Test   string `json:"test"`
	Output string `json:"output"`
}

// CaseRef names a case and the file that defines it ("" when unknown).
type CaseRef struct {
	ID   string `json:"id"`
	File string `json:"file,omitempty"`
}

// WriteParams writes p (its Version set) to file.
func WriteParams(file string, p Params) error {
	p.Version = ParamsVersion
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}

// ReadParams reads the Params file named by ParamsEnv (through
// limits.Read, as a params file); ok is false when the variable is unset. A
// file that cannot be read, is refused by the limits (named
// file:line:column), is not a Params file of this version, or holds
// unknown fields is an error naming it.
func ReadParams() (p Params, ok bool, err error) {
	file := os.Getenv(ParamsEnv)
	if file == "" {
		return p, false, nil
	}
	text, err := limits.Read(file, limits.Params)
	var le *limits.Error
	if errors.As(err, &le) {
		return p, true, fmt.Errorf("%s:%w", file, err)
	}
	if err != nil {
		return p, true, fmt.Errorf("%s=%s: %w", ParamsEnv, file, err)
	}
	dec := json.NewDecoder(bytes.NewReader(text.Src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, true, fmt.Errorf("%s: not a waitsim params file: %w", jsonPlace(file, text.Src, err), err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		rest := text.Src[end:]
		at := end + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n")))
		line, col := JSONLineCol(text.Src, at+1)
		return p, true, fmt.Errorf("%s:%d:%d: not a waitsim params file: more after its JSON object", file, line, col)
	}
	if p.Version != ParamsVersion {
		return p, true, fmt.Errorf("%s: params version %d, want %d (a waitsim command of another version wrote it)", file, p.Version, ParamsVersion)
	}
	return p, true, nil
}

// MaxRunResultBytes is about how many bytes one run's results keep over
// all its cases: its traces (ResultBytesPerEntry an entry) and its replies
// (as JSON). A case that would take them past it is an ERROR that says so,
// its trace and replies not kept. It keeps a results file under the
// 256 MiB that limits.Results reads, and a run's memory bounded however
// many cases it has.
const MaxRunResultBytes = 200 << 20

// ResultBytesPerEntry is about how many bytes of a results file one trace
// entry takes, measured 3 December 2026: one case of 487,100 entries wrote
// 193,322,073 bytes (397 an entry); the table's 145,856 entries over 408
// cases, 48,941,146 (335).
const ResultBytesPerEntry = 400

// JSONText is v as JSON text, for a message: json.Marshal's (map keys
// sorted, a number by its value whatever its Go type), or fmt's when v has
// none.
func JSONText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// WriteRun writes r (its Version set) to file as indented JSON, whole or
// not at all: it writes a file beside it and renames it over file, so a
// write that fails (a full disk) leaves the results there were.
func WriteRun(file string, r RunResult) error {
	r.Version = ResultVersion
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := file + ".writing"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, file)
}

// Sites is the record of the mutation sites of a schemata binary (its
// switch numbers, sorted) that a run ran (Params.Sites;
// mutants/testbin/sites.go): by each case's go test name, and before the
// first case (at the door's start: loading the table and the tools'
// options, which every case depends on).
type Sites struct {
	Cases  map[string][]int `json:"cases"`
	Before []int            `json:"before"`
}

// WriteSites writes s to file, as JSON.
func WriteSites(file string, s Sites) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// ReadSites reads a file WriteSites wrote, through limits.Read; a file
// that holds no record (no cases) is an error.
func ReadSites(file string) (Sites, error) {
	var s Sites
	text, err := limits.Read(file, limits.Results)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(text.Src, &s); err != nil {
		return s, fmt.Errorf("%s: %w", file, err)
	}
	if s.Cases == nil {
		return s, fmt.Errorf("%s: no mutation sites recorded", file)
	}
	return s, nil
}

// ReadRun reads a results file written by WriteRun, through limits.Read (a
// refusal names file:line:column); another version is an error naming the
// file.
func ReadRun(file string) (RunResult, error) {
	var r RunResult
	text, err := limits.Read(file, limits.Results)
	var le *limits.Error
	if errors.As(err, &le) {
		return r, fmt.Errorf("%s:%w", file, err)
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(text.Src, &r); err != nil {
		return r, fmt.Errorf("%s: %w", file, err)
	}
	if r.Version != ResultVersion {
		return r, fmt.Errorf("%s: results version %d, want %d", file, r.Version, ResultVersion)
	}
	return r, nil
}

// jsonPlace is file, with the line and column of err's place in src when
// err says where (a syntax error, a value of the wrong type), and the field.
func jsonPlace(file string, src []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := JSONLineCol(src, se.Offset)
		return fmt.Sprintf("%s:%d:%d", file, line, col)
	case errors.As(err, &te):
		line, col := JSONLineCol(src, te.Offset)
		return fmt.Sprintf("%s:%d:%d: %s", file, line, col, te.Field)
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := JSONLineCol(src, int64(len(src))+1)
		return fmt.Sprintf("%s:%d:%d", file, line, col)
	}
	return file
}

// JSONLineCol is the 1-based line and column of the byte just before
// offset off of src: where a json.SyntaxError's or UnmarshalTypeError's
// Offset, which points past it, places the error.
func JSONLineCol(src []byte, off int64) (int, int) {
	off = max(0, min(off-1, int64(len(src))))
	before := src[:off]
	return bytes.Count(before, []byte("\n")) + 1, int(off) - bytes.LastIndexByte(before, '\n')
}
