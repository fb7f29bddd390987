package mutants

import (
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// applyMark makes the operator mutant m of site s equivalent, not to be
// run, when a mark covers it (mutation.MarkDirective describes the marks).
func applyMark(marks []*mutation.SourceMark, m *mutant, s mutation.OperatorSite) {
	detail, ok := mutation.UseMark(marks, s)
	if !ok || m.res.Status != "" {
		return // no mark; or not materialized: it says why
	}
	m.res.Status = verdict.StatusEquivalent
	m.res.Detail = detail
	m.equiv = nil
}
