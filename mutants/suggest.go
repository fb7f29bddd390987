package mutants

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/waitsim/waitsim/mutants/suggestions"
	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suggest"
)

// suggestAll is `--suggest` (issue 12 item 4, package suggestions): for
// every survivor of the campaign, a search for a case that kills it,
// recorded on the mutant (MutantResult.Suggested) and written to
// Config.SuggestDir. It runs after the campaign, while its builds (the
// baseline binary, the schemata binary) are still there.
func (r *runner) suggestAll(ctx context.Context, muts []*mutant, res *verdict.Result) error {
	if !r.cfg.Suggest {
		return nil
	}
	if r.suite.Pkg != "./scenarios/" {
		res.Notes = append(res.Notes, "--suggest needs the scenario suite ./scenarios/; nothing suggested")
		return nil
	}
	byID := map[string]int{}
	for i, m := range res.Mutants {
		byID[m.ID] = i
	}
	var ms []suggestions.Mutant
	var at []int // ms[k] is res.Mutants[at[k]]
	for n, m := range muts {
		i, ok := byID[m.res.ID]
		if !ok || m.res.Source == verdict.SourceSanity {
			continue
		}
		ms = append(ms, suggestions.Mutant{ID: m.res.ID, Intent: m.res.Intent, Status: res.Mutants[i].Status,
			Build: func(ctx context.Context) (suggest.Build, error) { return r.suggestBuild(ctx, m, n) }})
		at = append(at, i)
	}
	outs, err := suggestions.Run(ctx, suggestions.Plan{Root: r.cfg.Root, Dir: r.cfg.Abs(r.cfg.SuggestDir),
		Head: suggest.Build{Bin: r.baseBin}, SuiteDir: r.suite.Dir, Workers: r.cfg.Workers,
		Tmp: filepath.Join(r.tmp, "suggest"), Progress: r.cfg.Progress, Command: r.command}, ms)
	if err != nil {
		return err
	}
	for k, o := range outs {
		mr := &res.Mutants[at[k]]
		mr.Suggested, mr.SuggestedFile, mr.SuggestNote = o.Suggested, o.File, o.Note
	}
	return nil
}

// suggestBuild is m's test binary: the schemata binary with its switch, or
// its own build through its overlay (n, its place in the campaign, names
// the build's directory).
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
