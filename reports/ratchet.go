package reports

import (
	"fmt"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/reports/text"
)

// ratchetMarkdown renders the mutation gate's ratchet (verdict.Ratchet): how
// many survivors are new and accepted, each accepted survivor with its
// reason, the accepted entries that can go (their mutant is killed now) and
// the stale ones. Nothing when the result has no ratchet, or neither
// entries nor new survivors.
func ratchetMarkdown(b *mdBuilder, m *verdict.Result) {
	r := m.Ratchet
	if r == nil || m.Baseline != nil || len(r.Accepted) == 0 && len(r.New) == 0 {
		return
	}
	b.line("### Accepted survivors (%s)", text.Code(r.File))
	b.blank()
	b.line("**%s**, not in the accepted file · %s · %s that can go · %s. The gate fails on a new catalog survivor, and judges the operator threshold without the accepted ones.",
		text.Count(len(r.New), "new survivor", "new survivors"), text.Count(len(r.Held), "accepted survivor", "accepted survivors"),
		text.Count(len(r.Resolved), "entry", "entries"), text.Count(len(r.Stale), "stale entry", "stale entries"))
	b.blank()
	entry := func(id string) (verdict.Accepted, string) {
		for _, a := range r.Accepted {
			if a.ID == id {
				return a, acceptedAt(r, a)
			}
		}
		return verdict.Accepted{ID: id}, r.File
	}
	if len(r.New) > 0 {
		b.line("New survivors (each below, under Survivors):")
		b.blank()
		for _, id := range r.New {
			b.line("- %s", text.Code(id))
		}
		b.blank()
	}
	if len(r.Held) > 0 {
		b.line("| accepted survivor | entry | reason |")
		b.line("|---|---|---|")
		for _, id := range r.Held {
			a, where := entry(id)
			b.line("| %s | %s | %s |", text.CodeCell(id), text.CodeCell(where), text.Cell(a.Reason))
		}
		b.blank()
	}
	if len(r.Resolved) > 0 {
		b.line("Accepted survivors that no longer survive — their entries can go:")
		b.blank()
		for _, x := range r.Resolved {
			_, where := entry(x.ID)
			b.line("- %s is %s now (%s)", text.Code(x.ID), text.Cell(x.Status), text.Code(where))
		}
		b.blank()
	}
	if len(r.Stale) > 0 {
		b.line("Stale entries — no mutant of the campaign has the id any more (its line moved, or it is gone):")
		b.blank()
		for _, id := range r.Stale {
			_, where := entry(id)
			b.line("- %s (%s)", text.Code(id), text.Code(where))
		}
		b.blank()
	}
}

// ratchetNote is the ratchet's word on survivor mu of m, in Markdown:
// accepted (where, and why) or new; "" without a ratchet.
func ratchetNote(m *verdict.Result, mu verdict.MutantResult) string {
	if m == nil || m.Ratchet == nil {
		return ""
	}
	r := m.Ratchet
	for _, a := range r.Accepted {
		if a.ID == mu.ID {
			return fmt.Sprintf("✅ Accepted (%s): %s", text.Code(acceptedAt(r, a)), text.Cell(a.Reason))
		}
	}
	return fmt.Sprintf("❌ **New survivor**: not in %s. Add a case that kills it, or accept it there with a reason.", text.Code(r.File))
}

// acceptedAt is "file:line" of an accepted entry (the file alone when its
// line is not known).
func acceptedAt(r *verdict.Ratchet, a verdict.Accepted) string {
	if a.Line > 0 {
		return fmt.Sprintf("%s:%d", r.File, a.Line)
	}
	return r.File
}
