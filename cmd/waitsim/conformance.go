package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/workspace"

	"github.com/waitsim/waitsim/conformance"
)

// runConformance implements `waitsim conformance`: the simulation's
// predictions for the conformance scenarios (through the scenario runner),
// then real clients against `waitsim serve` on the real clock, compared call
// by call; the table goes to out/conformance.json. Exit codes: 0 every call
// agreed, 1 a disagreement (or a scenario failed its own expectations in the
// simulation), 2 usage, file or setup errors (nothing compared), 130/143
// interrupted.
func runConformance(args []string) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	runs := fs.Int("runs", 1, "repeat every client run N times")
	clients := fs.String("clients", "ts,go", "clients: ts (TypeScript SDK), go (Go SDK)")
	transports := fs.String("transports", "stdio,sse,json", "transports of the plain cases: stdio, sse (streamable HTTP), json (streamable HTTP, JSON responses); a case with a transport: runs over its own mode")
	proxies := fs.String("proxies", strings.Join(conformance.ProxyLegNames(), ","), "proxy legs of a case with transport.idleTimeoutMs (Debian's nginx and haproxy; none: leave such cases out)")
	tol := fs.Float64("tolerance-ms", conformance.DefaultToleranceMs, "floor of the tolerance on |real − simulated| for resolve times and remainingMs, ms (a run's is at least 4 × its largest stall; server-timed ends may come its start lag later still)")
	stagger := fs.Float64("stagger-ms", conformance.StartStaggerMs, "space the starts of a batch's clients this far apart, ms (0: all at once)")
	tsclient := fs.String("tsclient", workspace.OutDir+"/tsclient/client.mjs", "the TypeScript client script, beside its installed node_modules (make conformance installs it); relative to the module root")
	out := fs.String("out", workspace.ConformanceResults, "where to write the table")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: waitsim conformance [flags] [paths…]   (default: conformance/scenarios)")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "exit codes: 0 every call agreed, 1 a disagreement, 2 usage, file or setup errors, 130/143 interrupted")
	}
	paths, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if *runs < 1 || !(*tol > 0) || !(*stagger >= 0 && *stagger <= conformance.MaxStaggerMs) { // NaN fails too
		fmt.Fprintf(os.Stderr, "waitsim conformance: --runs and --tolerance-ms must be positive, --stagger-ms 0 to %d\n", conformance.MaxStaggerMs)
		return 2
	}
	root, err := workspace.ModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	// Real clients talk to `waitsim serve`, which serves the reference
	// tool: its table's workspace.Suite predicts what they see.
	st, err := workspace.FindSuite(root, workspace.OwnSuitePkg, workspace.OwnSuiteTest)
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim conformance: works inside waitsim's own module (it serves the reference tool):", err)
		return 2
	}
	paths, ok = scenarioPaths(root, paths, filepath.Join("conformance", "scenarios"))
	if !ok {
		return 2
	}
	opts, err := waitagents.Reference().LoadOptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	cases, err := scenario.Load(paths, opts)
	var fe *results.FileError
	if errors.As(err, &fe) {
		printProblems(fe.Problems)
		return 2
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	script := *tsclient
	if !filepath.IsAbs(script) {
		script = filepath.Join(root, script)
	}
	if strings.Contains(*clients, conformance.ClientTS) {
		if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
			fmt.Fprintf(os.Stderr, "waitsim conformance: the TypeScript client is not installed beside %s (make conformance runs npm ci)\n", script)
			return 2
		}
	}

	// The simulation's prediction, by the scenario runner of `waitsim run`.
	simFile := filepath.Join(root, workspace.OutDir, "conformance-simulation.json")
	if err := os.MkdirAll(filepath.Dir(simFile), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	fmt.Println("simulation (virtual time):")
	simRes, _, ok := simulate(st, results.Params{Paths: paths, Results: simFile}, false)
	if !ok {
		return 2
	}
	results.PrintTable(os.Stdout, simRes)
	simBy := map[string]results.CaseResult{}
	for _, c := range simRes.Cases {
		simBy[c.ID] = c
	}

	legs := []string{}
	if *proxies != "none" && *proxies != "" {
		legs = strings.Split(*proxies, ",")
	}
	ctx, stop := interruptContext()
	rep, err := conformance.Run(ctx, conformance.Options{
		Cases: cases, Sim: simBy, Waitsim: self, TSClient: script,
		Clients: strings.Split(*clients, ","), Transports: strings.Split(*transports, ","), Proxies: legs,
		ToleranceMs: *tol, StaggerMs: *stagger, Runs: *runs, LogDir: filepath.Join(root, workspace.OutDir, "conformance"), Progress: os.Stderr,
	})
	if sig := stop(); sig != nil {
		fmt.Fprintf(os.Stderr, "waitsim conformance: interrupted (%v); nothing written\n", sig)
		if sig == syscall.SIGTERM {
			return 143
		}
		return 130
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitsim conformance:", err)
		return 2
	}
	rep.Commit, rep.Tree, _ = workspace.TreeState(context.Background(), root)
	for i := range rep.Results {
		if rel, err := filepath.Rel(root, rep.Results[i].File); err == nil && !strings.HasPrefix(rel, "..") {
			rep.Results[i].File = filepath.ToSlash(rel)
		}
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	outFile := *out
	if !filepath.IsAbs(outFile) {
		outFile = filepath.Join(root, outFile)
	}
	if err := os.WriteFile(outFile, append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "waitsim:", err)
		return 2
	}
	conformance.PrintTable(os.Stdout, rep)
	fmt.Printf("results: %s\n", outFile)
	if !rep.Agree || simRes.Failed+simRes.Errors > 0 {
		return 1
	}
	return 0
}
