package mutants

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Exit codes of `waitsim mutate` (document them in README.md).
const (
	ExitPass          = 0 // the gate passed
	ExitGateFailed    = 1 // a catalog mutant survived, timed out, was not viable or no longer applies; or the operator score is below its threshold
	ExitUsage         = 2 // bad flags or configuration (catalog, equivalents, .gremlins.yaml, --diff ref)
	ExitUntrusted     = 3 // the baseline failed, or the sanity mutant was not killed: no verdict can be trusted
	ExitNothingTested = 4 // zero mutants were tested
	ExitError         = 5 // the runner itself failed (go, git or gremlins could not run)
	ExitInterrupted   = 130
	ExitTerminated    = 143
)

// Evaluate computes res's counts, scores, median cost, gate and exit code
// from its mutants (issue 5's gate). A result whose baseline failed keeps
// its gate and ExitUntrusted. Otherwise, in order of precedence:
// the sanity mutant not killed → ExitUntrusted; zero mutants tested
// (killed, survived, timed out or equivalent; shards are judged at merge) →
// ExitNothingTested; any catalog mutant survived, timed out, not viable or
// no longer applying, or (whole campaigns only) an operator score below
// Threshold → ExitGateFailed. Scores are killed / (killed + survived + timed
// out) in percent (100 when nothing was scored); the gate passes a score
// equal to its threshold.
func Evaluate(res *Result) {
	res.Counts = map[string]int{}
	var catK, catN, opK, opN int
	var durs []int64
	var sanity *MutantResult
	var reasons []string
	var catBad []string
	tested := 0
	for i := range res.Mutants {
		m := &res.Mutants[i]
		if m.Source == SourceSanity {
			sanity = m
			continue
		}
		res.Counts[m.Status]++
		switch m.Status {
		case StatusKilled, StatusSurvived, StatusTimedOut, StatusEquivalent:
			tested++
		}
		if !m.Cached && m.DurationMs > 0 && (m.Status == StatusKilled || m.Status == StatusSurvived || m.Status == StatusTimedOut || m.Status == StatusNotViable || m.Status == StatusEquivalent) {
			durs = append(durs, m.DurationMs)
		}
		scored := m.Status == StatusKilled || m.Status == StatusSurvived || m.Status == StatusTimedOut
		killed := m.Status == StatusKilled
		switch m.Source {
		case SourceCatalog:
			if scored {
				catN++
				if killed {
					catK++
				}
			}
			if m.Status != StatusKilled {
				catBad = append(catBad, m.ID+" ("+m.Status+")")
			}
		case SourceGremlins:
			if scored {
				opN++
				if killed {
					opK++
				}
			}
		}
	}
	res.CatalogScore = score(catK, catN)
	res.OperatorScore = score(opK, opN)
	res.MedianMutantMs = median(durs)
	if res.ExitCode == ExitUntrusted && strings.HasPrefix(res.Gate, "baseline failed") {
		return
	}
	res.ExitCode = ExitPass
	switch {
	case sanity != nil && sanity.Status != StatusKilled:
		res.Gate = fmt.Sprintf("the sanity mutant was %s, not killed: the overlay does not reach the suite %s, so no verdict can be trusted", orNotRun(sanity.Status), res.Suite.Pkg)
		res.ExitCode = ExitUntrusted
		return
	case tested == 0 && res.Shard == "":
		res.Gate = "zero mutants were tested"
		res.ExitCode = ExitNothingTested
		return
	}
	if len(catBad) > 0 {
		reasons = append(reasons, fmt.Sprintf("%d catalog mutant(s) not killed: %s", len(catBad), strings.Join(catBad, ", ")))
	}
	if res.Shard == "" && opN > 0 && res.OperatorScore < res.Threshold {
		reasons = append(reasons, fmt.Sprintf("operator mutation score %.1f%% is below the threshold %.1f%% (.gremlins.yaml unleash.threshold.efficacy)", res.OperatorScore, res.Threshold))
	}
	if len(reasons) > 0 {
		res.Gate = strings.Join(reasons, "; ")
		res.ExitCode = ExitGateFailed
		return
	}
	res.Gate = "pass"
}

func orNotRun(s string) string {
	if s == "" {
		return "not run"
	}
	return s
}

func score(k, n int) float64 {
	if n == 0 {
		return 100
	}
	return math.Round(float64(k)*1000/float64(n)) / 10
}

func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int64{}, xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Merge joins the results of the shards 1/n … n/n of one campaign into the
// result of the whole, and evaluates it (the operator threshold and the
// zero-mutants rule apply here). The shards must all be present once, agree
// on n, suite, commit and threshold, and not overlap. A shard whose baseline
// failed makes the merge fail the same way; the sanity mutant is kept killed
// only if every shard killed it.
func Merge(shards []*Result) (*Result, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: merge: no shard results", ErrUsage)
	}
	var n int
	seen := map[int]bool{}
	out := &Result{Version: ResultVersion, Commit: shards[0].Commit, Suite: shards[0].Suite, Threshold: shards[0].Threshold}
	ids := map[string]bool{}
	notes := map[string]bool{}
	var sanity *MutantResult
	for i, s := range shards {
		sh, err := ParseShard(s.Shard)
		if err != nil {
			return nil, fmt.Errorf("%w: merge: result %d is not a shard (%q)", ErrUsage, i+1, s.Shard)
		}
		if n == 0 {
			n = sh.N
		}
		switch {
		case s.Version != ResultVersion:
			return nil, fmt.Errorf("%w: merge: shard %s has result version %d, want %d", ErrUsage, s.Shard, s.Version, ResultVersion)
		case sh.N != n:
			return nil, fmt.Errorf("%w: merge: shard %s does not split into %d", ErrUsage, s.Shard, n)
		case seen[sh.K]:
			return nil, fmt.Errorf("%w: merge: shard %s given twice", ErrUsage, s.Shard)
		case s.Suite.Pkg != out.Suite.Pkg || s.Suite.Run != out.Suite.Run:
			return nil, fmt.Errorf("%w: merge: shard %s ran suite %s %q, shard %s ran %s %q", ErrUsage, s.Shard, s.Suite.Pkg, s.Suite.Run, shards[0].Shard, out.Suite.Pkg, out.Suite.Run)
		case s.Commit != out.Commit:
			return nil, fmt.Errorf("%w: merge: shard %s is of commit %s, shard %s of %s", ErrUsage, s.Shard, s.Commit, shards[0].Shard, out.Commit)
		case s.Threshold != out.Threshold:
			return nil, fmt.Errorf("%w: merge: shards disagree on the operator threshold", ErrUsage)
		}
		seen[sh.K] = true
		out.BaselineMs = max(out.BaselineMs, s.BaselineMs)
		out.WallMs = max(out.WallMs, s.WallMs)
		out.TimeoutMs = max(out.TimeoutMs, s.TimeoutMs)
		if out.Gremlins == nil {
			out.Gremlins = s.Gremlins
		}
		for _, note := range s.Notes {
			if !notes[note] {
				notes[note] = true
				out.Notes = append(out.Notes, note)
			}
		}
		if s.ExitCode == ExitUntrusted && strings.HasPrefix(s.Gate, "baseline failed") {
			out.Gate = fmt.Sprintf("shard %s: %s", s.Shard, s.Gate)
			out.ExitCode = ExitUntrusted
		}
		for _, m := range s.Mutants {
			if m.Source == SourceSanity {
				if sanity == nil || m.Status != StatusKilled {
					mm := m
					sanity = &mm
				}
				continue
			}
			if ids[m.ID] {
				return nil, fmt.Errorf("%w: merge: mutant %s is in two shards", ErrUsage, m.ID)
			}
			ids[m.ID] = true
			out.Mutants = append(out.Mutants, m)
		}
	}
	for k := 1; k <= n; k++ {
		if !seen[k] {
			return nil, fmt.Errorf("%w: merge: shard %d/%d is missing", ErrUsage, k, n)
		}
	}
	sort.SliceStable(out.Mutants, func(i, j int) bool { return out.Mutants[i].ID < out.Mutants[j].ID })
	if sanity != nil {
		out.Mutants = append([]MutantResult{*sanity}, out.Mutants...)
	}
	Evaluate(out)
	return out, nil
}
