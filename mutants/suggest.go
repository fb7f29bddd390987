package mutants

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suggest"
	"golang.org/x/sync/errgroup"
)

// suggestAll is `--suggest` (issue 12 item 4): for every survivor of the
// campaign, a search (package suggest) for a generated world that tells the
// mutant's build and head's apart, shrunk and written as a table case to
// Config.SuggestDir/<case name>.yaml, and recorded on the mutant
// (MutantResult.Suggested). A file there for a mutant this campaign killed
// is removed: a suggestion is never left for a killed mutant. Nothing else
// is written, the source tree never. It runs after the campaign, while its
// builds (the baseline binary, the schemata binary) are still there.
func (r *runner) suggestAll(ctx context.Context, muts []*mutant, res *verdict.Result) error {
	if !r.cfg.Suggest {
		return nil
	}
	if r.suite.Pkg != "./scenarios/" {
		res.Notes = append(res.Notes, "--suggest needs the scenario suite ./scenarios/; nothing suggested")
		return nil
	}
	dir := r.cfg.Abs(r.cfg.SuggestDir)
	byID := map[string]int{}
	for i, m := range res.Mutants {
		byID[m.ID] = i
	}
	head := suggest.Build{Bin: r.baseBin}
	// Files are written and removed only once every search is done: an
	// interrupted run changes nothing. The searches share nothing but the
	// head build, which they only run: up to Workers of them run at once,
	// each its own mutant's (a search runs head and its mutant side by
	// side, and between runs writes and loads its worlds in this process).
	writes := map[string][]byte{} // path → content; nil removes it
	type search struct {
		m    *mutant
		n, i int // its place in muts, in res.Mutants
		file string
	}
	var searches []search
	for n, m := range muts {
		i, ok := byID[m.res.ID]
		if !ok || m.res.Source == verdict.SourceSanity {
			continue
		}
		file := filepath.Join(dir, suggest.CaseName(m.res.ID)+".yaml")
		switch res.Mutants[i].Status {
		case verdict.StatusSurvived:
			searches = append(searches, search{m, n, i, file})
		case verdict.StatusKilled:
			writes[file] = nil
		}
	}
	// Searches that share the machine each get their time as many times
	// over as run at once (their wall-time budget, and a run's limit):
	// one that ends alone is not cut short beside others.
	at := max(min(r.cfg.Workers, len(searches)), 1)
	var mu sync.Mutex // writes, res.Mutants and Progress
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(at)
	for _, s := range searches {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err // another search failed, or the run was interrupted
			}
			f, note, searched, err := r.suggestOne(gctx, s.m, s.n, head, at, &mu)
			mu.Lock()
			defer mu.Unlock()
			mr := &res.Mutants[s.i]
			switch {
			case err != nil:
				return err
			case f == nil:
				mr.SuggestNote = note
				if searched {
					writes[s.file] = nil
				}
			default:
				writes[s.file] = f.YAML
				mr.Suggested = string(f.YAML)
				mr.SuggestedFile = mutation.RelTo(r.cfg.Root, s.file)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for file, b := range writes {
		var err error
		if b == nil {
			err = os.Remove(file)
			if errors.Is(err, os.ErrNotExist) {
				err = nil
			}
		} else {
			err = campaign.WriteAtomic(file, b, ".suggest-*")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// suggestOne searches for a case that kills survivor m (its n-th place in
// the campaign names its scratch directories). It returns the case, or nil
// and a note saying why there is none; searched is false when no search
// ran to its end (the mutant's build failed again, or the search did),
// and then its suggestion file, if any, is left as it is. The error is the
// runner's own failure (or ctx's). The search's wall-time budget and a
// run's limit are their defaults multiplied by at, the number of searches
// running at once. mu guards the progress lines.
func (r *runner) suggestOne(ctx context.Context, m *mutant, n int, head suggest.Build, at int, mu *sync.Mutex) (f *suggest.Found, note string, searched bool, err error) {
	mb, err := r.suggestBuild(ctx, m, n)
	var nv *campaign.NotViable
	if errors.As(err, &nv) {
		return nil, "its build failed again: " + verdict.FirstLine(nv.Out), false, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	tmp := filepath.Join(r.tmp, "suggest", fmt.Sprint(n))
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, "", false, err
	}
	progress := func(format string, args ...any) {
		if r.cfg.Progress != nil {
			mu.Lock()
			fmt.Fprintf(r.cfg.Progress, format, args...)
			mu.Unlock()
		}
	}
	progress("suggest: searching generated worlds for %s\n", m.res.ID)
	start := time.Now()
	f, note, err = suggest.Search(ctx, suggest.Job{ID: m.res.ID, Intent: m.res.Intent, Head: head, Mutant: mb,
		Run: r.suggestRunner(time.Duration(at) * suggestRunLimit), Tmp: tmp, Budget: time.Duration(at) * suggest.DefaultBudget})
	what := "none found"
	if f != nil {
		what = "found " + f.Name
	}
	progress("suggest: %s: %s (%.1fs)\n", m.res.ID, what, time.Since(start).Seconds())
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", false, ctx.Err()
		}
		return nil, "the search failed: " + err.Error(), false, nil
	}
	return f, note, true, nil
}

// suggestBuild is m's test binary: the schemata binary with its switch, or
// its own build through its overlay.
func (r *runner) suggestBuild(ctx context.Context, m *mutant, n int) (suggest.Build, error) {
	if m.switchN != 0 && r.schemaBin != "" {
		return suggest.Build{Bin: r.schemaBin, Env: []string{fmt.Sprintf("%s=%d", testbin.SchemaEnv, m.switchN)}}, nil
	}
	dir := filepath.Join(r.tmp, "suggest", fmt.Sprintf("build%d", n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return suggest.Build{}, err
	}
	ov, err := r.testbin().OverlayFile(dir, m.files)
	if err != nil {
		return suggest.Build{}, err
	}
	bin := filepath.Join(dir, "suite.test")
	return suggest.Build{Bin: bin}, r.testbin().Build(ctx, ov, bin)
}

// suggestRunLimit bounds one run of a suite binary for package suggest (40
// worlds, about a second): a bound, not a measurement.
const suggestRunLimit = time.Minute

// suggestRunner runs a suite binary for package suggest, in the suite's
// directory, as the runner's own child (killed with it), within limit.
func (r *runner) suggestRunner(limit time.Duration) suggest.Runner {
	return func(ctx context.Context, b suggest.Build, args ...string) error {
		ctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		cmd := r.command(ctx, r.suite.Dir, b.Bin, args...)
		cmd.Env = append(append([]string{}, cmd.Env...), b.Env...)
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			return fmt.Errorf("%s %v: %v", filepath.Base(b.Bin), args, ctx.Err())
		}
		if code := testrun.ExitCode(err); code != 0 && code != 1 {
			return fmt.Errorf("%s exited %d: %s", filepath.Base(b.Bin), code, campaign.Tail(string(out), 600))
		}
		return nil
	}
}
