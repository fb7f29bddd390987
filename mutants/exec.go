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
	if err := r.waitTest2json(ctx); err != nil {
		return testrun.Report{}, err
	}
	return r.testrun().Run(ctx, bin, run, timeout, flags, params, env...)
}

// waitTest2json waits for setup's look-up of the test2json binary, which
// every run of a test binary of its own goes through (testrun.Runner.Run),
// and returns its error.
func (r *runner) waitTest2json(ctx context.Context) error {
	select {
	case <-r.test2jsonReady:
		return r.test2jsonErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// testrun is how the runner runs the suite's test binary (testrun.Runner),
// made from the runner's state as it is now.
func (r *runner) testrun() *testrun.Runner {
	t2j := "" // not known yet: only a hot process is started then (waitTest2json)
	select {
	case <-r.test2jsonReady:
		t2j = r.test2json
	default:
	}
	return &testrun.Runner{Env: r.env, Pkg: r.suite.Pkg, Dir: r.suite.Dir, Test2json: t2j, Tmp: r.tmp, ParamsN: &r.paramsN}
}

// cleanOutput shortens compiler output: temporary overlay paths become the
// paths they stand for.
func (r *runner) cleanOutput(s string) string {
	s = r.srcRe.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, r.tmp+string(filepath.Separator), "$TMP/")
	return campaign.Tail(s, 3000)
}
