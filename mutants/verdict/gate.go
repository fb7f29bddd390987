package verdict

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/waitsim/waitsim/workspace"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Exit codes of `waitsim mutate` (document them in README.md).
const (
	ExitPass          = 0 // the gate passed
	ExitGateFailed    = 1 // a catalog mutant survived or timed out and is not an accepted survivor, or was not viable or no longer applies; or the operator score (without accepted survivors) is below its threshold
	ExitUsage         = 2 // bad flags or configuration (catalog, equivalents, .gremlins.yaml, --diff ref)
	ExitUntrusted     = 3 // the baseline failed, or the sanity mutant was not killed: no verdict can be trusted
	ExitNothingTested = 4 // zero mutants were tested
	ExitError         = 5 // the runner itself failed (go, git or gremlins could not run)
	ExitEnvironment   = 6 // the machine failed the campaign (ErrEnvironment: no space left, a process killed by a signal, a missing toolchain), or another campaign holds the tree: no verdict, nothing cached or written
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
// out) in percent for operator mutants, killed / all catalog mutants for
// the catalog (100 when nothing was scored: see CatalogScored and
// OperatorScored); the gate passes a score equal to its threshold. With
// --diff (DiffRef set), no mutant at all on the changed lines passes.
// With a ratchet (Result.Ratchet), a catalog survivor the accepted file
// lists is not a failure, and the operator threshold is judged without the
// operator survivors it lists; the scores themselves still count them.
func Evaluate(res *Result) {
	evaluateGenerator(res)
	evaluateRatchet(res)
	res.Counts = map[string]int{}
	var catK, catN, opK, opN, opAccepted int
	var opNew []string
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
			catN++
			if killed {
				catK++
			}
			_, accepted := res.Ratchet.accepted(m.ID)
			switch {
			case m.Status == StatusKilled, survives(m.Status) && accepted:
			case survives(m.Status) && res.Ratchet != nil:
				catBad = append(catBad, m.ID+" ("+m.Status+", not in "+res.Ratchet.File+")")
			default:
				catBad = append(catBad, m.ID+" ("+m.Status+")")
			}
		case SourceGremlins:
			if scored {
				opN++
				if killed {
					opK++
				}
				if _, accepted := res.Ratchet.accepted(m.ID); accepted && !killed {
					opAccepted++
				} else if !killed {
					opNew = append(opNew, m.ID)
				}
			}
		}
	}
	res.CatalogScore, res.CatalogScored = score(catK, catN), catN
	res.OperatorScore, res.OperatorScored = score(opK, opN), opN
	res.MedianMutantMs = median(durs)
	if res.ExitCode == ExitUntrusted && (res.Baseline != nil || strings.HasPrefix(res.Gate, "baseline failed")) {
		return
	}
	res.ExitCode = ExitPass
	switch {
	case sanity != nil && sanity.Status != StatusKilled:
		res.Gate = fmt.Sprintf("the sanity mutant was %s, not killed: the overlay does not reach the suite %s, so no verdict can be trusted", OrNotRun(sanity.Status), res.Suite.Pkg)
		res.ExitCode = ExitUntrusted
		return
	case tested == 0 && res.Shard == "" && res.DiffRef != "" && len(res.Counts) == 0:
		res.Gate = "pass: no mutants on lines changed since " + res.DiffRef
		return
	case tested == 0 && res.Shard == "" && len(catBad) == 0:
		// A catalog mutant that no longer applies (or is not viable) is
		// the gate's failure below, not "nothing tested".
		res.Gate = "zero mutants were tested"
		res.ExitCode = ExitNothingTested
		return
	}
	if len(catBad) > 0 {
		reasons = append(reasons, fmt.Sprintf("%d catalog mutant(s) not killed: %s", len(catBad), strings.Join(catBad, ", ")))
	}
	if judged := opN - opAccepted; res.Shard == "" && judged > 0 && Below(opK, judged, res.Threshold) {
		sc, th := ScoreAndThreshold(opK, judged, res.Threshold)
		what := "operator mutation score"
		if opAccepted > 0 {
			what = fmt.Sprintf("operator mutation score without the %d accepted survivor(s) of %s", opAccepted, res.Ratchet.File)
		}
		from := configName(res) + " unleash.threshold.efficacy"
		if configName(res) == "-" {
			from = "the default: no " + workspace.GremlinsConfig + " sets unleash.threshold.efficacy"
		}
		reason := fmt.Sprintf("%s %s (%d of %d killed) is below the threshold %s (%s)", what, sc, opK, judged, th, from)
		if res.Ratchet != nil {
			reason += fmt.Sprintf(": %d new survivor(s), not in %s: %s", len(opNew), res.Ratchet.File, strings.Join(First(opNew, 5), ", "))
		}
		reasons = append(reasons, reason)
	}
	if len(reasons) > 0 {
		res.Gate = strings.Join(reasons, "; ")
		res.ExitCode = ExitGateFailed
		return
	}
	res.Gate = "pass"
}

// StopAtBaseline records on r that its campaign stopped at its baseline:
// the kill suite failed on the unmutated code (why says how, bf which cases
// and the command that reproduces it), so no mutant ran and no verdict can
// be trusted (ExitUntrusted). Evaluate keeps this gate.
func (r *Result) StopAtBaseline(why string, bf *BaselineFailure) {
	r.Gate = "baseline failed: " + why
	r.Baseline = bf
	r.ExitCode = ExitUntrusted
}

func orNone(s string) string {
	if s == "" {
		return "(none recorded)"
	}
	return s
}

// OrNotRun is s, or "not run" when s is empty.
func OrNotRun(s string) string {
	if s == "" {
		return "not run"
	}
	return s
}

// score is k/n in percent, unrounded (100 when n is 0: see
// Result.OperatorScored). It is for display: the gate compares exact
// fractions (Below).
func score(k, n int) float64 {
	if n == 0 {
		return 100
	}
	return float64(k) * 100 / float64(n)
}

// Below reports whether the score k/n (in percent) is below threshold, in
// exact arithmetic: the threshold is read as the decimal it is written as
// (its shortest representation), never rounded, and neither is the score.
// So 46/47 (97.872…%) is below 97.88, and 2000/2001 below 100.
func Below(k, n int, threshold float64) bool {
	th, ok := new(big.Rat).SetString(strconv.FormatFloat(threshold, 'g', -1, 64))
	if !ok {
		th = new(big.Rat).SetFloat64(threshold)
	}
	sc := big.NewRat(int64(k)*100, int64(max(n, 1)))
	return sc.Cmp(th) < 0
}

// ScoreAndThreshold formats the score k/n and the threshold, both in
// percent, with one decimal, or with as many more as it takes for a score
// below the threshold not to print as equal to it or above it (never
// "50.0% is below the threshold 50.0%").
func ScoreAndThreshold(k, n int, threshold float64) (string, string) {
	sc := score(k, n)
	below := Below(k, n, threshold)
	for d := 1; d < 12; d++ {
		a, b := strconv.FormatFloat(sc, 'f', d, 64), strconv.FormatFloat(threshold, 'f', d, 64)
		fa, _ := strconv.ParseFloat(a, 64)
		fb, _ := strconv.ParseFloat(b, 64)
		if below == (fa < fb) {
			return a + "%", b + "%"
		}
	}
	return strconv.FormatFloat(sc, 'g', -1, 64) + "%", strconv.FormatFloat(threshold, 'g', -1, 64) + "%"
}

// FormatScore formats a score in percent for people: "n/a" when nothing
// was scored, else one decimal, or as many more as it takes for a score
// below the threshold not to print as reaching it (99.95% against 100 is
// "99.95%", never "100.0%"). Give threshold 100 for the catalog score.
func FormatScore(score float64, scored int, threshold float64) string {
	if scored == 0 {
		return "n/a"
	}
	for d := 1; d < 12; d++ {
		a := strconv.FormatFloat(score, 'f', d, 64)
		fa, _ := strconv.ParseFloat(a, 64)
		if (score < threshold) == (fa < threshold) {
			return a + "%"
		}
	}
	return strconv.FormatFloat(score, 'g', -1, 64) + "%"
}

// configName is the config file the threshold came from (--config), as
// the run's options record it (workspace.GremlinsConfig when unknown; "-"
// when there was none and the threshold is the default).
func configName(res *Result) string {
	for _, f := range strings.Fields(res.Options) {
		if v, ok := strings.CutPrefix(f, "config="); ok && v != "" {
			return v
		}
	}
	return workspace.GremlinsConfig
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
// zero-mutants rule apply here). names are the shards' file names, for the
// errors (default "result i"). The shards must all be present once, agree on
// n, version, options, suite, commit, threshold and campaign, and each must
// hold exactly its share of the campaign's mutants; otherwise the error
// wraps ErrUsage and names the shard. A shard whose baseline failed, or
// whose sanity mutant was not killed, makes the merged result ExitUntrusted
// (also when every shard failed so). The sanity mutant is kept killed only
// if every shard killed it.
func Merge(shards []*Result, names ...string) (*Result, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: merge: no shard results", ErrUsage)
	}
	name := func(i int) string {
		if i < len(names) && names[i] != "" {
			return names[i]
		}
		return fmt.Sprintf("result %d", i+1)
	}
	fail := func(format string, args ...any) (*Result, error) {
		return nil, fmt.Errorf("%w: merge: "+format, append([]any{ErrUsage}, args...)...)
	}
	ref := shards[0]
	parsed := make([]Shard, len(shards))
	byK := map[int]int{}
	for i, s := range shards {
		sh, err := ParseShard(s.Shard)
		if err != nil {
			return fail("%s is not a shard result (shard %q): run it with --shard k/n", name(i), s.Shard)
		}
		parsed[i] = sh
		if err := s.Check(); err != nil {
			return fail("%s: %v", name(i), err)
		}
		switch {
		case s.Version != ResultVersion:
			return fail("%s has result version %d, want %d", name(i), s.Version, ResultVersion)
		case sh.N != parsed[0].N:
			return fail("%s is shard %s, %s is shard %s: the shards split the campaign differently", name(i), s.Shard, name(0), ref.Shard)
		case s.Options != ref.Options:
			return fail("%s ran with options %q, %s with %q: every shard must run with the same options", name(i), s.Options, name(0), ref.Options)
		case s.Suite.Pkg != ref.Suite.Pkg || s.Suite.Run != ref.Suite.Run:
			return fail("%s ran suite %s %q, %s ran %s %q", name(i), s.Suite.Pkg, s.Suite.Run, name(0), ref.Suite.Pkg, ref.Suite.Run)
		case s.Commit != ref.Commit:
			return fail("%s is of commit %q, %s of %q: every shard must run on the same commit", name(i), s.Commit, name(0), ref.Commit)
		case s.Tree != ref.Tree:
			return fail("%s ran on tree %.12s, %s on tree %.12s (commit %q): the shards saw different files; run every shard on the same tree", name(i), orNone(s.Tree), name(0), orNone(ref.Tree), ref.Commit)
		case s.Threshold != ref.Threshold:
			return fail("%s has operator threshold %.1f%%, %s %.1f%%", name(i), s.Threshold, name(0), ref.Threshold)
		case !sameInput(s.Ratchet, ref.Ratchet):
			return fail("%s ran with %s, %s with %s: every shard must run with the same accepted survivors", name(i), describeRatchet(s.Ratchet), name(0), describeRatchet(ref.Ratchet))
		}
		if j, dup := byK[sh.K]; dup {
			return fail("%s and %s are both shard %s", name(j), name(i), s.Shard)
		}
		byK[sh.K] = i
	}
	n := parsed[0].N
	for k := 1; k <= n; k++ {
		if _, ok := byK[k]; !ok {
			return fail("shard %d/%d is missing (given: %s)", k, n, strings.Join(namesOf(len(shards), name), ", "))
		}
	}
	out := &Result{Version: ResultVersion, Commit: ref.Commit, Tree: ref.Tree, Suite: ref.Suite, Threshold: ref.Threshold, Options: ref.Options, DiffRef: ref.DiffRef,
		Ratchet: ref.Ratchet.input()}
	var untrusted []string
	var camp *Campaign
	campFrom := 0
	owner := map[string]int{}
	notes := map[string]bool{}
	var sanity *MutantResult
	for i, s := range shards {
		out.BaselineMs = max(out.BaselineMs, s.BaselineMs)
		out.WallMs = max(out.WallMs, s.WallMs)
		out.TimeoutMs = max(out.TimeoutMs, s.TimeoutMs)
		if out.Gremlins == nil {
			out.Gremlins = s.Gremlins
		}
		if g := s.Generator; g != nil {
			if out.Generator == nil || (out.Generator.Note == "" && g.Note != "") {
				gg := *g
				out.Generator = &gg
			}
			out.Generator.BaselineMs = max(out.Generator.BaselineMs, g.BaselineMs)
			out.Generator.TimeoutMs = max(out.Generator.TimeoutMs, g.TimeoutMs)
		}
		for _, note := range s.Notes {
			if !notes[note] {
				notes[note] = true
				out.Notes = append(out.Notes, note)
			}
		}
		if s.ExitCode == ExitUntrusted {
			untrusted = append(untrusted, fmt.Sprintf("%s (shard %s): %s", name(i), s.Shard, s.Gate))
			if out.Baseline == nil {
				out.Baseline = s.Baseline
			}
			continue
		}
		if s.Campaign == nil {
			return fail("%s (shard %s) records no campaign: it was written by an older waitsim; run it again", name(i), s.Shard)
		}
		if camp == nil {
			camp, campFrom = s.Campaign, i
		} else if *s.Campaign != *camp {
			return fail("%s selected %d mutants (ids %.12s), %s selected %d (ids %.12s): the shards are of different campaigns", name(i), s.Campaign.Total, s.Campaign.IDsHash, name(campFrom), camp.Total, camp.IDsHash)
		}
		count := 0
		for _, m := range s.Mutants {
			if m.Source == SourceSanity {
				if sanity == nil || m.Status != StatusKilled {
					mm := m
					sanity = &mm
				}
				continue
			}
			count++
			if j, dup := owner[m.ID]; dup {
				return fail("mutant %s is in both %s and %s", m.ID, name(j), name(i))
			}
			owner[m.ID] = i
			out.Mutants = append(out.Mutants, m)
		}
		if want := shareOf(camp.Total, parsed[i]); count != want {
			return fail("%s (shard %s) holds %d mutants, its share of the campaign's %d is %d: was it run with --only, or interrupted?", name(i), s.Shard, count, camp.Total, want)
		}
	}
	sort.SliceStable(out.Mutants, func(i, j int) bool { return out.Mutants[i].ID < out.Mutants[j].ID })
	if len(untrusted) == 0 {
		ids := make([]string, len(out.Mutants))
		for i, m := range out.Mutants {
			ids[i] = m.ID
			if k := parsed[owner[m.ID]].K; !(Shard{K: k, N: n}).Has(i) {
				return fail("%s (shard %s) holds mutant %s, which is not in its share of the campaign", name(owner[m.ID]), shards[owner[m.ID]].Shard, m.ID)
			}
		}
		if camp != nil && IDsHash(ids) != camp.IDsHash {
			return fail("the shards' mutants are not the campaign's their results record")
		}
		out.Campaign = camp
	}
	if sanity != nil {
		out.Mutants = append([]MutantResult{*sanity}, out.Mutants...)
	}
	Evaluate(out)
	if len(untrusted) > 0 {
		out.Gate = strings.Join(untrusted, "; ")
		out.ExitCode = ExitUntrusted
	}
	return out, nil
}

func namesOf(n int, name func(int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = name(i)
	}
	return out
}

// shareOf is how many of total mutants fall in shard s.
func shareOf(total int, s Shard) int {
	switch {
	case total <= 0:
		return 0
	case s.N <= 1:
		return total
	}
	// The i in [0, total) with i % N == K-1 (Shard.Has), counted without
	// a loop: a total a file gives (9e18) cost minutes of CPU.
	n := total / s.N
	if total%s.N > s.K-1 {
		n++
	}
	return n
}

// IDsHash is Campaign.IDsHash of ids (sorted).
func IDsHash(ids []string) string {
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ErrUsage wraps configuration errors (exit code ExitUsage).
var ErrUsage = errors.New("usage")

// CampaignProblem says what in r's mutant list does not fit a campaign
// waitsim ran ("" when it fits): mutants without the sanity mutant (every
// campaign, and every shard, runs it first), a Campaign whose Total is not
// the number of mutants it lists (its shard's share of it, for a shard),
// a Campaign without the hash of its ids (IDsHash), or, for a whole
// campaign, one whose hash is not that of the ids listed, or a threshold
// outside 0–100 %. A report shows no gate of such a file.
func (r *Result) CampaignProblem() string {
	n, sanity := 0, false
	for _, m := range r.Mutants {
		if m.Source == SourceSanity {
			sanity = true
		} else {
			n++
		}
	}
	if n > 0 && !sanity {
		return fmt.Sprintf("mutants: %d mutants and no sanity mutant (a campaign runs it first, and trusts no verdict without it killed)", n)
	}
	if math.IsNaN(r.Threshold) || r.Threshold < 0 || r.Threshold > 100 {
		return fmt.Sprintf("operatorThreshold: %v is not a percentage (0 to 100)", r.Threshold)
	}
	if r.Campaign == nil {
		return ""
	}
	want := r.Campaign.Total
	if r.Shard != "" {
		s, err := ParseShard(r.Shard)
		if err != nil {
			return "shard: " + err.Error()
		}
		want = shareOf(r.Campaign.Total, s)
	}
	if n != want {
		return fmt.Sprintf("campaign.total: the campaign selected %d mutants, this file lists %d of them (want %d): it was cut, or is not the campaign's", r.Campaign.Total, n, want)
	}
	if r.Campaign.IDsHash == "" {
		return "campaign.idsHash: missing: a campaign records the hash of its mutants' ids, so that a file cut down cannot pass for it"
	}
	if r.Shard != "" {
		return "" // a shard lists its share: merge checks the hash
	}
	ids := make([]string, 0, n)
	for _, m := range r.Mutants {
		if m.Source != SourceSanity {
			ids = append(ids, m.ID)
		}
	}
	sort.Strings(ids)
	if h := IDsHash(ids); h != r.Campaign.IDsHash {
		return fmt.Sprintf("campaign.idsHash: %.12s… is not the hash of the %d mutant ids this file lists (%.12s…): its mutants are not the campaign's (cut, or edited)", r.Campaign.IDsHash, n, h)
	}
	return ""
}
