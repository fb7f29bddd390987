package mutants

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suggest"
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
	// interrupted run changes nothing.
	writes := map[string][]byte{} // path → content; nil removes it
	for n, m := range muts {
		i, ok := byID[m.res.ID]
		if !ok || m.res.Source == verdict.SourceSanity {
			continue
		}
		file := filepath.Join(dir, suggest.CaseName(m.res.ID)+".yaml")
		if res.Mutants[i].Status != verdict.StatusSurvived {
			if res.Mutants[i].Status == verdict.StatusKilled {
				writes[file] = nil
			}
			continue
		}
		mb, err := r.suggestBuild(ctx, m, n)
		var nv *campaign.NotViable
		if errors.As(err, &nv) {
			res.Mutants[i].SuggestNote = "its build failed again: " + verdict.FirstLine(nv.Out)
			continue
		}
		if err != nil {
			return err
		}
		tmp := filepath.Join(r.tmp, "suggest", fmt.Sprint(n))
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return err
		}
		if r.cfg.Progress != nil {
			fmt.Fprintf(r.cfg.Progress, "suggest: searching generated worlds for %s\n", m.res.ID)
		}
		start := time.Now()
		f, note, err := suggest.Search(ctx, suggest.Job{ID: m.res.ID, Intent: m.res.Intent, Head: head, Mutant: mb,
			Run: r.suggestRunner(), Tmp: tmp})
		if r.cfg.Progress != nil {
			what := "none found"
			if f != nil {
				what = "found " + f.Name
			}
			fmt.Fprintf(r.cfg.Progress, "suggest: %s: %s (%.1fs)\n", m.res.ID, what, time.Since(start).Seconds())
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			res.Mutants[i].SuggestNote = "the search failed: " + err.Error()
			continue
		}
		if f == nil {
			res.Mutants[i].SuggestNote = note
			writes[file] = nil
			continue
		}
		writes[file] = f.YAML
		res.Mutants[i].Suggested = string(f.YAML)
		res.Mutants[i].SuggestedFile = mutation.RelTo(r.cfg.Root, file)
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

// suggestRunner runs a suite binary for package suggest, in the suite's
// directory, as the runner's own child (killed with it), within a minute.
func (r *runner) suggestRunner() suggest.Runner {
	return func(ctx context.Context, b suggest.Build, args ...string) error {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
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
