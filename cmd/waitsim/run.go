package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/waitsim/waitsim/mutants"
	"github.com/waitsim/waitsim/scenarios"
	"github.com/waitsim/waitsim/suitebin"
)

// suiteBinDirEnv, when set, is the directory where `waitsim run` keeps the
// scenario table's test binary between runs (default: the user cache
// directory's waitsim/suitebin).
const suiteBinDirEnv = "WAITSIM_SUITEBIN_DIR"

// modulePath is waitsim's own module: the commands drive `go test` on its
// packages, so they work only inside it.
const modulePath = "github.com/waitsim/waitsim"

// moduleLine finds a go.mod's module path.
var moduleLine = regexp.MustCompile(`(?m)^module\s+"?([^\s"]+)"?\s*$`)

// moduleRoot returns the directory of the main module's go.mod, which must
// be waitsim's own.
// scenarioPaths resolves the paths given to run or conformance: it finds the
// module's root, uses def (relative to it) when no path is given, and makes
// every path absolute, refusing one that does not exist. Problems are
// printed; ok false means exit 2.
func scenarioPaths(paths []string, def string) (root string, abs []string, ok bool) {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return "", nil, false
	}
	if len(paths) == 0 {
		paths = []string{filepath.Join(root, def)}
	}
	abs = make([]string, len(paths))
	for i, p := range paths {
		if abs[i], err = filepath.Abs(p); err == nil {
			_, err = os.Stat(abs[i])
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "waitsim:", err)
			return "", nil, false
		}
	}
	return root, abs, true
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the waitsim module (no go.mod found): waitsim runs `go test` on its own packages, so run it inside a clone of %s", modulePath)
	}
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	if m := moduleLine.FindSubmatch(b); m == nil || string(m[1]) != modulePath {
		return "", fmt.Errorf("not inside the waitsim module (%s is another module's): waitsim runs `go test` on its own packages, so run it inside a clone of %s", gomod, modulePath)
	}
	return filepath.Dir(gomod), nil
}

// runScenarios implements `waitsim run`. Exit codes: 0 every case passed,
// 1 a case failed or could not run, 2 usage or file errors (nothing ran).
func runScenarios(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "also write the results to out/scenarios.json")
	repeat := fs.Int("check-determinism", 0, "re-run every case N times, at GOMAXPROCS 1, 2 and 4, and fail on any trace difference")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: waitsim run [--json] [--check-determinism N] [paths…]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "exit codes: 0 every case passed, 1 a case failed or could not run, 2 usage or file errors (nothing ran)")
	}
	// Flags may come before or after the paths.
	paths, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if *repeat < 0 {
		fmt.Fprintln(os.Stderr, "waitsim: --check-determinism wants a number of runs ≥ 1 (0: no check)")
		return 2
	}
	root, paths, ok := scenarioPaths(paths, filepath.Join("scenarios", "table"))
	if !ok {
		return 2
	}
	if files, err := scenarios.Expand(paths); err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "waitsim: no scenario files (*.yaml, *.yml) under %s\n", strings.Join(paths, ", "))
		return 2
	}
	outFile := filepath.Join(root, "out", "scenarios.json")
	if !*asJSON {
		// A run directory with an owner file: one a killed run leaves is
		// removed by the next (mutants.MakeRunDir).
		tmp, err := mutants.MakeRunDir("waitsim-run-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "waitsim:", err)
			return 2
		}
		outFile = filepath.Join(tmp, "scenarios.json")
		defer os.RemoveAll(tmp)
	} else if err := os.MkdirAll(filepath.Dir(outFile), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	commit, tree, _ := mutants.TreeState(context.Background(), root)
	res, runErr, ok := simulate(root, paths, outFile, *repeat)
	if !ok {
		return 2
	}
	// Record what the table ran on, so that a report never mixes it with
	// results of another tree (issue 11 item 4). A tree that changed during
	// the run is no tree at all.
	if c2, t2, _ := mutants.TreeState(context.Background(), root); t2 != tree || c2 != commit {
		fmt.Fprintln(os.Stderr, "waitsim: the work tree changed during the run; its results may mix two versions: run again")
		_ = os.Remove(outFile)
		return 2
	}
	res.Commit, res.Tree = commit, tree
	if *asJSON {
		out, err := json.MarshalIndent(res, "", "  ")
		if err == nil {
			err = os.WriteFile(outFile, append(out, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "waitsim:", err)
			return 2
		}
	}
	scenarios.PrintTable(os.Stdout, res)
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

// simulate runs the scenario table over paths in the scenarios package's
// test binary (synctest exists only in tests), writing its results to
// outFile, and reads them back. The binary is built once and reused while
// the module's sources are unchanged (suitebin). ok is false when the table
// did not run (file errors or a build failure, already printed); runErr is
// the test binary's own error.
func simulate(root string, paths []string, outFile string, repeat int) (res scenarios.RunResult, runErr error, ok bool) {
	_ = os.Remove(outFile)
	// For a binary that cannot be kept (no cache directory, or the sources
	// changed while it was built).
	scratch, err := mutants.MakeRunDir("waitsim-run-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return res, nil, false
	}
	defer os.RemoveAll(scratch)
	bin, err := suitebin.Binary(context.Background(), suitebin.Options{Root: root, Pkg: "./scenarios/", Dir: os.Getenv(suiteBinDirEnv), Scratch: scratch})
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		fmt.Fprintln(os.Stderr, "waitsim: the scenario table did not run")
		return res, nil, false
	}
	// What `go test ./scenarios/ -count=1 -run '^TestTable$'` passes, run
	// where it runs the binary: in the package's directory.
	testArgs := []string{"-test.paniconexit0", "-test.timeout=10m0s", "-test.count=1", "-test.run", "^TestTable$"}
	if repeat > 0 {
		testArgs = append(testArgs, "-test.cpu", "1,2,4")
	}
	testArgs = append(testArgs, "-waitsim.paths="+strings.Join(paths, ","), "-waitsim.out="+outFile)
	if repeat > 1 {
		testArgs = append(testArgs, fmt.Sprintf("-waitsim.repeat=%d", repeat))
	}
	cmd := exec.Command(bin.Path, testArgs...)
	cmd.Dir = filepath.Join(root, "scenarios")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr = cmd.Run()
	b, err := os.ReadFile(outFile)
	if err != nil {
		// The table did not run: file errors or a build failure. Show why:
		// the problems alone when the files are at fault, else all of it.
		out := buf.String()
		if i := strings.Index(out, "problem(s) in the scenario files:"); i >= 0 {
			var lines []string
			for _, l := range strings.Split(out[i:], "\n")[1:] {
				if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "---") {
					break
				}
				lines = append(lines, l)
			}
			printProblems(lines)
		} else {
			io.Copy(os.Stderr, &buf)
			fmt.Fprintln(os.Stderr, "waitsim: the scenario table did not run")
		}
		return res, nil, false
	}
	if err := json.Unmarshal(b, &res); err != nil {
		fmt.Fprintf(os.Stderr, "waitsim: %s: %v\n", outFile, err)
		return res, nil, false
	}
	return res, runErr, true
}

// printProblems prints the problems of the scenario files, one
// "file:line:column: field: message" a line (`waitsim run` and `waitsim serve`).
func printProblems(problems []string) {
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = "  " + printable(p)
	}
	fmt.Fprintf(os.Stderr, "waitsim: %d problem(s) in the scenario files; nothing ran:\n%s\n", len(lines), strings.Join(lines, "\n"))
}

// printable writes control and other non-printing characters (e.g. from a
// binary file quoted in an error) as Go escapes (a tab as \t, U+0007 as
// \a, U+200B as \u200b, a byte that is not UTF-8 as \xff), so that they cannot garble a terminal and are
// still named.
func printable(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			fmt.Fprintf(&b, `\x%02x`, s[i]) // a byte that is not UTF-8
			continue
		}
		if unicode.IsGraphic(r) || r == ' ' {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
