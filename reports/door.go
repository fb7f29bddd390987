package reports

import (
	"github.com/waitsim/waitsim/conformance"
	"github.com/waitsim/waitsim/reports/model"
)

// The report's model lives in reports/model; these are its names at the
// door, for cmd/waitsim and the tests.

// Run is the single input of every renderer (model.Run).
type Run = model.Run

// Comparison is a base run compared with a head run (model.Comparison).
type Comparison = model.Comparison

// InputError names the input file and field a check refused (model.InputError).
type InputError = model.InputError

// RunVersion is the version of a Run file (model.RunVersion).
const RunVersion = model.RunVersion

// Verdicts of a comparison (model.VerdictRegressed and the rest).
const (
	VerdictRegressed = model.VerdictRegressed
	VerdictImproved  = model.VerdictImproved
	VerdictChanged   = model.VerdictChanged
	VerdictUnchanged = model.VerdictUnchanged
)

// Assemble builds a normalized Run from the producers' files (model.Assemble).
func Assemble(scenariosPath, mutationPath, commit string, seeds map[string]int64) (*Run, error) {
	return model.Assemble(scenariosPath, mutationPath, commit, seeds)
}

// CheckTree is nil when r was run on the work tree whose state is commit
// and tree (model.CheckTree).
func CheckTree(r *Run, sources, commit, tree string) error {
	return model.CheckTree(r, sources, commit, tree)
}

// CheckTable is nil when the scenario table r's scenario result records
// is the one in the work tree at root (model.CheckTable); name is the
// input, for the error.
func CheckTable(r *Run, name, root string) error { return model.CheckTable(r, name, root) }

// LoadRun reads and checks a Run file, run.json (model.LoadRun).
func LoadRun(path string) (*Run, error) { return model.LoadRun(path) }

// LoadConformance reads and checks out/conformance.json (model.LoadConformance).
func LoadConformance(path string) (*conformance.Report, error) { return model.LoadConformance(path) }

// Compare compares base with head (model.Compare).
func Compare(base, head *Run) *Comparison { return model.Compare(base, head) }
