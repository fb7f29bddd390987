package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/waitsim/waitsim/workspace"
)

// initDir is where `waitsim init` puts the test by default, relative to the
// module root.
const initDir = "waitsimtest"

// runInit implements `waitsim init`: it sets a module of one's own up to
// run waitsim: a test that calls waitsim.Run (with an example tool to
// replace by one's own), a first scenario file, a CI workflow, then `go mod
// tidy`. It never overwrites a file. Exit codes: 0 written, 1 a file could
// not be written or go mod tidy failed, 2 usage (outside a module, a file
// already there).
func runInit(args []string) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	dir := fs.String("dir", initDir, "the package `DIR` for the test, relative to the module root (next to your tool's package is a good place)")
	noTidy := fs.Bool("no-tidy", false, "do not run go mod tidy afterwards")
	target := fs.String("target", "", "the package `DIR` of your tool, relative to the module root, for the workflow's mutation gate (default: the test's own package, when it holds code)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: waitsim init [--dir DIR] [--target DIR] [--no-tidy]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "It writes DIR/waitsim_test.go, DIR/testdata/waitsim/first.yaml and .github/workflows/waitsim.yml, never over an existing file.")
	}
	rest, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fs.Usage()
		return 2
	}
	root, err := workspace.ModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim init:", err)
		return 2
	}
	if err := workspace.CheckLocalPath(filepath.ToSlash(filepath.Clean(*dir))); err != nil {
		fmt.Fprintln(os.Stderr, "waitsim init: --dir:", err)
		return 2
	}
	pkgDir := filepath.Join(root, filepath.FromSlash(*dir))
	pkg, hasCode := packageName(pkgDir)
	tgt := ""
	if *target != "" {
		tgt = strings.Trim(filepath.ToSlash(filepath.Clean(*target)), "/")
		if err := workspace.CheckLocalPath(tgt); err != nil || tgt == "." {
			fmt.Fprintf(os.Stderr, "waitsim init: --target %s: want a package directory of the module, written from its root (e.g. ./mytool/)\n", *target)
			return 2
		}
		if _, code := packageName(filepath.Join(root, filepath.FromSlash(tgt))); !code {
			fmt.Fprintf(os.Stderr, "waitsim init: --target %s: no Go code there to mutate\n", *target)
			return 2
		}
	}
	files := map[string]string{
		filepath.Join(pkgDir, "waitsim_test.go"):                   initTest(pkg),
		filepath.Join(pkgDir, "testdata", "waitsim", "first.yaml"): initScenario,
		filepath.Join(root, ".github", "workflows", "waitsim.yml"): initWorkflow(filepath.ToSlash(filepath.Clean(*dir)), hasCode, tgt),
	}
	if !hasCode {
		files[filepath.Join(pkgDir, "doc.go")] = fmt.Sprintf("// Package %s holds the test that runs waitsim's scenarios (waitsim_test.go).\npackage %s\n", pkg, pkg)
	}
	for f := range files {
		if err := insideReal(root, filepath.Dir(f)); err != nil {
			fmt.Fprintln(os.Stderr, "waitsim init:", err)
			return 2
		}
	}
	for f := range files {
		if _, err := os.Lstat(f); err == nil {
			fmt.Fprintf(os.Stderr, "waitsim init: %s is already there; nothing written (remove it, or choose another --dir)\n", f)
			return 2
		} else if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintln(os.Stderr, "waitsim init:", err)
			return 1
		}
	}
	for _, f := range sortedKeys(files) {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "waitsim init:", err)
			return 1
		}
		if err := os.WriteFile(f, []byte(files[f]), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "waitsim init:", err)
			return 1
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Println("wrote", filepath.ToSlash(rel))
	}
	if !*noTidy {
		cmd := exec.Command("go", "mod", "tidy")
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "waitsim init: go mod tidy:", err)
			return 1
		}
		fmt.Println("ran go mod tidy")
	}
	if msg, err := ignoreOut(root); err != nil {
		fmt.Fprintln(os.Stderr, "waitsim init: .gitignore:", err)
		return 1
	} else if msg != "" {
		fmt.Println(msg)
	}
	if dir := localWaitsim(root); dir != "" {
		fmt.Printf("note: go.mod replaces %s with the directory %s: the workflow's checkout will not have it; require a published version before you push\n", workspace.OwnModule, dir)
	}
	fmt.Printf("next: replace registerTools in %s with your tool's registration, then:\n  go test ./%s/\n  go tool waitsim run\n",
		filepath.ToSlash(filepath.Join(*dir, "waitsim_test.go")), filepath.ToSlash(*dir))
	if !hasCode && tgt == "" {
		fmt.Printf("and name your tool's package on the mutation gate's line of .github/workflows/waitsim.yml (go tool waitsim mutate --target ./yourtool/), or run init with --target\n")
	}
	return 0
}

// ignoreOut makes the module's .gitignore ignore out/, where waitsim writes
// its results, caches and reports (a `git add -A` took them into a commit):
// it adds "/out/" unless a line already ignores out/ at the root, creating
// the file if need be, and says what it did ("" when nothing). A
// .gitignore that leads out of the module, is no regular file, or cannot
// be read or opened is left alone, with a note: init's other files are
// written by then, and its next steps still to be said.
func ignoreOut(root string) (string, error) {
	p := filepath.Join(root, ".gitignore")
	leftAlone := func(why string) (string, error) {
		return "note: .gitignore left alone: " + why + "; ignore out/ in git yourself", nil
	}
	if err := insideReal(root, p); err != nil {
		return leftAlone(err.Error())
	}
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return leftAlone(fmt.Sprintf("%s is not a regular file (%s)", p, fi.Mode().Type()))
	}
	b, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return leftAlone(err.Error())
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch strings.TrimSpace(line) {
		case "out", "out/", "/out", "/out/", "out/*", "/out/*", "out/**", "/out/**":
			return "", nil
		}
	}
	add := "/out/\n"
	if len(b) > 0 && b[len(b)-1] != '\n' {
		add = "\n" + add
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return leftAlone(err.Error())
	}
	if _, err := f.WriteString(add); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return "added /out/ to .gitignore (waitsim writes its results there)", nil
}

// localWaitsim is the directory go.mod in root replaces waitsim's module
// with, or "" (no such replace, or one by a version).
func localWaitsim(root string) string {
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	var m struct {
		Replace []struct {
			Old struct{ Path string }
			New struct{ Path, Version string }
		}
	}
	if json.Unmarshal(out, &m) != nil {
		return ""
	}
	for _, r := range m.Replace {
		if r.Old.Path == workspace.OwnModule && r.New.Version == "" {
			return r.New.Path
		}
	}
	return ""
}

// packageName is the name of the Go package in dir, and whether dir holds
// code that is not a test; a directory without Go files gets a name made of
// its base name.
func packageName(dir string) (string, bool) {
	m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range m {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly); err == nil {
			return pf.Name.Name, true
		}
	}
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(dir)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' && b.Len() > 0 {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "waitsimtest", false
	}
	return b.String(), false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	return keys
}

// initTest is the test file init writes for package pkg.
func initTest(pkg string) string {
	return `package ` + pkg + `_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim"
)

// TestWaitsim runs every scenario file under testdata/waitsim against the
// tools registerTools registers, in virtual time: each file a subtest, each
// case of it a subtest of that. ` + "`go tool waitsim run`" + ` runs the same table.
func TestWaitsim(t *testing.T) {
	waitsim.Run(t, waitsim.Params{Tool: registerTools})
}

// registerTools registers the tools under test. Replace its body with your
// own tool's registration (for example mytool.Register(s)); the example
// tool below is only there so that the first run has something to run.
func registerTools(s *mcp.Server) {
	type in struct {
		Seconds int ` + "`json:\"seconds\"`" + `
	}
	type out struct {
		Slept int ` + "`json:\"slept\"`" + `
	}
	mcp.AddTool(s, &mcp.Tool{Name: "example_wait", Description: "Sleeps the given seconds, telling progress each second when asked."},
		func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
			for i := 1; i <= a.Seconds; i++ {
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return nil, out{}, ctx.Err()
				}
				if tok := req.Params.GetProgressToken(); tok != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(a.Seconds)})
				}
			}
			return nil, out{Slept: a.Seconds}, nil
		})
}
`
}

// initScenario is the first scenario file init writes.
const initScenario = `# protects: a reply that outlasts the TypeScript SDK's 60 s request timeout
# A 90 s call: a caller with the TypeScript SDK's defaults loses it at 60 s;
# one that sends a progress token and resets its timer on progress gets it.
# Replace the args with a long call of your own tool (tool: names it when
# your server has several). docs/scenarios.md lists every key.
name: first
callers:
  - name: ts
    profile: ts-sdk
    args: {seconds: 90}
  - name: ts-reset
    profile: ts-sdk-reset
    args: {seconds: 90}
expect:
  - caller: ts
    received: false
    lostBy: request timeout
    resolvesAtMs: 60000
  - caller: ts-reset
    received: true
    resolvesAtMs: 90000
`

// initWorkflow is the CI workflow init writes for the kill suite in dir
// (slash-separated, relative to the module root); hasCode says whether its
// package holds code of its own, the mutation gate's default target; tgt,
// when not "", is the package the gate mutates (init --target).
func initWorkflow(dir string, hasCode bool, tgt string) string {
	target := "its package, " + dir + "/, which holds your code"
	gate := "go tool waitsim mutate --progress plain"
	switch {
	case tgt != "":
		target = "./" + tgt + "/, your tool's package (--target)"
		gate += " --target ./" + tgt + "/"
	case !hasCode:
		target = "add --target ./yourtool/ below: the package of your tool (" + dir + "/ holds no code of its own)"
	}
	return `# waitsim: the scenario table (go test), the mutation gate and their report
# on every push and pull request. Written by ` + "`go tool waitsim init`" + `.
#
# The mutation gate mutates the package of the test that calls waitsim.Run:
# ` + target + `.
# A survivor fails it unless waitsim/accepted.yaml lists it with a reason;
# the report step turns each new survivor into a warning on its line.
name: waitsim
on: [push, pull_request]
jobs:
  waitsim:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
      - name: go test
        run: go test ./...
      - name: scenario table
        run: go tool waitsim run --json
      - name: mutation gate
        id: mutate
        if: ${{ !cancelled() }}
        # Exit 0 pass, 1 a survivor not in waitsim/accepted.yaml, 2 a
        # configuration problem, … (go tool waitsim mutate -h). Recorded here;
        # the job fails in its last step, after the report.
        run: |
          set +e
          ` + gate + `
          echo "rc=$?" >> "$GITHUB_OUTPUT"
      - name: report
        if: ${{ !cancelled() }}
        # --annotations: a warning on the line of each new survivor.
        run: go tool waitsim report --annotations && cat out/report/summary.md >> "$GITHUB_STEP_SUMMARY"
      - uses: actions/upload-artifact@v4
        if: ${{ !cancelled() }}
        with:
          name: waitsim-report
          path: |
            out/report
            out/mutation.json
          if-no-files-found: warn
      - name: fail when the mutation gate failed
        if: ${{ !cancelled() }}
        env:
          RC: ${{ steps.mutate.outputs.rc }}
        run: |
          if [ "$RC" != "0" ]; then echo "mutation gate failed (exit ${RC:-none})"; exit 1; fi
`
}

// insideReal is nil when dir, its symbolic links followed as far as it
// exists, lies within root: init writes nothing outside the module through
// a link (before, --dir escape/pkg with escape a link to /tmp/outside wrote
// there).
func insideReal(root, dir string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	have := dir
	for {
		if _, err := os.Lstat(have); err == nil {
			break
		}
		up := filepath.Dir(have)
		if up == have {
			break
		}
		have = up
	}
	real, err := filepath.EvalSymlinks(have)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) && rel != "." {
		return fmt.Errorf("%s leads out of the module (to %s) through a symbolic link; nothing written", dir, real)
	}
	return nil
}
