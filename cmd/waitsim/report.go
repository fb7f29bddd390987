package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/waitsim/waitsim/workspace"

	"github.com/waitsim/waitsim/reports"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
)

// Exit codes of `waitsim report`.
const (
	reportOK        = 0   // rendered; when comparing, the verdict is not "regressed"
	reportRegressed = 1   // comparing: head regressed against base (new failure, new survivor, lower score)
	reportUsage     = 2   // bad flags, unreadable or invalid input, no scenario cases, a failed git or build step
	reportInterrupt = 130 // --base-ref: SIGINT; the worktree and its temporary directory were removed
	reportTerm      = 143 // --base-ref: SIGTERM; likewise
)

const reportUsageText = `usage:
  waitsim report [--scenarios F] [--mutation F] [--conformance F] [--commit SHA] [--seed NAME=N]... [--root DIR] [--out DIR] [--annotations]
      render one run from the producers' files (default out/scenarios.json, out/mutation.json,
      and out/conformance.json when present: the Markdown and HTML show it, run.json does not)
  waitsim report --run RUN.json [--root DIR] [--out DIR]
      render a run.json written earlier
  waitsim report --base A.json --head B.json [--root DIR] [--out DIR]
      compare two run.json files: verdict first, then what changed
  waitsim report --base-ref REF [--target DIR] [--run-cmd CMD] [--mutate-cmd CMD] [--root DIR] [--out DIR]
      check REF out in a temporary git worktree, run the table (and the mutation gate)
      there and here, and compare base REF with head (the working tree); --target DIR
      is the gate's --target (the package of your tool, as in the workflow init writes)

outputs under --out (default out/report): run.json, summary.md (job summary, ≤ 1 MiB),
comment.md (pull-request comment, ≤ 64 KB), junit.xml, mutation-report.json (Stryker),
report.html, trace/<case>.json (trace-event JSON); with --base-ref also base.json.

--annotations (any mode) also prints GitHub workflow commands on stdout: a ::warning on the
line of each new survivor of the mutation result (not in the accepted file), with its intent
and the case --suggest found; a ::notice on each accepted entry that can go or is stale.

exit: 0 rendered (comparing: not regressed), 1 head regressed against base,
      2 usage or input error (also: a scenario result without any case; the
      reports are still written and say so), 130/143 interrupted by SIGINT/SIGTERM
      during --base-ref (children stopped, worktree removed, nothing written)
`

// withTarget is report --base-ref's mutate command: the default one
// (mutateCmd, not set on the command line) with mutate's --target target
// added when target is not ""; a target beside a command of one's own is a
// usage error (it belongs in that command).
func withTarget(mutateCmd string, set bool, target string) (string, error) {
	switch {
	case target == "":
		return mutateCmd, nil
	case set:
		return "", errors.New("--target goes with the default --mutate-cmd: write --target in your command instead")
	}
	return mutateCmd + " --target " + results.ShellQuote(target), nil
}

// runReport is `waitsim report …` (see reportUsageText). args excludes
// "report". It writes progress to stderr and the verdict line to stdout.
func runReport(args []string) int {
	return reportMain(args, os.Stdout, os.Stderr)
}

func reportMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("waitsim report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsageText) }
	var (
		scenariosPath = fs.String("scenarios", "", "scenario result (default out/scenarios.json if present)")
		mutationPath  = fs.String("mutation", "", "mutation result (default out/mutation.json if present)")
		confPath      = fs.String("conformance", "", "conformance table of `make conformance` (default out/conformance.json if present; Markdown and HTML only)")
		runPath       = fs.String("run", "", "render this run.json")
		basePath      = fs.String("base", "", "base run.json to compare")
		headPath      = fs.String("head", "", "head run.json to compare")
		baseRef       = fs.String("base-ref", "", "git ref to build and compare against")
		commit        = fs.String("commit", "", "commit of the run (default: git rev-parse HEAD)")
		root          = fs.String("root", ".", "source tree of the mutated files (Stryker report)")
		outDir        = fs.String("out", filepath.FromSlash(workspace.ReportDir), "output directory")
		runCmd        = fs.String("run-cmd", waitsimCmd()+" run --json", "with --base-ref: command that writes out/scenarios.json (run in base's worktree and here)")
		mutateCmd     = fs.String("mutate-cmd", waitsimCmd()+" mutate", `with --base-ref: command that writes out/mutation.json ("" to skip)`)
		target        = fs.String("target", "", "with --base-ref: the package the default --mutate-cmd mutates (mutate's --target: the package of your tool, e.g. ./mytool/)")
		annotations   = fs.Bool("annotations", false, "also print GitHub workflow commands on stdout: a ::warning on the line of each new survivor of the mutation result (head's), a ::notice on each accepted entry that can go")
	)
	seeds := map[string]int64{}
	fs.Func("seed", "generator seed NAME=N (repeatable)", func(s string) error {
		name, val, ok := strings.Cut(s, "=")
		n, err := strconv.ParseInt(val, 10, 64)
		if !ok || name == "" || err != nil {
			return fmt.Errorf("want NAME=INTEGER, got %q", s)
		}
		seeds[name] = n
		return nil
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return reportOK
		}
		return reportUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "waitsim report: unexpected argument %q\n%s", fs.Arg(0), reportUsageText)
		return reportUsage
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "waitsim report: %v\n", err)
		return reportUsage
	}
	modes := 0
	for _, set := range []bool{*runPath != "", *basePath != "" || *headPath != "", *baseRef != "",
		*scenariosPath != "" || *mutationPath != "" || *confPath != ""} {
		if set {
			modes++
		}
	}
	if modes > 1 {
		return fail(errors.New("choose one of: --scenarios/--mutation, --run, --base/--head, --base-ref"))
	}

	var head, base *reports.Run
	var err error
	switch {
	case *basePath != "" || *headPath != "":
		if *basePath == "" || *headPath == "" {
			return fail(errors.New("--base and --head go together"))
		}
		if base, err = reports.LoadRun(*basePath); err != nil {
			return fail(err)
		}
		if head, err = reports.LoadRun(*headPath); err != nil {
			return fail(err)
		}
	case *baseRef != "":
		mutateSet := false
		fs.Visit(func(f *flag.Flag) { mutateSet = mutateSet || f.Name == "mutate-cmd" })
		if *mutateCmd, err = withTarget(*mutateCmd, mutateSet, *target); err != nil {
			return fail(err)
		}
		ctx, stop := interruptContext()
		base, head, err = buildBaseAndHead(ctx, *baseRef, *runCmd, *mutateCmd, seeds, stderr)
		// The worktree is gone once buildBaseAndHead has returned; only now
		// may a signal end the process again.
		if sig := stop(); sig != nil {
			fmt.Fprintf(stderr, "waitsim report: interrupted by %v; the commands were stopped and the base worktree removed, nothing written\n", sig)
			if sig == syscall.SIGTERM {
				return reportTerm
			}
			return reportInterrupt
		}
		if err != nil {
			return fail(err)
		}
	case *runPath != "":
		if head, err = reports.LoadRun(*runPath); err != nil {
			return fail(err)
		}
	default:
		sp, mp := *scenariosPath, *mutationPath
		if sp == "" && mp == "" {
			sp, mp = existing(filepath.FromSlash(workspace.ScenarioResults)), existing(filepath.FromSlash(workspace.MutationResults))
			if sp == "" && mp == "" {
				return fail(errors.New("no results to report: out/scenarios.json and out/mutation.json are missing (run `waitsim run --json` and `waitsim mutate`, or pass --run/--base/--head)"))
			}
		}
		c := *commit
		if c == "" {
			c = workspace.Commit(context.Background(), ".")
		}
		if head, err = reports.Assemble(sp, mp, c, seeds); err != nil {
			return fail(err)
		}
		if err := checkCurrent(head, ".", sp, mp); err != nil {
			return fail(err)
		}
		cp := *confPath
		if cp == "" {
			cp = existing(filepath.FromSlash(workspace.ConformanceResults))
		}
		if cp != "" {
			if head.Conformance, err = reports.LoadConformance(cp); err != nil {
				return fail(err)
			}
		}
	}

	var cmp *reports.Comparison
	if base != nil {
		cmp = reports.Compare(base, head)
	}
	written, err := reports.Write(*outDir, head, cmp, *root)
	if err != nil {
		return fail(err)
	}
	if *baseRef != "" {
		b, err := base.Marshal()
		if err == nil {
			p := filepath.Join(*outDir, "base.json")
			err = os.WriteFile(p, b, 0o644)
			written = append(written, p)
		}
		if err != nil {
			return fail(err)
		}
	}
	fmt.Fprintf(stderr, "waitsim report: wrote %d files under %s\n", len(written), *outDir)
	// A report of one result says which is missing; so does the terminal.
	if head.Scenarios == nil {
		fmt.Fprintf(stderr, "waitsim report: no scenario results (%s, from `waitsim run --json`): the report shows the mutation gate alone\n", workspace.ScenarioResults)
	}
	if head.Mutation == nil {
		fmt.Fprintf(stderr, "waitsim report: no mutation results (%s, from `waitsim mutate`): the report shows the scenario table alone\n", workspace.MutationResults)
	}
	if *annotations {
		if head.Mutation == nil {
			fmt.Fprintln(stderr, "waitsim report: --annotations: no mutation result, so no annotations")
		} else {
			n, err := reports.Annotations(stdout, head.Mutation, repoPrefix(*root))
			if err != nil {
				return fail(err)
			}
			fmt.Fprintf(stderr, "waitsim report: printed %d annotation(s)\n", n)
		}
	}
	if s := head.Scenarios; s != nil && len(s.Cases) == 0 {
		// The reports say "no results"; the exit code must not say success.
		return fail(errors.New("the scenario result has no cases: nothing was checked (the reports say so)"))
	}
	if cmp != nil {
		fmt.Fprintf(stdout, "waitsim report: %s (base %s, head %s)\n", cmp.Verdict, shortSHA(base.Commit), shortSHA(head.Commit))
		if cmp.Regressed() {
			return reportRegressed
		}
	}
	return reportOK
}

// checkCurrent is nil when r's results were run on the work tree at dir as
// it is now (reports.CheckTree); sp and mp are the inputs, for the message.
func checkCurrent(r *reports.Run, dir, sp, mp string) error {
	commit, tree, err := workspace.TreeState(context.Background(), dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "waitsim report: warning: %v: the results cannot be checked against the source they ran on\n", err)
	}
	var src []string
	for _, p := range []string{sp, mp} {
		if p != "" {
			src = append(src, p)
		}
	}
	if err := reports.CheckTree(r, strings.Join(src, " and "), commit, tree); err != nil {
		return err
	}
	if err := reports.CheckTable(r, sp, dir); err != nil {
		return err
	}
	return checkScenarioFiles(r, dir, sp)
}

// checkScenarioFiles is nil when every scenario file r's scenario result
// records (results.RunResult.Files) still has the content it ran: a file
// the work tree's hash leaves out (git-ignored, or a link out of the tree)
// is checked here, by its own content. sp is the input, for the message.
func checkScenarioFiles(r *reports.Run, dir, sp string) error {
	if r.Scenarios == nil {
		return nil
	}
	for _, f := range slices.Sorted(maps.Keys(r.Scenarios.Files)) {
		p := filepath.FromSlash(f)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if h, err := results.FileHash(p); err != nil || h != r.Scenarios.Files[f] {
			why := "its content changed"
			if err != nil {
				why = err.Error()
			}
			return fmt.Errorf("%s: stale results: the scenario file %s is not what they ran (%s): run them again", sp, f, why)
		}
		if err := checkFileCases(r.Scenarios, f, p, sp); err != nil {
			return err
		}
	}
	return nil
}

// checkFileCases is nil when the result lists every case the scenario file
// f (at p, the content it ran) holds: in its index (a run of some cases,
// --case, still indexes them all) or among its cases. A
// case cut out of the result with its index entry is found here, by
// loading the file again as the run did. A file that does not load here
// (a tool's own input schema that only the run knew) is not checked.
func checkFileCases(s *results.RunResult, f, p, sp string) error {
	cases, err := scenario.Load([]string{p}, scenario.Options{})
	if err != nil {
		return nil
	}
	// Case ids are unique over a table (the loader refuses one twice), so
	// a case is listed when its id is in the index or among the cases,
	// whatever file path the index records (it names files as the test
	// found them: relative to its package, or as given).
	listed := map[string]bool{}
	for _, e := range s.Index {
		listed[e.ID] = true
	}
	for _, c := range s.Cases {
		listed[c.ID] = true
	}
	for _, c := range cases {
		if !listed[c.ID] {
			return fmt.Errorf("%s: field cases: the scenario file %s holds case %q, which the result does not list: its cases were cut out", sp, f, c.ID)
		}
	}
	return nil
}

// repoPrefix is dir's path inside its git repository, slash-separated and
// ending in "/" ("" at the top, or outside git): GitHub names an
// annotation's file from the repository's top.
func repoPrefix(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--show-prefix").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func existing(p string) string {
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// shortSHA abbreviates a commit, keeping a "-dirty" suffix.
func shortSHA(c string) string {
	if c == "" {
		return "unknown"
	}
	sha, dirty := strings.CutSuffix(c, "-dirty")
	sha = sha[:min(12, len(sha))]
	if dirty {
		sha += "-dirty"
	}
	return sha
}

// waitsimCmd is how --base-ref runs waitsim in each tree, so that base is
// judged by its own version: `go run ./cmd/waitsim` in waitsim's own module,
// `go tool waitsim` (the version the tree's go.mod pins) in any other.
func waitsimCmd() string {
	if root, err := workspace.ModuleRoot(); err == nil && workspace.IsOwn(root) {
		return "go run ./cmd/waitsim"
	}
	return "go tool waitsim"
}

// interruptContext catches SIGINT and SIGTERM until stop is called: the
// first one cancels ctx (which stops the child commands) instead of ending the
// process, so that the caller can clean up. stop returns the signal caught,
// nil if none.
func interruptContext() (ctx context.Context, stop func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	got := make(chan os.Signal, 1)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case s := <-sigs:
			got <- s
			cancel()
		case <-done:
		}
	}()
	return ctx, func() os.Signal {
		close(done)
		<-finished // a signal the goroutine took is in got
		signal.Stop(sigs)
		cancel()
		select {
		case s := <-got:
			return s
		default:
			return nil
		}
	}
}

// command is workspace.GroupCommand: ctx's cancellation kills the whole
// process group (a shell, the go command, the test binaries it started).
func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return workspace.GroupCommand(ctx, name, args...)
}

// buildBaseAndHead checks ref out in a temporary git worktree, runs runCmd
// (and mutateCmd, unless empty) there and in the current directory, and
// assembles both runs. The worktree and its temporary directory are removed
// before it returns, also when ctx is cancelled (an interrupt): then the
// running command is killed and ctx's error returned.
func buildBaseAndHead(ctx context.Context, ref, runCmd, mutateCmd string, seeds map[string]int64, log io.Writer) (base, head *reports.Run, err error) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("--base-ref needs a git work tree: %v", err)
	}
	sha, err := workspace.ResolveCommit(ctx, ".", "--base-ref", ref)
	if err != nil {
		return nil, nil, err
	}
	tmp, err := workspace.MakeRunDir("waitsim-base-")
	if err != nil {
		return nil, nil, err
	}
	wt := filepath.Join(tmp, "base")
	defer func() {
		rm := exec.Command("git", "-C", strings.TrimSpace(string(top)), "worktree", "remove", "--force", wt)
		rm.Stderr = log
		_ = rm.Run()
		_ = os.RemoveAll(tmp)
		_ = exec.Command("git", "-C", strings.TrimSpace(string(top)), "worktree", "prune").Run()
	}()
	add := command(ctx, "git", "worktree", "add", "--detach", wt, sha)
	add.Stdout, add.Stderr = log, log
	if err := add.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("git worktree add %s: %v", ref, err)
	}
	fmt.Fprintf(log, "waitsim report: base %s checked out in %s\n", ref, wt)
	base, err = runIn(ctx, wt, runCmd, mutateCmd, sha, seeds, log)
	if err != nil {
		return nil, nil, fmt.Errorf("base %s: %w", ref, err)
	}
	head, err = runIn(ctx, ".", runCmd, mutateCmd, workspace.Commit(context.Background(), "."), seeds, log)
	if err != nil {
		return nil, nil, fmt.Errorf("head: %w", err)
	}
	return base, head, nil
}

// runIn runs the producers in dir and assembles their results. A producer's
// non-zero exit is expected (it fails on failing cases); a missing result
// file is an error, and so is ctx's cancellation (the running command is
// killed).
func runIn(ctx context.Context, dir, runCmd, mutateCmd, commit string, seeds map[string]int64, log io.Writer) (*reports.Run, error) {
	sp := filepath.Join(dir, filepath.FromSlash(workspace.ScenarioResults))
	mp := ""
	cmds := []string{runCmd}
	if mutateCmd != "" {
		cmds = append(cmds, mutateCmd)
		mp = filepath.Join(dir, filepath.FromSlash(workspace.MutationResults))
	}
	// The commands write the results anew. What was there is kept aside
	// (resultsAside) and put back unless this run ends with new results:
	// an interrupt or a failure loses nothing (before, it removed them).
	var aside []string
	for _, p := range []string{sp, mp} {
		if p == "" {
			continue
		}
		switch err := os.Rename(p, p+resultsAside); {
		case err == nil:
			aside = append(aside, p)
		case !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
	}
	done := false
	defer func() {
		for _, p := range aside {
			if done {
				_ = os.Remove(p + resultsAside)
			} else {
				_ = os.Rename(p+resultsAside, p)
			}
		}
	}()
	for _, c := range cmds {
		fmt.Fprintf(log, "waitsim report: (in %s) %s\n", dir, c)
		cmd := command(ctx, "sh", "-c", c)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
		err := cmd.Run()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			fmt.Fprintf(log, "waitsim report: %s: %v (continuing: failures are what the report shows)\n", c, err)
		}
	}
	for _, p := range []string{sp, mp} {
		if p != "" && existing(p) == "" {
			return nil, fmt.Errorf("%s was not written by the commands above", p)
		}
	}
	r, err := reports.Assemble(sp, mp, commit, seeds)
	if err != nil {
		return nil, err
	}
	if err := checkCurrent(r, dir, sp, mp); err != nil {
		return nil, err
	}
	done = true
	return r, nil
}

// resultsAside is the suffix of a results file runIn keeps aside while its
// commands write a new one (out/scenarios.json.before-report): put back
// when the run does not end with new results, removed when it does. One
// left by a process killed outright is the file as it was.
const resultsAside = ".before-report"
