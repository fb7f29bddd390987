package suggestions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suggest"
	"github.com/waitsim/waitsim/workspace"
	"golang.org/x/sync/errgroup"
)

// Mutant is one mutant of the campaign, as the gate judged it.
type Mutant struct {
	ID     string
	Intent string
	Status string // verdict.StatusSurvived is searched, verdict.StatusKilled has its file removed
	// Build returns the mutant's test binary of the scenario suite; a
	// *campaign.NotViable error says its build failed again.
	Build func(ctx context.Context) (suggest.Build, error)
}

// Outcome is what a survivor's search gave: the case (Suggested, its YAML,
// and File, relative to Plan.Root), or Note, why there is none. A mutant
// that was not searched has the zero Outcome.
type Outcome struct {
	Suggested string
	File      string
	Note      string
}

// Plan is what the searches share.
type Plan struct {
	Root     string        // the module root
	Dir      string        // the suggestion directory, absolute
	Head     suggest.Build // head's build of the scenario suite
	SuiteDir string        // the suite's package directory, where its binaries run
	Workers  int           // searches at once (at least 1)
	Tmp      string        // a private scratch directory
	Progress io.Writer     // progress lines; nil: none
	// Command prepares a child process that ends with the campaign
	// (workspace.GroupCommand with the campaign's environment).
	Command func(ctx context.Context, dir, name string, args ...string) *exec.Cmd
}

// RunLimit bounds one run of a suite binary by a search (40 worlds, about
// a second), before it is multiplied by the searches at once: a bound, not
// a measurement.
const RunLimit = time.Minute

// Run searches for a case for every survivor of ms and returns their
// outcomes, index by index. The error is a runner's own failure (or ctx's);
// then no file was written or removed.
func Run(ctx context.Context, p Plan, ms []Mutant) ([]Outcome, error) {
	outs := make([]Outcome, len(ms))
	writes := map[string][]byte{} // path → content; nil removes it
	var searches []int
	for k, m := range ms {
		file := filepath.Join(p.Dir, suggest.CaseName(m.ID)+".yaml")
		switch m.Status {
		case verdict.StatusSurvived:
			searches = append(searches, k)
		case verdict.StatusKilled:
			writes[file] = nil
		}
	}
	at := max(min(p.Workers, len(searches)), 1)
	var mu sync.Mutex // writes, outs and Progress
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(at)
	for _, k := range searches {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err // another search failed, or the run was interrupted
			}
			f, note, searched, err := p.one(gctx, ms[k], k, at, &mu)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			file := filepath.Join(p.Dir, suggest.CaseName(ms[k].ID)+".yaml")
			switch {
			case f == nil:
				outs[k].Note = note
				if searched {
					writes[file] = nil
				}
			default:
				writes[file] = f.YAML
				outs[k].Suggested = string(f.YAML)
				outs[k].File = mutation.RelTo(p.Root, file)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
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
			return nil, err
		}
	}
	return outs, nil
}

// one searches for a case that kills survivor m (its place k in the
// campaign names its scratch directory). It returns the case, or nil and a
// note saying why there is none; searched is false when no search ran to its
// end (the mutant's build failed again, or the search did), and then its
// suggestion file, if any, is left as it is. The error is a runner's own
// failure (or ctx's). The search's wall-time budget and a run's limit are
// their defaults multiplied by at, the number of searches running at once.
// mu guards the progress lines.
func (p Plan) one(ctx context.Context, m Mutant, k, at int, mu *sync.Mutex) (f *suggest.Found, note string, searched bool, err error) {
	mb, err := m.Build(ctx)
	var nv *campaign.NotViable
	if errors.As(err, &nv) {
		return nil, "its build failed again: " + verdict.FirstLine(nv.Out), false, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	tmp := filepath.Join(p.Tmp, fmt.Sprint(k))
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, "", false, err
	}
	progress := func(format string, args ...any) {
		if p.Progress != nil {
			mu.Lock()
			fmt.Fprintf(p.Progress, format, args...)
			mu.Unlock()
		}
	}
	progress("suggest: searching generated worlds for %s\n", m.ID)
	start := time.Now()
	f, note, err = suggest.Search(ctx, suggest.Job{ID: m.ID, Intent: m.Intent, Head: p.Head, Mutant: mb,
		Run: p.runner(time.Duration(at) * RunLimit), Tmp: tmp, Budget: time.Duration(at) * suggest.DefaultBudget})
	what := "none found"
	if f != nil {
		what = "found " + f.Name
	}
	progress("suggest: %s: %s (%.1fs)\n", m.ID, what, time.Since(start).Seconds())
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", false, ctx.Err()
		}
		return nil, "the search failed: " + err.Error(), false, nil
	}
	return f, note, true, nil
}

// runner runs a suite binary for package suggest, in the suite's
// directory, as the campaign's own child (killed with it), within limit.
func (p Plan) runner(limit time.Duration) suggest.Runner {
	return func(ctx context.Context, b suggest.Build, args ...string) error {
		ctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		cmd := p.Command(ctx, p.SuiteDir, b.Bin, args...)
		cmd.Env = append(append([]string{}, cmd.Env...), b.Env...)
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			return fmt.Errorf("%s %v: %v", filepath.Base(b.Bin), args, ctx.Err())
		}
		if code := workspace.ExitCode(err); code != 0 && code != 1 {
			return fmt.Errorf("%s exited %d: %s", filepath.Base(b.Bin), code, campaign.Tail(string(out), 600))
		}
		return nil
	}
}
