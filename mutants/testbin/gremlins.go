package testbin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/workspace"
)

// dryRunFlag is the go flag of gremlins' dry run (Gremlins): its
// coverage run runs no test.
const dryRunFlag = "-run=^$"

// Gremlins runs gremlins unleash (workspace.GremlinsArgs) on the target
// directory (a package path relative to Root) with output to a JSON file in
// g.Tmp, dry (enumerate only) or not (gremlins' own campaign, with workers
// workers). Its temporary copies of the module go to g.Tmp (TMPDIR), and its
// test cache trap is defeated with GOFLAGS=-count=1: a cached coverage run
// would otherwise give it a near-zero timeout baseline. It returns the JSON,
// the wall time and gremlins' exit code (10/11 are its thresholds).
func (g *Go) Gremlins(ctx context.Context, target string, workers int, dry bool) ([]byte, time.Duration, int, error) {
	out := filepath.Join(g.Tmp, fmt.Sprintf("gremlins-%v.json", dry))
	args := append(workspace.GremlinsArgs(g.Root), "unleash", "--output", out)
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
		args = append(args, "--workers", fmt.Sprint(workers), "--timeout-coefficient", "15")
	}
	args = append(args, target)
	gtmp := filepath.Join(g.Tmp, "gremlins-tmp")
	if err := os.MkdirAll(gtmp, 0o755); err != nil {
		return nil, 0, 0, err
	}
	cmd := g.Command(ctx, g.Root, "go", args...)
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
		env = append(env, "GOFLAGS="+strings.TrimSpace(g.GoFlags+" "+dryRunFlag))
	} else {
		env = append(env, "GOFLAGS="+strings.TrimSpace(g.GoFlags+" -count=1"))
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
		code = workspace.ExitCode(err)
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
