package testrun

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/results"
)

// CheckSchemata runs the schemata binary bin (the -test.run pattern run)
// with no mutant switched on, with no timeout (it runs beside the baseline,
// before the mutants' timeout is known): ok when it passes. With sites (the
// hot runner), a second run beside it records the mutation sites each case
// runs from the mutated packages' state at init, the first those it runs
// in the table's order (results.Params.Sites); what they recorded, merged
// (testbin.MergeSites), is s (nil: none). dir holds the records.
func (tr *Runner) CheckSchemata(ctx context.Context, bin, run, dir string, sites bool) (ok bool, s *testbin.Sites, err error) {
	warm, fresh := filepath.Join(dir, "sites-warm.json"), filepath.Join(dir, "sites-fresh.json")
	params := func(out string, fresh bool) results.Params {
		_ = os.Remove(out) // a record is never read from an earlier run
		if !sites {
			return results.Params{}
		}
		return results.Params{Sites: out, SitesFresh: fresh}
	}
	var wg sync.WaitGroup
	var frep Report
	var ferr error
	if sites {
		p := params(fresh, true)
		wg.Go(func() { frep, ferr = tr.Run(ctx, bin, run, 0, nil, p) })
	}
	rep, err := tr.Run(ctx, bin, run, 0, nil, params(warm, false))
	wg.Wait()
	if err == nil {
		err = ferr
	}
	if err != nil || rep.Exit != 0 || rep.TimedOut {
		return false, nil, err
	}
	if sites && frep.Exit == 0 && !frep.TimedOut {
		s = testbin.MergeSites(testbin.ReadSites(fresh), testbin.ReadSites(warm))
	}
	return true, s, nil
}
