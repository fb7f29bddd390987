package testbin

import (
	"encoding/json"
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/waitsim/waitsim/results"
)

// Mutation sites. A case can kill a mutant only if it runs the code the
// mutant changed: a case that never reaches that code runs the mutant's
// build exactly as it runs the original (the simulation is deterministic),
// and passes. So a schemata binary also marks, in each changed function's
// original body, the statement where each mutant's change lies (its site):
//
//	if waitsimSitesOn.Load() { waitsimSite(7) }; <the statement>
//
// on the statement's own line. The schemata binary's check (its runs with
// no mutant switched on: one in the table's order, one with each case from
// the mutated packages' state at init) turns the marks on
// (results.Params.Sites) and the door records, case by case, the sites that
// ran (a results.Sites file; the two merged by MergeSites); a hot request
// then runs only the cases that reach its mutant's site
// (results.HotRequest.Only). The site is the innermost statement of a
// statement list (a block, a case or select clause) that holds the whole
// change; control reaches any part of it only through its start, since
// functions with a goto are left out (their mutants are marked at the
// function's start, as are changes no statement list holds). A change
// across sibling statements is marked before the first of them, an
// insertion between two before the one it follows.

// Names in a schemata package's code for the sites (switchFile).
const (
	sitesOnVar   = "waitsimSitesOn"
	siteFunc     = "waitsimSite"
	sitesFlagPre = "waitsim.sites." // hot.SitesFlagPrefix
)

// siteMark is the statement that marks the sites ns as run.
func siteMark(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return "if " + sitesOnVar + ".Load() { " + siteFunc + "(" + strings.Join(s, ", ") + ") }; "
}

// siteOf returns the offset in the file (from f.FileStart) of the
// statement before which the change of fd's original text orig[lo:hi]
// (file offsets; lo == hi for an insertion) is marked, or -1 when it is
// marked at the function's start: fd has a goto, or the change lies in no
// statement list of the body. The statement is the first of the innermost
// list holding the change that ends at or after lo: a change after a
// statement's end, up to the next one's start, is only reached through it.
func siteOf(f *ast.File, fd *ast.FuncDecl, lo, hi int) int {
	if fd.Body == nil {
		return -1
	}
	off := func(p token.Pos) int { return int(p - f.FileStart) }
	best, hasGoto := -1, false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BranchStmt:
			hasGoto = hasGoto || n.Tok == token.GOTO
		case *ast.BlockStmt:
			list = n.List
			if len(list) > 0 {
				switch list[0].(type) {
				case *ast.CaseClause, *ast.CommClause:
					list = nil // a switch's or select's clauses, not statements
				}
			}
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		}
		// Inspect visits an outer list before the lists inside it: the
		// last list that holds the change is the innermost.
		if len(list) > 0 && off(list[0].Pos()) <= lo && hi <= off(list[len(list)-1].End()) {
			for _, s := range list {
				if off(s.End()) >= lo {
					best = off(s.Pos())
					break
				}
			}
		}
		return true
	})
	if hasGoto {
		return -1
	}
	return best
}

// changed is the range of a that differs from b, by their common prefix
// and suffix: a[lo:hi].
func changed(a, b string) (lo, hi int) {
	for lo < len(a) && lo < len(b) && a[lo] == b[lo] {
		lo++
	}
	s := 0
	for s < len(a)-lo && s < len(b)-lo && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return lo, len(a) - s
}

// Sites is the record of the sites each case of the kill suite ran, as a
// schemata binary's check wrote it (results.Sites); nil: none.
type Sites results.Sites

// ReadSites reads a record (the check's, or the copy a kept binary's
// checked mark holds); nil when the file holds none.
func ReadSites(path string) *Sites {
	s, err := results.ReadSites(path)
	if err != nil {
		return nil
	}
	return (*Sites)(&s)
}

// SitesBytes is s as its file holds it (results.WriteSites); empty for nil.
func SitesBytes(s *Sites) []byte {
	if s == nil {
		return nil
	}
	b, _ := json.Marshal(results.Sites(*s))
	return b
}

// MergeSites merges the records of the check's two runs: fresh, each case
// from the mutated packages' state at init, and warm, the cases in the
// table's order, each from what the cases before it left. A case reaches
// what it reached in either; a site that some case reached in one run and
// not in the other depends on what earlier cases left (a cache built once,
// then hit) and is put with the sites every case reaches (Before). Nil
// when either is nil or they hold different cases.
func MergeSites(fresh, warm *Sites) *Sites {
	if fresh == nil || warm == nil || len(fresh.Cases) != len(warm.Cases) {
		return nil
	}
	before := union(fresh.Before, warm.Before)
	cases := map[string][]int{}
	for name, f := range fresh.Cases {
		w, ok := warm.Cases[name]
		if !ok {
			return nil
		}
		all := union(f, w)
		for _, n := range all {
			if slices.Contains(f, n) != slices.Contains(w, n) {
				before = append(before, n)
			}
		}
		cases[name] = all
	}
	return &Sites{Cases: cases, Before: union(before, nil)}
}

// union is the numbers of a and b, sorted, each once.
func union(a, b []int) []int {
	return slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a), b...))))
}

// Select returns the cases that can kill the mutant of switch n, those
// that ran its site: in order (go test names), then those order does not
// hold (cases the baseline did not time: skipped ones), by name. cases are
// every case of the kill suite (the baseline's index). ok is false, and
// order is returned as it is (nothing can be left out), when the record
// does not hold exactly these cases or when the site ran before the first
// case (every case can).
func (s *Sites) Select(order []string, cases map[string]results.CaseRef, n int) (out []string, ok bool) {
	if s == nil || len(s.Cases) != len(cases) || slices.Contains(s.Before, n) {
		return order, false
	}
	for name := range s.Cases {
		if _, ok := cases[name]; !ok {
			return order, false
		}
	}
	out = []string{}
	for _, name := range order {
		if slices.Contains(s.Cases[name], n) {
			out = append(out, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Cases)) {
		if slices.Contains(s.Cases[name], n) && !slices.Contains(order, name) {
			out = append(out, name)
		}
	}
	return out, true
}
