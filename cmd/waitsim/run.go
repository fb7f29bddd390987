package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/waitsim/waitsim/workspace"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim/timeline"

	"github.com/waitsim/waitsim/suitebin"
)

// suiteBinDirEnv, when set, is the directory where `waitsim run` keeps the
// scenario table's test binary between runs (default: the user cache
// directory's waitsim/suitebin).
const suiteBinDirEnv = suitebin.DirEnv

// scenarioPaths makes every path given to run or conformance absolute,
// refusing one that does not exist (printed); with none, def relative to
// root when def is not "". ok false means exit 2.
func scenarioPaths(root string, paths []string, def string) (abs []string, ok bool) {
	if len(paths) == 0 && def != "" {
		paths = []string{filepath.Join(root, def)}
	}
	abs = make([]string, len(paths))
	for i, p := range paths {
		var err error
		if abs[i], err = filepath.Abs(p); err == nil {
			_, err = os.Stat(abs[i])
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "waitsim:", err)
			return nil, false
		}
	}
	return abs, true
}

// outsideModule returns the first of paths (absolute) that is not inside
// the module at root, or "". A results file names its scenario files by
// their path in the module, and `waitsim report` refuses any other.
func outsideModule(root string, paths []string) string {
	for _, p := range paths {
		if rel, err := filepath.Rel(root, p); err != nil || !filepath.IsLocal(rel) && rel != "." {
			return p
		}
	}
	return ""
}

// runScenarios implements `waitsim run`. Exit codes: 0 every case passed,
// 1 a case failed or could not run, 2 usage or file errors (nothing ran).
func runScenarios(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "also write the results to out/scenarios.json")
	repeat := fs.Int("check-determinism", 0, "re-run every case N times, at GOMAXPROCS 1, 2 and 4, and fail on any trace difference")
	pkg := fs.String("pkg", "", "the package of the test that calls waitsim.Run (default: the only one)")
	test := fs.String("test", "", "the test function that calls waitsim.Run (default: the only one)")
	var only []string
	fs.Func("case", "run only the case with this `ID` (repeatable)", func(v string) error { only = append(only, v); return nil })
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: waitsim run [--json] [--check-determinism N] [--case ID]… [--pkg DIR --test NAME] [paths…]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "With no paths, the test's own scenario files (waitsim.Params.Dir).")
		fmt.Fprintln(fs.Output(), "exit codes: 0 every case passed, 1 a case failed or could not run, 2 usage or file errors (nothing ran)")
	}
	// Flags may come before or after the paths.
	paths, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if *repeat < 0 || *repeat > maxRepeat {
		fmt.Fprintf(os.Stderr, "waitsim: --check-determinism wants a number of runs from 1 to %d (0: no check): each case runs that many times at each of GOMAXPROCS 1, 2 and 4\n", maxRepeat)
		return 2
	}
	root, err := workspace.ModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	st, err := workspace.FindSuite(root, *pkg, *test)
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	paths, ok = scenarioPaths(root, paths, "")
	if !ok {
		return 2
	}
	if p := outsideModule(root, paths); *asJSON && p != "" {
		fmt.Fprintf(os.Stderr, "waitsim: --json records each scenario file by its path in the module, and %s is outside %s: copy it into the module, or run without --json\n", p, root)
		return 2
	}
	if len(paths) > 0 {
		if files, err := scenario.Expand(paths); err != nil || len(files) == 0 {
			fmt.Fprintf(os.Stderr, "waitsim: no scenario files (*.yaml, *.yml) under %s\n", strings.Join(paths, ", "))
			return 2
		}
	}
	outFile := filepath.Join(root, filepath.FromSlash(workspace.ScenarioResults))
	// The test binary writes its results in a run directory (one a killed
	// run leaves is removed by the next, workspace.MakeRunDir); with
	// --json they replace out/scenarios.json only once the run is whole,
	// so that a run that fails, is stopped or times out loses none of the
	// results there were.
	tmp, err := workspace.MakeRunDir("waitsim-run-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	binResults := filepath.Join(tmp, "scenarios.json")
	if *asJSON {
		if err := os.MkdirAll(filepath.Dir(outFile), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "waitsim:", err)
			return 2
		}
	}
	commit, tree, _ := workspace.TreeState(context.Background(), root)
	// Without --json only the table is printed: the results carry no
	// traces, which are most of their size (results.Params.NoTraces).
	res, runErr, ok := simulate(st, results.Params{Paths: paths, Cases: only, Results: binResults, Repeat: *repeat, NoTraces: !*asJSON}, *repeat > 0)
	if !ok {
		return 2
	}
	if missing := unknownCases(only, res.Index); len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "waitsim: --case %s: no case of the table has this id (the ids are the first column of `waitsim run`)\n", strings.Join(missing, ", --case "))
		return 2
	}
	// Record what the table ran on, so that a report never mixes it with
	// results of another tree (issue 11 item 4). A tree that changed during
	// the run is no tree at all.
	if c2, t2, _ := workspace.TreeState(context.Background(), root); t2 != tree || c2 != commit {
		fmt.Fprintln(os.Stderr, "waitsim: the work tree changed during the run; its results may mix two versions: run again")
		return 2
	}
	res.Commit, res.Tree = commit, tree
	if *asJSON {
		if err := results.WriteRun(outFile, res); err != nil {
			fmt.Fprintln(os.Stderr, "waitsim:", err)
			return 2
		}
	}
	results.PrintTable(os.Stdout, res)
	if *repeat > 0 && res.Failed+res.Errors == 0 {
		fmt.Printf("determinism: every trace identical over %d run(s) at each of GOMAXPROCS 1, 2 and 4\n", max(*repeat, 1))
	}
	if *asJSON {
		fmt.Printf("results: %s\n", outFile)
	}
	if res.Failed+res.Errors > 0 || runErr != nil {
		return 1
	}
	return 0
}

// simulate runs the scenario table of workspace.Suite st in its test binary (synctest
// exists only in tests), handing it params (its Results file set), and
// reads its results back. The binary is built once and reused while the
// module's sources are unchanged (suitebin). With cpus, the table runs at
// GOMAXPROCS 1, 2 and 4 in one process. ok is false when the table did not
// run (file problems or a build failure, already printed); runErr is the
// test binary's own error.
func simulate(st workspace.Suite, params results.Params, cpus bool) (res results.RunResult, runErr error, ok bool) {
	_ = os.Remove(params.Results)
	// For a binary that cannot be kept (no cache directory, or the sources
	// changed while it was built), and the params file.
	scratch, err := workspace.MakeRunDir("waitsim-run-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return res, nil, false
	}
	defer os.RemoveAll(scratch)
	bin, err := suitebin.Binary(context.Background(), suitebin.Options{Root: st.Root, Pkg: st.Pkg, Dir: os.Getenv(suiteBinDirEnv), Scratch: scratch})
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		fmt.Fprintln(os.Stderr, "waitsim: the scenario table did not run")
		return res, nil, false
	}
	pf := filepath.Join(scratch, "params.json")
	if err := results.WriteParams(pf, params); err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return res, nil, false
	}
	// What `go test <pkg> -count=1 -run '^Test$'` passes, run where it runs
	// the binary: in the package's directory.
	testArgs := []string{"-test.paniconexit0", "-test.timeout=" + runTimeout(params.Repeat).String(), "-test.count=1", "-test.run", st.RunPattern()}
	if cpus {
		testArgs = append(testArgs, "-test.cpu", "1,2,4")
	}
	cmd := exec.Command(bin.Path, testArgs...)
	cmd.Dir = st.Dir()
	cmd.Env = append(workspace.SuiteEnv(os.Environ()), results.ParamsEnv+"="+pf)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr = cmd.Run()
	res, err = results.ReadRun(params.Results)
	if err != nil {
		// The table did not run: a build of the test failed, or the test
		// ended before its results were written.
		if bytes.Contains(buf.Bytes(), []byte("panic: test timed out after")) {
			fmt.Fprintf(os.Stderr, "waitsim: the table's test ran past its %v (-test.timeout: %v a run of the table, times 3 runs for each --check-determinism run): nothing was written; run fewer cases (--case, or a part of the table)\n", runTimeout(params.Repeat), runTimeout(0))
			return res, nil, false
		}
		io.Copy(os.Stderr, &buf)
		fmt.Fprintf(os.Stderr, "waitsim: the scenario table did not run (%s %s wrote no results: %v)\n", st.Pkg, st.Test, err)
		return res, nil, false
	}
	if len(res.Problems) > 0 {
		printProblems(res.Problems)
		return res, nil, false
	}
	return res, runErr, true
}

// maxRepeat bounds --check-determinism: each case then runs 3 × 100 times.
const maxRepeat = 100

// runTimeout is the test binary's -test.timeout for a run of the table
// repeated repeat times at 3 GOMAXPROCS (--check-determinism): 10 minutes
// a run of the table. A world that hangs is stopped by its own wall-clock
// watchdog long before.
func runTimeout(repeat int) time.Duration {
	return 10 * time.Minute * time.Duration(1+3*repeat)
}

// printProblems prints the problems of the scenario files to stderr, one
// "file:line:column: field: message" a line.
func printProblems(problems []results.Problem) { fprintProblems(os.Stderr, problems) }

// fprintProblems is printProblems to w (`waitsim serve`'s log, which never
// blocks).
func fprintProblems(w io.Writer, problems []results.Problem) {
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = "  " + printable(p.String())
	}
	fmt.Fprintf(w, "waitsim: %d problem(s) in the scenario files; nothing ran:\n%s\n", len(lines), strings.Join(lines, "\n"))
}

// printable is s as one line with every character that is not printable
// written as its escape (timeline.OneLine: a tab as \t, U+0007 as \x07,
// U+200B as \u200b, a byte that is not UTF-8 as \xff), so that a problem
// quoting a binary file cannot garble a terminal, and names what it found.
func printable(s string) string { return timeline.OneLine(s) }

// unknownCases are the ids of only (--case) that name no case of the
// table's index, in the order given.
func unknownCases(only []string, index []results.IndexEntry) []string {
	var missing []string
	for _, id := range only {
		if !slices.ContainsFunc(index, func(e results.IndexEntry) bool { return e.ID == id }) {
			missing = append(missing, id)
		}
	}
	return missing
}
