package model

import (
	"fmt"

	"github.com/waitsim/waitsim/conformance"
)

// LoadConformance reads and checks out/conformance.json (`make conformance`).
// Besides the version and types, its totals must match its results: a report
// whose verdict its own rows contradict is an *InputError, never shown as a pass.
func LoadConformance(path string) (*conformance.Report, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(path, data, "version", conformance.ReportVersion); err != nil {
		return nil, err
	}
	var c conformance.Report
	if err := decode(path, data, &c); err != nil {
		return nil, err
	}
	if c.Runs != len(c.Results) {
		return nil, &InputError{path, "runs", fmt.Sprintf("is %d but results has %d runs", c.Runs, len(c.Results))}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"toleranceMs", c.ToleranceMs}, {"stallFactor", c.StallFactor}, {"maxStallMs", c.MaxStallMs}, {"maxStartLagMs", c.MaxStartLagMs},
		{"maxAbsDiffMs", c.MaxAbsDiffMs}, {"lostOutputs", float64(c.LostOutputs)}} {
		if f.v < 0 || f.v > 1e12 {
			return nil, &InputError{path, f.name, fmt.Sprintf("is %g: want 0 to 10^12", f.v)}
		}
	}
	calls, bad := 0, 0
	maxDiff := 0.0
	agree := len(c.Results) > 0
	for i, e := range c.Results {
		runAgrees := e.Error == ""
		for _, cc := range e.Calls {
			calls++
			maxDiff = max(maxDiff, cc.DiffMs, -cc.DiffMs)
			if len(cc.Mismatches) > 0 {
				bad++
				runAgrees = false
			}
		}
		if e.Agree && !runAgrees {
			return nil, &InputError{path, fmt.Sprintf("results[%d].agree", i), "is true but the run has an error or a mismatch"}
		}
		agree = agree && e.Agree
	}
	switch {
	case calls != c.Calls:
		return nil, &InputError{path, "calls", fmt.Sprintf("is %d but the results hold %d calls", c.Calls, calls)}
	case bad != c.Disagreements:
		return nil, &InputError{path, "disagreements", fmt.Sprintf("is %d but %d calls have mismatches", c.Disagreements, bad)}
	case c.Agree != agree:
		return nil, &InputError{path, "agree", fmt.Sprintf("is %v but the results say %v", c.Agree, agree)}
	case c.MaxAbsDiffMs < maxDiff-0.05:
		return nil, &InputError{path, "maxAbsDiffMs", fmt.Sprintf("is %g but a call of the results differs by %g ms", c.MaxAbsDiffMs, maxDiff)}
	}
	return &c, nil
}
