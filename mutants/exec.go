package mutants

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/results"
)

// runSuite runs the suite's test binary bin through test2json, in the suite
// package's directory (as `go test` does), with the suite's -test.run
// pattern and env added to its environment, killing it after timeout (0: no
// limit). A kill by the parent ctx
// returns ctx's error.
func (r *runner) runSuite(ctx context.Context, bin string, timeout time.Duration, env ...string) (testrun.Report, error) {
	return r.runWith(ctx, bin, r.suite.Run, timeout, nil, results.Params{}, env...)
}

// runWith runs bin with the -test.run pattern run and flags added, handing
// it params (testrun.Runner.Run).
func (r *runner) runWith(ctx context.Context, bin, run string, timeout time.Duration, flags []string, params results.Params, env ...string) (testrun.Report, error) {
	return r.testrun().Run(ctx, bin, run, timeout, flags, params, env...)
}

// testrun is how the runner runs the suite's test binary (testrun.Runner),
// made from the runner's state as it is now.
func (r *runner) testrun() *testrun.Runner {
	return &testrun.Runner{Env: r.env, Pkg: r.suite.Pkg, Dir: r.suite.Dir, Test2json: r.test2json, Tmp: r.tmp, ParamsN: &r.paramsN}
}

// cleanOutput shortens compiler output: temporary overlay paths become the
// paths they stand for.
func (r *runner) cleanOutput(s string) string {
	s = r.srcRe.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, r.tmp+string(filepath.Separator), "$TMP/")
	return campaign.Tail(s, 3000)
}
