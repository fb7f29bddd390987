package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/waitsim/waitsim/sim/timeline"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suitebin"
	"github.com/waitsim/waitsim/workspace"
)

// RunFunc runs one campaign (mutants.Run): the command's way to the
// runner, which imports this package, never the other way.
type RunFunc func(context.Context, campaign.Config) (*verdict.Result, error)

// Main is `waitsim mutate`: it runs the gate (or, with the sub-command
// "merge", joins shard results), writes the result JSON, prints a summary to
// stdout and progress to stderr, and returns the exit code (see the Exit
// constants). SIGINT and SIGTERM stop the run: children are killed, the
// temporary directory removed, nothing is written, and the exit code is
// 130 or 143. args excludes "mutate".
func Main(args []string, stdout, stderr io.Writer, run RunFunc) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var got os.Signal
	done := make(chan struct{})
	defer close(done)
	sigSeen := make(chan os.Signal, 1)
	go func() {
		select {
		case s := <-sigs:
			sigSeen <- s
			cancel()
		case <-done:
		}
	}()
	code := Command(ctx, args, stdout, stderr, run)
	select {
	case got = <-sigSeen:
	default:
	}
	if got != nil {
		name, code := "SIGINT", verdict.ExitInterrupted
		if got == syscall.SIGTERM {
			name, code = "SIGTERM", verdict.ExitTerminated
		}
		fmt.Fprintf(stderr, "waitsim mutate: interrupted (%s); the tree was not touched, nothing was written\n", name)
		return code
	}
	return code
}

// Command is Main without the signal handling: ctx's cancellation is the
// interrupt.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer, run RunFunc) int {
	if len(args) > 0 && args[0] == "merge" {
		return mergeCommand(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("waitsim mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg campaign.Config
	var shard, only, out, cache, progressMode string
	var noCache bool
	fs.StringVar(&cfg.Root, "root", "", "module root (default: the directory of the nearest go.mod)")
	fs.StringVar(&cfg.SuitePkg, "pkg", "", "the kill suite's package (default: the package of the test that calls waitsim.Run; in waitsim's module "+workspace.OwnSuitePkg+", which without test files falls back to "+workspace.OwnTarget+")")
	fs.StringVar(&cfg.SuiteRun, "run", "", "the kill suite's -test.run pattern (default: that test; ignored on the fallback)")
	fs.StringVar(&cfg.Target, "target", "", "the package whose operator mutants gremlins enumerates (default: the kill suite's package when it holds code; in waitsim's module "+workspace.OwnTarget+")")
	fs.StringVar(&cfg.CatalogDir, "catalog", "", "the semantic catalog's directory (default "+workspace.UserCatalog+", none when it does not exist; in waitsim's module "+workspace.OwnCatalog+")")
	fs.StringVar(&cfg.Equivalents, "equivalents", "", "the committed list of equivalent operator mutants (default "+workspace.UserEquivalents+"; in waitsim's module "+workspace.OwnEquivalents+"; a missing file lists none)")
	fs.StringVar(&cfg.Accepted, "accepted", "", "the committed list of accepted survivors, each with a reason: the gate fails only on a survivor it does not list (default "+workspace.UserAccepted+"; in waitsim's module "+workspace.OwnAccepted+"; a missing file lists none)")
	fs.StringVar(&cfg.GremlinsCfg, "config", "", "gremlins' config: unleash.threshold.efficacy is the operator-score threshold (default "+workspace.GremlinsConfig+"; without one outside waitsim's module, 100)")
	fs.IntVar(&cfg.Workers, "workers", 0, "parallel mutants, ≥ 1; 0 means the number of cores")
	fs.StringVar(&shard, "shard", "", "run shard `k/n` of the campaign (join the shards' results with: waitsim mutate merge)")
	fs.StringVar(&cfg.DiffRef, "diff", "", "only mutants on lines changed since this git ref")
	fs.StringVar(&cache, "cache", workspace.MutationCache, "incremental cache file")
	fs.BoolVar(&noCache, "no-cache", false, "run every mutant, ignoring and not updating the cache")
	fs.StringVar(&out, "out", workspace.MutationResults, "the result JSON")
	fs.Float64Var(&cfg.TimeoutFactor, "timeout-factor", campaign.DefaultTimeoutFactor, "a mutant's test run times out after this many baseline runs (> 0)…")
	fs.DurationVar(&cfg.TimeoutFloor, "timeout-floor", campaign.DefaultTimeoutFloor, "…but never sooner than this (> 0; build time is not counted)")
	fs.BoolVar(&cfg.NoOperators, "no-operators", false, "skip gremlins' operator mutants")
	fs.BoolVar(&cfg.NoCatalog, "no-catalog", false, "skip the semantic catalog")
	fs.BoolVar(&cfg.NoVet, "no-vet", false, "skip the go vet viability check")
	fs.StringVar(&only, "only", "", "only mutants whose id matches this regexp")
	fs.BoolVar(&cfg.AllKillers, "all-killers", false, "run every case for each mutant and list every killer (default: a mutant's run stops at its first failing case; the same verdicts)")
	fs.BoolVar(&cfg.MeasureGremlins, "measure-gremlins", false, "also run gremlins' own campaign on the target and record its per-mutant time")
	fs.StringVar(&cfg.Runner, "runner", campaign.RunnerHot, "hot (a long-lived test process per worker runs mutant after mutant) or cold (a process per mutant); the same verdicts")
	fs.StringVar(&cfg.Mode, "mode", campaign.ModeSchemata, "schemata (mutants inside function bodies share one test binary) or overlay (one test binary per mutant)")
	fs.IntVar(&cfg.GenWorlds, "generator", 0, fmt.Sprintf("the generator campaign: each mutant's build also runs the scenario generator (--generator-run) on this many worlds, and its kill rate is reported beside the table's; 0: none (default: %d in waitsim's own module with the suite ./scenarios/ and the target ./waittool/, else 0)", campaign.DefaultGenWorlds))
	fs.StringVar(&cfg.GenRun, "generator-run", campaign.DefaultGenRun, "the generator's -test.run pattern")
	fs.BoolVar(&cfg.Suggest, "suggest", false, "for every survivor, search generated worlds for a case that kills it and write it to --suggest-dir/<case>.yaml")
	fs.StringVar(&cfg.SuggestDir, "suggest-dir", "", "where --suggest writes its cases (relative to the module root; default "+workspace.SuggestDir+")")
	fs.StringVar(&progressMode, "progress", "auto", "auto, tty (one line with done/total and ETA), plain (a line per mutant) or off")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: waitsim mutate [flags]\n       waitsim mutate merge [-o "+workspace.MutationResults+"] SHARD.json...\n\nflags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, exitCodesHelp)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return verdict.ExitPass
		}
		return verdict.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "waitsim mutate: unexpected arguments %q\n", fs.Args())
		return verdict.ExitUsage
	}
	switch {
	case cfg.Workers < 0:
		fmt.Fprintf(stderr, "waitsim mutate: --workers %d: want ≥ 1, or 0 for the number of cores\n", cfg.Workers)
		return verdict.ExitUsage
	case !(cfg.TimeoutFactor > 0) || math.IsInf(cfg.TimeoutFactor, 0):
		fmt.Fprintf(stderr, "waitsim mutate: --timeout-factor %v: want a number > 0\n", cfg.TimeoutFactor)
		return verdict.ExitUsage
	case cfg.TimeoutFloor <= 0:
		fmt.Fprintf(stderr, "waitsim mutate: --timeout-floor %v: want a duration > 0\n", cfg.TimeoutFloor)
		return verdict.ExitUsage
	}
	var err error
	if cfg.Root == "" {
		if cfg.Root, err = findRoot(); err != nil {
			fmt.Fprintln(stderr, "waitsim mutate:", err)
			return verdict.ExitUsage
		}
	}
	if cfg.Root, err = filepath.Abs(cfg.Root); err != nil {
		fmt.Fprintln(stderr, "waitsim mutate:", err)
		return verdict.ExitUsage
	}
	if shard != "" {
		if cfg.Shard, err = verdict.ParseShard(shard); err != nil {
			fmt.Fprintln(stderr, "waitsim mutate:", err)
			return verdict.ExitUsage
		}
	}
	if only != "" {
		if cfg.Only, err = regexp.Compile(only); err != nil {
			fmt.Fprintln(stderr, "waitsim mutate: --only:", err)
			return verdict.ExitUsage
		}
	}
	if !flagSet(fs, "generator") && workspace.IsOwn(cfg.Root) && (cfg.SuitePkg == "" || cfg.SuitePkg == workspace.OwnSuitePkg) &&
		(cfg.Target == "" || cfg.Target == workspace.OwnTarget) {
		cfg.GenWorlds = campaign.DefaultGenWorlds // the generator is waitsim's scenario suite's, and it judges the reference tool
	}
	if cfg.GenWorlds < 0 {
		fmt.Fprintf(stderr, "waitsim mutate: --generator %d: want ≥ 0 worlds\n", cfg.GenWorlds)
		return verdict.ExitUsage
	}
	if !noCache {
		cfg.CacheFile = cache
	}
	// Where test binaries and gremlins' enumeration are kept (as `waitsim
	// run` keeps its binary): the user cache directory unless set.
	cfg.BinDir = os.Getenv(suitebin.DirEnv)
	switch progressMode {
	case "auto":
		cfg.Progress, cfg.TTY = stderr, isTerminal(stderr)
	case "tty":
		cfg.Progress, cfg.TTY = stderr, true
	case "plain":
		cfg.Progress = stderr
	case "off":
	default:
		fmt.Fprintf(stderr, "waitsim mutate: --progress %q: want auto, tty, plain or off\n", progressMode)
		return verdict.ExitUsage
	}
	if cfg.Runner != campaign.RunnerHot && cfg.Runner != campaign.RunnerCold {
		fmt.Fprintf(stderr, "waitsim mutate: --runner %q: want hot or cold\n", cfg.Runner)
		return verdict.ExitUsage
	}
	if cfg.Mode != campaign.ModeSchemata && cfg.Mode != campaign.ModeOverlay {
		fmt.Fprintf(stderr, "waitsim mutate: --mode %q: want schemata or overlay\n", cfg.Mode)
		return verdict.ExitUsage
	}
	// Every place the campaign writes is checked before it starts.
	if err := checkOutputs(&cfg, out); err != nil {
		fmt.Fprintf(stderr, "waitsim mutate: %v; nothing ran\n", err)
		return verdict.ExitUsage
	}
	// One campaign per tree at a time.
	lock, err := campaign.LockTree(cfg.Root)
	if err != nil {
		fmt.Fprintf(stderr, "waitsim mutate: %v; nothing ran\n", err)
		if errors.Is(err, campaign.ErrEnvironment) {
			return verdict.ExitEnvironment
		}
		return verdict.ExitUsage
	}
	defer lock.Release()
	res, err := run(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return verdict.ExitInterrupted
		}
		fmt.Fprintln(stderr, "waitsim mutate:", err)
		switch {
		case errors.Is(err, verdict.ErrUsage):
			return verdict.ExitUsage
		case errors.Is(err, campaign.ErrEnvironment):
			return verdict.ExitEnvironment
		}
		return verdict.ExitError
	}
	return finishCommand(res, cfg.Root, out, stdout, stderr)
}

// checkOutputs checks that the campaign of cfg can write its result out
// (relative to cfg.Root), its cache and, with --suggest, its suggested
// cases (campaign.CheckOutputFile, campaign.CheckOutputDir).
func checkOutputs(cfg *campaign.Config, out string) error {
	if err := campaign.CheckOutputFile("--out", outPath(cfg.Root, out)); err != nil {
		return err
	}
	if cfg.CacheFile != "" {
		if err := campaign.CheckOutputFile("--cache", cfg.Abs(cfg.CacheFile)); err != nil {
			return err
		}
	}
	if cfg.Suggest {
		dir := cfg.SuggestDir
		if dir == "" {
			dir = workspace.SuggestDir
		}
		if err := campaign.CheckOutputDir("--suggest-dir", cfg.Abs(dir)); err != nil {
			return err
		}
	}
	return nil
}

// outPath is the result file out, relative to root unless absolute.
func outPath(root, out string) string {
	if !filepath.IsAbs(out) {
		return filepath.Join(root, out)
	}
	return out
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

const exitCodesHelp = `
exit codes: 0 pass (also with accepted survivors), 1 gate failed (a catalog survivor not in the
accepted file, a catalog mutant not viable or no longer applying, or the operator score without
the accepted survivors below its threshold), 2 usage or configuration error (also: merge of an
incomplete or inconsistent set of shards), 3 baseline failed or sanity mutant not killed
(in any shard), 4 zero mutants tested, 5 runner error, 6 environment error (the machine, not
a mutant: no space left, a process killed by a signal, a missing toolchain; or another campaign
holds the tree's out/mutate.lock; nothing cached or written), 130/143 interrupted (SIGINT/SIGTERM)
`

func mergeCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("waitsim mutate merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", workspace.MutationResults, "the merged result JSON")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: waitsim mutate merge [-o "+workspace.MutationResults+"] SHARD.json...\n\n"+
			"joins the results of shards 1/n … n/n (waitsim mutate --shard k/n) of one campaign and judges\n"+
			"the whole: every shard once, run with the same options on the same commit.\n\nflags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, exitCodesHelp)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return verdict.ExitPass
		}
		return verdict.ExitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "waitsim mutate merge: no shard results given")
		fs.Usage()
		return verdict.ExitUsage
	}
	root, _ := os.Getwd()
	if err := campaign.CheckOutputFile("-o", outPath(root, *out)); err != nil {
		fmt.Fprintf(stderr, "waitsim mutate merge: %v; nothing merged\n", err)
		return verdict.ExitUsage
	}
	var shards []*verdict.Result
	for _, p := range fs.Args() {
		text, err := limits.Read(p, limits.Results)
		if err != nil {
			fmt.Fprintln(stderr, "waitsim mutate merge:", mutation.LimitsError(p, err))
			return verdict.ExitUsage
		}
		var r verdict.Result
		if err := json.Unmarshal(text.Src, &r); err != nil {
			fmt.Fprintf(stderr, "waitsim mutate merge: %s: %v\n", p, err)
			return verdict.ExitUsage
		}
		shards = append(shards, &r)
	}
	res, err := verdict.Merge(shards, fs.Args()...)
	if err != nil {
		fmt.Fprintln(stderr, "waitsim mutate merge:", err)
		return verdict.ExitUsage
	}
	return finishCommand(res, root, *out, stdout, stderr)
}

// finishCommand writes res to out (relative to root) and prints the summary.
func finishCommand(res *verdict.Result, root, out string, stdout, stderr io.Writer) int {
	out = outPath(root, out)
	if err := WriteResult(out, res); err != nil {
		fmt.Fprintln(stderr, "waitsim mutate:", err)
		return verdict.ExitError
	}
	Summary(stdout, res)
	fmt.Fprintf(stdout, "result: %s\n", mutation.RelTo(root, out))
	return res.ExitCode
}

// WriteResult writes res as indented JSON to path, atomically (a temporary
// file in the same directory renamed over it).
func WriteResult(path string, res *verdict.Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return campaign.WriteAtomic(path, append(b, '\n'), ".mutation-*.json")
}

// Summary prints the campaign for a human: every mutant that was not killed,
// the counts, scores, costs and the gate's verdict; for a failed baseline,
// the failing cases and the command that reproduces them.
func Summary(w io.Writer, res *verdict.Result) {
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", verdict.FirstLine(n))
	}
	if b := res.Baseline; b != nil {
		fmt.Fprintf(w, "%s\n", res.Gate)
		if len(b.Failed) > 0 {
			fmt.Fprintf(w, "failing cases: %s\n", strings.Join(verdict.First(b.Failed, 10), ", "))
		} else if l := firstLines(b.Output, 3); l != "" {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(l, "\n", "\n    "))
		}
		fmt.Fprintf(w, "repro: %s\n", b.Repro)
		fmt.Fprintf(w, "mutants: none run\n")
		fmt.Fprintf(w, "gate: %s (exit %d)\n", res.Gate, res.ExitCode)
		return
	}
	for _, m := range res.Mutants {
		if m.Status == verdict.StatusKilled {
			continue
		}
		// An intent comes from a catalog file or a result file: one line,
		// so that none can forge a line of the log (a workflow command).
		fmt.Fprintf(w, "%-23s %-8s %s — %s\n", verdict.OrNotRun(m.Status), timeline.OneLine(m.Source), timeline.OneLine(m.ID), timeline.OneLine(m.Intent))
		verdict.RatchetMutantNote(w, res, m)
		if m.Status != verdict.StatusSurvived {
			if l := firstLines(m.Detail, 3); l != "" {
				fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(l, "\n", "\n    "))
			}
		}
	}
	keys := make([]string, 0, len(res.Counts))
	for k := range res.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, res.Counts[k]))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	shard := ""
	if res.Shard != "" {
		shard = " (shard " + res.Shard + ")"
	}
	fmt.Fprintf(w, "mutants%s: %s\n", shard, strings.Join(parts, ", "))
	if res.DiffRef != "" && len(res.Counts) == 0 {
		fmt.Fprintf(w, "no mutants on lines changed since %s\n", res.DiffRef)
	}
	fmt.Fprintf(w, "scores: catalog %s, operator %s (threshold %s%%); suite %s %s\n",
		pctOrNA(res.CatalogScore, res.CatalogScored, 100), pctOrNA(res.OperatorScore, res.OperatorScored, res.Threshold),
		strconv.FormatFloat(res.Threshold, 'f', -1, 64), res.Suite.Pkg, res.Suite.Run)
	median := fmt.Sprintf("median %d ms per mutant run (build + test run)", res.MedianMutantMs)
	if res.MedianMutantMs == 0 {
		median = "median n/a (no mutant was built and run: every verdict came from the cache or needed no run)"
	}
	if l := verdict.GeneratorLine(res); l != "" {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "time: %.1fs wall, baseline run %d ms, mutant timeout %d ms (of the test run alone; a mutant's time adds its build), %s\n",
		float64(res.WallMs)/1000, res.BaselineMs, res.TimeoutMs, median)
	if g := res.Gremlins; g != nil {
		fmt.Fprintf(w, "gremlins' own campaign: %.1fs wall, %d mutants tested, %.0f ms per mutant\n", float64(g.WallMs)/1000, g.Tested, g.PerMutantMs)
		if n := len(res.Mutants); n > 0 && res.WallMs > 0 && g.PerMutantMs > 0 {
			// The same measure on both sides: a campaign's wall time over
			// the mutants it decided, in one run (issue 13 item 6).
			per := float64(res.WallMs) / float64(n)
			fmt.Fprintf(w, "per mutant: waitsim %.0f ms (wall over %d mutants), gremlins %.0f ms: waitsim %.1f× faster\n", per, n, g.PerMutantMs, g.PerMutantMs/per)
		}
		for _, d := range g.Disagreements {
			fmt.Fprintf(w, "    %s\n", d)
		}
	}
	verdict.RatchetSummary(w, res)
	fmt.Fprintf(w, "gate: %s (exit %d)\n", res.Gate, res.ExitCode)
}

// pctOrNA is "n/a" when nothing was scored, else the score in percent
// (FormatScore) and the count scored.
func pctOrNA(score float64, scored int, threshold float64) string {
	if scored == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s of %d", verdict.FormatScore(score, scored, threshold), scored)
}

// firstLines is the first n non-blank lines of s, trimmed, with a colon
// header joined to the line after it ("does not type-check: x.go:3: …").
func firstLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if k := len(out); k > 0 && strings.HasSuffix(out[k-1], ":") {
			out[k-1] += " " + l
			continue
		}
		if len(out) == n {
			break
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod here or above")
		}
		dir = parent
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("CI") == ""
}
