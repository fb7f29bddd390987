package model

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/waitsim/waitsim/results"
)

func TestCompareFixtures(t *testing.T) {
	base, head := loadFixture(t, "base.json"), loadFixture(t, "head.json")
	c := Compare(base, head)
	if c.Verdict != VerdictRegressed || !c.Regressed() {
		t.Errorf("verdict %s, want regressed", c.Verdict)
	}
	check := func(what string, got, want []string) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %q, want %q", what, got, want)
		}
	}
	var nf []string
	for _, f := range c.NewFailures {
		nf = append(nf, f.ID)
	}
	check("new failures", nf, []string{"fast-then-stall", "short-caller-timeout"})
	check("added", c.Added, []string{"short-caller-timeout"})
	check("removed", c.Removed, []string{"instant-bridge"})
	var ns []string
	for _, m := range c.NewSurvivors {
		ns = append(ns, m.ID)
	}
	if len(ns) != 2 || ns[0] != "no-read-reserve" {
		t.Errorf("new survivors %q, want no-read-reserve and the timed-out operator mutant", ns)
	}
	// The one case whose behaviour changed: the poll interval went 500 → 250.
	if len(c.Changes) != 1 || c.Changes[0].ID != "slow-list[list=5000]" {
		t.Fatalf("changes %+v", c.Changes)
	}
	cc := c.Changes[0].Calls[0]
	if cc.Base.ResolvesAtMs != 21500 || cc.Head.ResolvesAtMs != 20750 || *cc.Base.RemainingMs != 578500 || *cc.Head.RemainingMs != 579250 {
		t.Errorf("call change %+v → %+v", cc.Base, cc.Head)
	}
	if c.Score == nil || c.Score.BaseCatalog != 100 || c.Score.HeadCatalog != 75 {
		t.Errorf("score %+v", c.Score)
	}
}

func TestCompareVerdicts(t *testing.T) {
	base, head := loadFixture(t, "base.json"), loadFixture(t, "head.json")
	if v := Compare(head, head).Verdict; v != VerdictUnchanged {
		t.Errorf("head vs head: %s", v)
	}
	if v := Compare(head, base).Verdict; v != VerdictImproved {
		t.Errorf("head → base fixes two failures: %s", v)
	}
	// Only a behaviour change: a call resolves later, nothing fails.
	b2 := loadFixture(t, "base.json")
	b2.Scenarios.Cases[0].Calls[0].EndMs += 250
	c := Compare(base, b2)
	if c.Verdict != VerdictChanged || len(c.Changes) != 1 {
		t.Errorf("resolves-at change: %s %+v", c.Verdict, c.Changes)
	}
	// A lower operator score alone is a regression.
	b3 := loadFixture(t, "base.json")
	b3.Mutation.OperatorScore -= 1
	if v := Compare(base, b3).Verdict; v != VerdictRegressed {
		t.Errorf("lower score: %s", v)
	}
	// A missing side is not compared, and not a failure.
	b4 := loadFixture(t, "base.json")
	b4.Mutation = nil
	if c := Compare(base, b4); c.Score != nil || c.Verdict != VerdictUnchanged {
		t.Errorf("no mutation in head: %s %+v", c.Verdict, c.Score)
	}
}

// A head that left part of its table without a verdict, against a base
// that covered its own, has regressed: by cases of its index (--case), or
// by files of its table; both partial (or base partial alone) is no
// regression of head's.
func TestCompareHeadPartial(t *testing.T) {
	base := loadFixture(t, "base.json")
	var idx []results.IndexEntry
	for _, c := range base.Scenarios.Cases {
		idx = append(idx, results.IndexEntry{ID: c.ID, File: c.File})
	}
	base.Scenarios.Index = idx
	head := loadFixture(t, "base.json")
	head.Scenarios.Index = append(idx, results.IndexEntry{ID: "not-run", File: "t/x.yaml"})
	c := Compare(base, head)
	if c.Verdict != VerdictRegressed || c.HeadPartial != fmt.Sprintf("1 of the table's %d cases did not run", len(idx)+1) {
		t.Errorf("head with a case of its index not run: %s %q, want regressed", c.Verdict, c.HeadPartial)
	}
	if c := Compare(head, head); c.Verdict == VerdictRegressed || c.HeadPartial != "" {
		t.Errorf("both partial: %s %q, want no regression", c.Verdict, c.HeadPartial)
	}
	if c := Compare(head, base); c.Verdict == VerdictRegressed {
		t.Errorf("base partial, head whole: %s, want no regression", c.Verdict)
	}
	files := loadFixture(t, "base.json")
	files.Scenarios.Table = &results.Table{Dir: "t", Files: []string{files.Scenarios.Cases[0].File, "t/never.yaml"}}
	if c := Compare(base, files); c.Verdict != VerdictRegressed || c.HeadPartial != "1 of the table's 2 scenario files did not run" {
		t.Errorf("head with a file of its table not run: %s %q, want regressed", c.Verdict, c.HeadPartial)
	}
}
