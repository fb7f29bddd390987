package model

import (
	"fmt"
	"sort"

	"github.com/waitsim/waitsim/reports/text"
	"github.com/waitsim/waitsim/results"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// Verdicts of a base-vs-head comparison, in the order they are decided.
const (
	// VerdictRegressed: head has a new failure (a case that fails in head but
	// passed in base or is new), a new survivor, a lower mutation score, or a
	// mutation gate that passed in base and fails in head.
	VerdictRegressed = "regressed"
	// VerdictImproved: nothing regressed; a failure or a survivor was fixed,
	// or a mutation score went up.
	VerdictImproved = "improved"
	// VerdictChanged: nothing regressed or improved, but behaviour changed: a
	// case's resolves-at, remainingMs or read counts differ, or cases or
	// mutants were added or removed.
	VerdictChanged = "changed"
	// VerdictUnchanged: base and head say the same.
	VerdictUnchanged = "unchanged"
)

// Comparison is what changed between a base run and a head run.
// Every list is in head order (cases and mutants as head lists them), then
// base order for what only base has.
type Comparison struct {
	Base, Head *Run
	// Verdict is one of the Verdict* constants.
	Verdict string
	// NewFailures are head cases that fail (verdict fail or error) and passed
	// in base or are new in head.
	NewFailures []results.CaseResult
	// StillFailing are head cases that fail in base and head.
	StillFailing []results.CaseResult
	// Fixed are head cases that pass and failed in base.
	Fixed []results.CaseResult
	// Added and Removed are case ids only in head / only in base.
	Added, Removed []string
	// Changes are the per-call differences of cases in both runs.
	Changes []CaseChange
	// Score compares the mutation scores; nil when either run has no mutation result.
	Score *ScoreChange
	// NewSurvivors are head mutants that survived (or timed out) and did not
	// in base, or are new; FixedSurvivors did in base and do not in head.
	NewSurvivors   []verdict.MutantResult
	FixedSurvivors []verdict.MutantResult
	// AddedMutants and RemovedMutants are mutant ids only in head / only in base.
	AddedMutants, RemovedMutants []string
	// MutationNotRun says, per side ("base: …", "head: …"), that a side's
	// mutation campaign never ran (its baseline failed, or its sanity
	// mutant was not killed): then no score is compared, no mutant is
	// listed as added, removed or surviving, and Score is nil. A head
	// whose campaign never ran, against a base whose gate passed, has
	// regressed (its gate fails).
	MutationNotRun []string
	// HeadPartial says that head's scenario result left part of its table
	// without a verdict (cases of its index, or files of its table) while
	// base's covered its own: what head did not run it did not check, so
	// the comparison has regressed.
	HeadPartial string
}

// partial says how much of its table a scenario result left without a
// verdict ("" when none, or when it records no table to tell by).
func partial(s *results.RunResult) string {
	if s == nil {
		return ""
	}
	if u := Unrun(s); u > 0 {
		return fmt.Sprintf("%d of the table's %d cases did not run", u, len(s.Index))
	}
	if missing, total, known := TableMissing(s); known && len(missing) > 0 {
		return fmt.Sprintf("%d of the table's %d scenario files did not run", len(missing), total)
	}
	return ""
}

// campaignRan reports whether m's mutants were run: its baseline passed and
// its sanity mutant was killed (verdict.ExitUntrusted says otherwise).
func campaignRan(m *verdict.Result) bool {
	return m.Baseline == nil && m.ExitCode != verdict.ExitUntrusted
}

// CaseChange is how one case's calls differ between base and head.
type CaseChange struct {
	ID    string
	Calls []CallChange
}

// CallChange compares one call (by caller and index) in base and head. A
// call only one side made has the other side's Present false.
type CallChange struct {
	Caller     string
	Index      int
	Base, Head CallFacts
}

// CallFacts are the compared facts of one call. ResolvesAtMs is the virtual
// ms its reply resolved at (CallSummary.EndMs); RemainingMs is the reply's
// remainingMs, nil when absent.
type CallFacts struct {
	Present      bool
	ResolvesAtMs int64
	Lost         bool
	RemainingMs  *int64
	Lists, Reads int
}

// ScoreChange is the mutation score of base and head, in percent.
type ScoreChange struct {
	BaseCatalog, HeadCatalog   float64
	BaseOperator, HeadOperator float64
	BaseGate, HeadGate         string
	// The scores' denominators: 0 means nothing was scored ("n/a").
	BaseCatalogScored, HeadCatalogScored   int
	BaseOperatorScored, HeadOperatorScored int
	// The operator threshold of each side, for printing.
	BaseThreshold, HeadThreshold float64
}

// Compare compares base with head. Either may lack scenarios or mutation;
// what one side lacks is not compared.
func Compare(base, head *Run) *Comparison {
	c := &Comparison{Base: base, Head: head}
	if base.Scenarios != nil && head.Scenarios != nil {
		c.compareCases(base.Scenarios, head.Scenarios)
		if p := partial(head.Scenarios); p != "" && partial(base.Scenarios) == "" {
			c.HeadPartial = p
		}
	}
	if base.Mutation != nil && head.Mutation != nil {
		for _, side := range []struct {
			name string
			m    *verdict.Result
		}{{"base", base.Mutation}, {"head", head.Mutation}} {
			if !campaignRan(side.m) {
				c.MutationNotRun = append(c.MutationNotRun, side.name+": "+text.OneLine(side.m.Gate))
			}
		}
		if len(c.MutationNotRun) == 0 {
			c.compareMutants(base.Mutation, head.Mutation)
		}
	}
	c.Verdict = c.verdict()
	return c
}

func Failing(v string) bool { return v == results.VerdictFail || v == results.VerdictError }

func (c *Comparison) compareCases(b, h *results.RunResult) {
	bi := map[string]*results.CaseResult{}
	for i := range b.Cases {
		bi[b.Cases[i].ID] = &b.Cases[i]
	}
	hi := map[string]bool{}
	for _, hc := range h.Cases {
		hi[hc.ID] = true
		bc, ok := bi[hc.ID]
		switch {
		case !ok:
			c.Added = append(c.Added, hc.ID)
			if Failing(hc.Verdict) {
				c.NewFailures = append(c.NewFailures, hc)
			}
			continue
		case Failing(hc.Verdict) && !Failing(bc.Verdict):
			c.NewFailures = append(c.NewFailures, hc)
		case Failing(hc.Verdict):
			c.StillFailing = append(c.StillFailing, hc)
		case Failing(bc.Verdict):
			c.Fixed = append(c.Fixed, hc)
		}
		if ch := compareCalls(bc.Calls, hc.Calls); len(ch) > 0 {
			c.Changes = append(c.Changes, CaseChange{ID: hc.ID, Calls: ch})
		}
	}
	for _, bc := range b.Cases {
		if !hi[bc.ID] {
			c.Removed = append(c.Removed, bc.ID)
		}
	}
}

func facts(s *results.CallSummary) CallFacts {
	f := CallFacts{Present: true, ResolvesAtMs: s.EndMs, Lost: s.Lost, Lists: s.Lists, Reads: s.Reads}
	if n, ok := s.ReplyInt("remainingMs"); ok {
		f.RemainingMs = &n
	}
	return f
}

func (f CallFacts) equal(g CallFacts) bool {
	if f.Present != g.Present || f.ResolvesAtMs != g.ResolvesAtMs || f.Lost != g.Lost ||
		f.Lists != g.Lists || f.Reads != g.Reads {
		return false
	}
	if (f.RemainingMs == nil) != (g.RemainingMs == nil) {
		return false
	}
	return f.RemainingMs == nil || *f.RemainingMs == *g.RemainingMs
}

type callKey struct {
	caller string
	index  int
}

func compareCalls(b, h []results.CallSummary) []CallChange {
	bm := map[callKey]*results.CallSummary{}
	for i := range b {
		bm[callKey{b[i].Caller, b[i].Index}] = &b[i]
	}
	var out []CallChange
	seen := map[callKey]bool{}
	for i := range h {
		k := callKey{h[i].Caller, h[i].Index}
		seen[k] = true
		cc := CallChange{Caller: k.caller, Index: k.index, Head: facts(&h[i])}
		if bs, ok := bm[k]; ok {
			cc.Base = facts(bs)
		}
		if !cc.Base.equal(cc.Head) {
			out = append(out, cc)
		}
	}
	for i := range b {
		k := callKey{b[i].Caller, b[i].Index}
		if !seen[k] {
			out = append(out, CallChange{Caller: k.caller, Index: k.index, Base: facts(&b[i])})
		}
	}
	return out
}

// Undetected reports whether a mutant status counts against the mutation
// score: survived or timed out.
func Undetected(status string) bool {
	return status == verdict.StatusSurvived || status == verdict.StatusTimedOut
}

func (c *Comparison) compareMutants(b, h *verdict.Result) {
	c.Score = &ScoreChange{
		BaseCatalog: b.CatalogScore, HeadCatalog: h.CatalogScore,
		BaseOperator: b.OperatorScore, HeadOperator: h.OperatorScore,
		BaseGate: b.Gate, HeadGate: h.Gate,
		BaseCatalogScored: b.CatalogScored, HeadCatalogScored: h.CatalogScored,
		BaseOperatorScored: b.OperatorScored, HeadOperatorScored: h.OperatorScored,
		BaseThreshold: b.Threshold, HeadThreshold: h.Threshold,
	}
	bi := map[string]*verdict.MutantResult{}
	for i := range b.Mutants {
		bi[b.Mutants[i].ID] = &b.Mutants[i]
	}
	hi := map[string]bool{}
	for _, hm := range h.Mutants {
		hi[hm.ID] = true
		bm, ok := bi[hm.ID]
		if !ok {
			c.AddedMutants = append(c.AddedMutants, hm.ID)
		}
		switch {
		case Undetected(hm.Status) && (!ok || !Undetected(bm.Status)):
			c.NewSurvivors = append(c.NewSurvivors, hm)
		case ok && !Undetected(hm.Status) && Undetected(bm.Status):
			c.FixedSurvivors = append(c.FixedSurvivors, hm)
		}
	}
	for _, bm := range b.Mutants {
		if !hi[bm.ID] {
			c.RemovedMutants = append(c.RemovedMutants, bm.ID)
		}
	}
}

func (c *Comparison) verdict() string {
	s := c.Score
	headNotRun := c.Head.Mutation != nil && c.Base.Mutation != nil && !campaignRan(c.Head.Mutation) && c.Base.Mutation.Gate == "pass"
	switch {
	case headNotRun, c.HeadPartial != "",
		len(c.NewFailures) > 0 || len(c.NewSurvivors) > 0,
		s != nil && (s.HeadCatalog < s.BaseCatalog || s.HeadOperator < s.BaseOperator),
		s != nil && s.HeadGate != "pass" && s.BaseGate == "pass":
		return VerdictRegressed
	case len(c.Fixed) > 0 || len(c.FixedSurvivors) > 0,
		s != nil && (s.HeadCatalog > s.BaseCatalog || s.HeadOperator > s.BaseOperator):
		return VerdictImproved
	case len(c.Changes) > 0 || len(c.Added) > 0 || len(c.Removed) > 0 ||
		len(c.AddedMutants) > 0 || len(c.RemovedMutants) > 0:
		return VerdictChanged
	}
	return VerdictUnchanged
}

// Regressed reports whether the comparison's verdict is VerdictRegressed.
func (c *Comparison) Regressed() bool { return c.Verdict == VerdictRegressed }

// HeadFailures returns every failing head case, in head order.
func HeadFailures(r *Run) []results.CaseResult {
	if r == nil || r.Scenarios == nil {
		return nil
	}
	var out []results.CaseResult
	for _, c := range r.Scenarios.Cases {
		if Failing(c.Verdict) {
			out = append(out, c)
		}
	}
	return out
}

// Survivors returns the mutants of r that survived or timed out, sorted by id.
func Survivors(r *Run) []verdict.MutantResult {
	if r == nil || r.Mutation == nil {
		return nil
	}
	var out []verdict.MutantResult
	for _, m := range r.Mutation.Mutants {
		if Undetected(m.Status) {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
