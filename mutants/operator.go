package mutants

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"
)

// dryRunFlag is the go flag of gremlins' dry run (runGremlins): its
// coverage run runs no test.
const dryRunFlag = "-run=^$"

// runGremlins runs gremlins unleash (workspace.GremlinsArgs) on the target directory with
// output to a JSON file in tmp, dry (enumerate only) or not (gremlins' own
// campaign). Its temporary copies of the module go to tmp (TMPDIR), and its
// test cache trap is defeated with GOFLAGS=-count=1: a cached coverage run
// would otherwise give it a near-zero timeout baseline. It returns the JSON,
// the wall time and gremlins' exit code (10/11 are its thresholds).
func (r *runner) runGremlins(ctx context.Context, dry bool) ([]byte, time.Duration, int, error) {
	out := filepath.Join(r.tmp, fmt.Sprintf("gremlins-%v.json", dry))
	args := append(workspace.GremlinsArgs(r.cfg.Root), "unleash", "--output", out)
	if dry {
		// One worker: gremlins copies the whole module (.git and out/
		// included) into a directory of each worker's before it looks at
		// its mutants, in a dry run too, which runs none. With two workers
		// the enumeration of ./waittool/ after a one-line edit took
		// 4.8–5.5 s (sys 6.8–7.4 s), with one 2.6–3.6 s, the same 61
		// mutants (fresh clone, 2 December 2026).
		args = append(args, "--dry-run", "--workers", "1")
	} else {
		// Its timeout is 3 × the coverage run, which finds its build in
		// the cache, while every mutant rebuilds: with the default almost
		// every mutant "times out". 15 was measured to leave none so.
		args = append(args, "--workers", fmt.Sprint(r.cfg.Workers), "--timeout-coefficient", "15")
	}
	args = append(args, r.cfg.Target)
	gtmp := filepath.Join(r.tmp, "gremlins-tmp")
	if err := os.MkdirAll(gtmp, 0o755); err != nil {
		return nil, 0, 0, err
	}
	cmd := r.command(ctx, r.cfg.Root, "go", args...)
	env := append([]string{}, cmd.Env...)
	env = append(env, "TMPDIR="+gtmp)
	if dry {
		// Its dry run gathers coverage first, running the target's tests
		// (all of them, whatever the kill suite), only to mark each
		// mutant covered or not; the gate runs every mutant anyway
		// (mutation.OperatorSite), so -run=^$ lets that run run no test:
		// the same mutants, listed. packs/waitagents' 685, each run in a
		// new clone: coverage gathered in 24.8 and 21.8 s before, 5.4 and
		// 5.9 s after (3 December 2026).
		env = append(env, "GOFLAGS="+strings.TrimSpace(r.goflags+" "+dryRunFlag))
	} else {
		env = append(env, "GOFLAGS="+strings.TrimSpace(r.goflags+" -count=1"))
	}
	cmd.Env = env
	start := time.Now()
	b, err := cmd.CombinedOutput()
	wall := time.Since(start)
	code := 0
	if err != nil {
		if ctx.Err() != nil {
			return nil, wall, 0, ctx.Err()
		}
		code = testrun.ExitCode(err)
		if dry || code != 10 && code != 11 {
			return nil, wall, code, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, campaign.Tail(string(b), 2000))
		}
	}
	j, err := limits.Read(out, limits.Results)
	if err != nil {
		return nil, wall, code, fmt.Errorf("gremlins wrote no output: %v\n%s", mutation.LimitsError(out, err), campaign.Tail(string(b), 2000))
	}
	return j.Src, wall, code, nil
}

// measureGremlins runs gremlins' own campaign on the target (after the
// gate's, so that the two do not share the CPU) and compares its verdicts
// with res's operator mutants: a mutant gremlins counts KILLED that the gate
// found not viable is gremlins' known fault (it counts a mutant that does not
// compile as killed).
func (r *runner) measureGremlins(ctx context.Context, res *verdict.Result) (*verdict.GremlinsRun, error) {
	b, wall, code, err := r.runGremlins(ctx, false)
	if err != nil {
		return nil, err
	}
	_, status, err := mutation.ParseGremlinsOutput(b, r.cfg.Target)
	if err != nil {
		return nil, err
	}
	g := &verdict.GremlinsRun{WallMs: wall.Milliseconds(), Statuses: map[string]int{}, ExitCode: code}
	for _, st := range status {
		g.Statuses[st]++
		switch st {
		case "KILLED", "LIVED", "NOT VIABLE", "TIMED OUT":
			g.Tested++
		}
	}
	if g.Tested > 0 {
		g.PerMutantMs = float64(g.WallMs) / float64(g.Tested)
	}
	for _, m := range res.Mutants {
		st, ok := status[m.ID]
		if !ok || m.Source != verdict.SourceGremlins {
			continue
		}
		switch {
		case st == "KILLED" && m.Status == verdict.StatusNotViable:
			g.Disagreements = append(g.Disagreements, m.ID+": gremlins KILLED, but it is not viable ("+verdict.FirstLine(m.Detail)+")")
		case st == "TIMED OUT" && m.Status != verdict.StatusTimedOut:
			g.Disagreements = append(g.Disagreements, m.ID+": gremlins TIMED OUT, the gate: "+m.Status)
		}
	}
	sort.Strings(g.Disagreements)
	return g, nil
}
