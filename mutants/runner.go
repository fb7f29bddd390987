package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/mutants/testrun"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/suitebin"
	"github.com/waitsim/waitsim/workspace"
)

// Config is one mutation campaign (campaign.Config).
type Config = campaign.Config

// runner is one campaign in progress.
type runner struct {
	cfg     Config
	tmp     string // private temporary directory, removed at the end
	env     []string
	goflags string
	// test2json is the test2json binary's path, or test2jsonErr why it
	// could not be had: set by setup's `go tool -n test2json`, which runs
	// beside phase 1 (0.17 s on a warm build cache; on a cold one it
	// builds test2json), while a campaign on kept binaries and baselines
	// needs it only for its first run of its own; read only once
	// test2jsonReady is closed (waitTest2json). Phase 1's end waits for
	// it too: a go command that cannot give it ends the campaign.
	test2json      string
	test2jsonErr   error
	test2jsonReady chan struct{}
	stopTest2json  func() // ends the look-up (its context); before it started, closes test2jsonReady
	suite          verdict.Suite
	timeout        time.Duration
	inputs         map[string]string        // root-relative path → sha256 of the suite's inputs
	inputsKey      string                   // their key (testbin.InputsKey), set with them
	inputDirs      atomic.Pointer[[]string] // the package directories they were found in (set by hashInputs while other steps run)
	// inputsReady is closed once phase 1 has hashed the suite's inputs
	// (or failed to): kept runs are keyed by them.
	inputsReady chan struct{}
	tc          *testbin.TypeChecker // the target's type checker (phase 1)
	tcErr       error
	salt        string // go version, platform, suite: part of every cache key
	cache       *campaign.Cache
	catalog     []mutation.CatalogEntry // the checked catalog (nil with NoCatalog)
	srcRe       *regexp.Regexp
	schemaBin   string                     // the schemata test binary, when built
	schemaMs    int64                      // wall ms to build and check it
	costOrder   []string                   // the baseline's leaf tests, cheapest first (kill first)
	costs       map[string]time.Duration   // their wall times in the baseline
	caseFiles   map[string]results.CaseRef // test name → its case and file, from the baseline (kill first)
	sites       *testbin.Sites             // the mutation sites each case ran, from the schemata binary's check; nil: unknown
	paramsN     atomic.Int64               // params files written so far (runWith)
	kills       campaign.Kills[string]     // kills by case, from the cache and this campaign (kill first)
	notes       []string                   // notes gathered while running
	campaign    *verdict.Campaign
	gen         genState // the generator campaign (generator.go)
	baseBin     string   // the unmutated suite's test binary, once built
	// baseKey is the key suitebin built baseBin under (the hash of its
	// sources when it hashed them): a kept baseline is named by it and by
	// the inputs' hash, so that a file saved between the two hashes never
	// files one version's pass under the other's inputs.
	baseKey string
	hotOK   bool // the schemata binary can serve hot requests (hot.go)
	hotRuns atomic.Int64
	goEnv   string // `go env -json` of testbin.LookupEnvVars (setup)
	// hints are the kept cold hints of the suite and target (planMutants);
	// hotDeaths counts the hot processes that died serving a mutant.
	hints     *testbin.ColdHints
	hotDeaths atomic.Int64
	worlds    campaign.Kills[int] // kills by generator world, from 0, in this campaign (hotGen)
	// sitesCut counts the hot runs that left out cases that never run
	// their mutant's site (testbin/sites.go).
	sitesCut atomic.Int64
	// vetKept counts the mutants whose vet pass was kept from an earlier
	// campaign (runner.vet); vetBaseKey is the part of a kept pass's key
	// that the mutant's key does not hold, made once (vetBase).
	vetKept    atomic.Int64
	vetOnce    sync.Once
	vetBaseKey string
	notesMu    sync.Mutex
}

// mutant is one mutant to run, with its overlay (root-relative path →
// mutated bytes) and its cache key.
type mutant struct {
	res     verdict.MutantResult
	files   map[string][]byte
	lines   []int // lines of res.File it touches, for --diff
	key     string
	equiv   *mutation.Equivalent
	catPath string
	switchN int // its switch in the schemata binary; 0: built on its own
	// valueSwitch: its switch changes a declaration's value, chosen at
	// init (testbin/schemata.go): it never runs in a hot process (hot.go).
	valueSwitch bool
	// genBin and genEnv run the generator on it (genBin "": no generator
	// run); gen is that run's outcome. parts counts its runs (table,
	// generator) not yet over, tableDone says its table run is (runAll,
	// under jobs.mu).
	genBin    string
	genEnv    []string
	gen       genOutcome
	parts     int
	tableDone bool
	hotLost   bool // its table run in a hot process was lost (set before tableDone)
	// coldHint: a hot process died on it in an earlier campaign
	// (testbin.ColdHints): it runs cold from the start. panicked: one of
	// its cold runs panicked (the hint stays).
	coldHint bool
	coldRan  bool // its table part ran cold (runOne)
	panicked atomic.Bool
}

// Run runs one campaign: baseline, sanity mutant, then every selected
// catalog and operator mutant through `go test -overlay`, in cfg.Workers
// parallel workers. It never writes the module's tree: mutated files, test
// binaries and gremlins' copies live in a private temporary directory that
// is removed on return, also when ctx is cancelled (an interrupt). The
// Result carries the gate's verdict and exit code (see Evaluate); the error
// is for failures of the runner itself (ctx's error on interrupt).
// An error of the machine's that no step judged (the runner's own files on
// a full disk) is a *campaign.EnvError too (campaign.AsEnvError).
func Run(ctx context.Context, cfg Config) (*verdict.Result, error) {
	res, err := run(ctx, cfg)
	return res, campaign.AsEnvError(err)
}

// run is Run.
func run(ctx context.Context, cfg Config) (*verdict.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.DiffRef != "" {
		// Checked before anything runs: a ref git would read as an
		// option, or one that names no commit, is a usage error.
		if _, err := workspace.ResolveCommit(ctx, cfg.Root, "--diff", cfg.DiffRef); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v; nothing ran", verdict.ErrUsage, err)
		}
	}
	defaultNotes, err := cfg.Defaults()
	if err != nil {
		return nil, err
	}
	th, err := mutation.LoadThresholds(cfg.Abs(cfg.GremlinsCfg))
	if err != nil && !workspace.IsOwn(cfg.Root) && cfg.GremlinsCfg == workspace.GremlinsConfig && errors.Is(err, os.ErrNotExist) {
		th, err = mutation.Thresholds{OperatorScore: 100}, nil
		cfg.ThresholdDefault = true
		defaultNotes = append(defaultNotes, "no "+workspace.GremlinsConfig+": the operator-score threshold is 100% (unleash.threshold.efficacy sets another)")
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", verdict.ErrUsage, err)
	}
	ratchet, err := verdict.LoadRatchet(cfg.Root, cfg.Accepted)
	if err != nil {
		return nil, err
	}
	// The catalog is read and checked before anything is written: a
	// path in it that leaves the target package is a usage error.
	var catalog []mutation.CatalogEntry
	if !cfg.NoCatalog {
		if err := mutation.CheckDir(cfg.Abs(cfg.CatalogDir)); err != nil {
			return nil, fmt.Errorf("%w: catalog: %v", verdict.ErrUsage, err)
		}
		if catalog, err = mutation.LoadCatalog(cfg.Root, cfg.CatalogDir); err != nil {
			var ce *mutation.CatalogError
			if errors.As(err, &ce) {
				return nil, ce
			}
			return nil, fmt.Errorf("%w: catalog: %v", verdict.ErrUsage, err)
		}
		var bad mutation.CatalogError
		for _, e := range catalog {
			if err := campaign.CheckInPackage(e.File, cfg.Target); err != nil {
				bad.Add(fmt.Sprintf("%s: file: %v", e.Where, err))
			}
		}
		if len(bad.Problems) > 0 {
			return nil, &bad
		}
	}
	start := time.Now()
	tmp, err := workspace.MakeRunDir("waitsim-mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r := &runner{cfg: cfg, tmp: tmp, catalog: catalog}
	r.gen.done = make(chan struct{})
	r.inputsReady = make(chan struct{})
	r.test2jsonReady = make(chan struct{})
	r.stopTest2json = func() { close(r.test2jsonReady) } // until setup starts the look-up
	// Run before the removal of tmp (deferred above): no look-up of
	// test2json outlives the run.
	defer func() {
		r.stopTest2json()
		<-r.test2jsonReady
	}()
	defer r.waitGen()
	r.srcRe = regexp.MustCompile(regexp.QuoteMeta(tmp+string(filepath.Separator)) + `w\d+` + regexp.QuoteMeta(string(filepath.Separator)) + `src` + regexp.QuoteMeta(string(filepath.Separator)))
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	commit, tree, _ := workspace.TreeState(ctx, cfg.Root)
	res := &verdict.Result{Version: verdict.ResultVersion, Suite: r.suite, Shard: cfg.Shard.String(), Commit: commit, Tree: tree,
		Options: cfg.Options(), DiffRef: cfg.DiffRef, Ratchet: ratchet}
	if r.suite.Note != "" {
		res.Notes = append(res.Notes, r.suite.Note)
	}
	res.Notes = append(res.Notes, defaultNotes...)
	res.Threshold = th.OperatorScore

	if cfg.CacheFile != "" {
		r.cache = campaign.LoadCache(cfg.Abs(cfg.CacheFile))
		for _, k := range r.cache.Killers {
			r.kills.Add(k)
		}
	}

	// Phase 1, concurrently: the baseline; gremlins' enumeration, the
	// target's type checker and the hash of the suite's inputs, and as soon
	// as those three are there, the mutants' collection and preparation
	// (planMutants: the type checks, the schemata binary and its check),
	// still beside the baseline's run. A baseline that fails stops the
	// preparation: nothing prepared is used then.
	var wg, ready sync.WaitGroup
	var baseErr, enumErr, inErr, planErr error
	var base testrun.Report
	var sites []mutation.OperatorSite
	var muts []*mutant
	var notes []string
	var pl *plan
	pctx, stopPlan := context.WithCancel(ctx)
	defer stopPlan()
	wg.Add(2)
	ready.Add(3)
	go func() {
		defer wg.Done()
		base, baseErr = r.baseline(ctx)
		if baseErr != nil || baselineProblem(base) != "" {
			stopPlan()
		}
	}()
	go func() {
		// The target's export data, for the type checks and the reset
		// (prepare), beside the rest.
		defer ready.Done()
		r.tc, r.tcErr = r.testbin().NewTypeChecker(ctx, r.cfg.Target)
	}()
	go func() {
		defer ready.Done()
		if !cfg.NoOperators {
			var b []byte
			var reused bool
			b, reused, enumErr = r.testbin().Enumerate(ctx, r.cfg.Target, func(ctx context.Context) ([]byte, error) {
				b, _, _, err := r.testbin().Gremlins(ctx, r.cfg.Target, r.cfg.Workers, true)
				return b, err
			})
			if reused {
				r.note("gremlins' enumeration reused: nothing it depends on changed (every file of the module, the go command's settings, gremlins' version)")
			}
			if enumErr == nil {
				sites, _, enumErr = mutation.ParseGremlinsOutput(b, cfg.Target)
			}
		}
	}()
	go func() {
		defer ready.Done()
		defer close(r.inputsReady)
		inErr = r.hashInputs(ctx)
	}()
	go func() {
		defer wg.Done()
		ready.Wait()
		if enumErr != nil || inErr != nil || pctx.Err() != nil {
			return
		}
		if muts, notes, planErr = r.collect(pctx, sites); planErr != nil {
			return
		}
		pl, planErr = r.planMutants(pctx, muts)
	}()
	wg.Wait()
	if pl != nil {
		defer pl.prog.Finish()
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res.BaselineMs = base.Wall.Milliseconds()
	if baseErr != nil {
		var nv *campaign.NotViable
		if errors.As(baseErr, &nv) {
			res.StopAtBaseline("the unmutated suite "+nv.What, &verdict.BaselineFailure{Repro: r.repro(), Output: nv.Out})
			res.WallMs = time.Since(start).Milliseconds()
			return res, nil
		}
		return nil, baseErr
	}
	if msg := baselineProblem(base); msg != "" {
		res.StopAtBaseline(msg, &verdict.BaselineFailure{Failed: base.Failed, Repro: r.repro(), Output: base.Output})
		res.WallMs = time.Since(start).Milliseconds()
		return res, nil
	}
	if enumErr != nil {
		return nil, fmt.Errorf("gremlins enumeration: %w", enumErr)
	}
	if inErr != nil {
		return nil, inErr
	}
	if planErr != nil {
		return nil, planErr
	}
	r.timeout = max(cfg.TimeoutFloor, time.Duration(float64(base.Wall)*cfg.TimeoutFactor))
	r.costOrder, r.costs = testrun.CostOrder(base.Costs), base.Costs
	res.TimeoutMs = r.timeout.Milliseconds()
	res.Campaign = r.campaign
	res.Notes = append(res.Notes, notes...)

	// A campaign whose runs all go to kept outcomes and hot processes
	// never needs test2json: a go command that cannot give it still ends
	// the campaign, as it did when setup looked it up in line.
	if err := r.waitTest2json(ctx); err != nil {
		return nil, err
	}

	// Phase 2: the mutants' runs.
	if err := r.runAll(ctx, pl); err != nil {
		return nil, err
	}
	r.waitGen()
	r.saveHints(muts)
	res.Generator = r.genCampaign()
	if n := r.sitesCut.Load(); n > 0 {
		r.note(fmt.Sprintf("mutation sites: the runs of %d mutants left out the cases that never run their mutated code (docs/mutation.md)", n))
	}
	if n := r.vetKept.Load(); n > 0 {
		r.note(fmt.Sprintf("go vet's pass reused for %d mutants not killed: each passed vet before on the same mutated source and inputs (they were run again)", n))
	}
	notRun := 0
	for _, m := range muts {
		if m.res.Status == "" && m.res.Source != verdict.SourceSanity {
			notRun++
			continue
		}
		res.Mutants = append(res.Mutants, m.res)
	}
	if err := r.suggestAll(ctx, muts, res); err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, r.notes...)
	res.SchemataMs = r.schemaMs
	if notRun > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d mutant(s) not run: the sanity mutant was not killed", notRun))
	}
	if r.cache != nil {
		if err := r.cache.Save(); err != nil {
			res.Notes = append(res.Notes, "cache not saved: "+err.Error())
		}
	}
	// The same directories hashed again (not listed again by the go
	// command, 0.16 s at the campaign's end): an edit that imports another
	// package changes a file of them.
	var dirs []string
	if p := r.inputDirs.Load(); p != nil {
		dirs = *p
	}
	after, err := testbin.HashDirs(r.cfg.Root, dirs)
	if err != nil {
		return nil, err
	}
	if changed := testbin.ChangedInputs(r.inputs, after); len(changed) > 0 {
		return nil, fmt.Errorf("the suite's inputs changed during the run (%s): its verdicts may mix two versions of the code; run again", strings.Join(verdict.First(changed, 5), ", "))
	}
	res.WallMs = time.Since(start).Milliseconds()
	if cfg.MeasureGremlins && !cfg.NoOperators {
		g, err := r.measureGremlins(ctx, res)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Notes = append(res.Notes, "gremlins measurement failed: "+err.Error())
		}
		res.Gremlins = g
	}
	verdict.Evaluate(res)
	return res, nil
}

// setup starts the reaper (before the environment every child gets is
// made: it marks it) and finds the go command's settings, test2json and the
// suite.
func (r *runner) setup(ctx context.Context) error {
	if err := workspace.StartReaper(); err != nil {
		r.notes = append(r.notes, "no reaper: if the run is killed with SIGKILL, a grandchild (the go command's linker) may outlive it: "+err.Error())
	}
	gotmp := filepath.Join(r.tmp, "gotmp")
	if err := os.MkdirAll(gotmp, 0o755); err != nil {
		return err
	}
	r.env = append(os.Environ(), "GOTMPDIR="+gotmp, "GOWORK=off")
	// What a campaign killed while it wrote a kept file left behind.
	suitebin.SweepStale(testbin.KeptDir(r.cfg.BinDir))
	// One `go env` for the campaign: its settings key the kept look-ups
	// and enumeration (testbin.Go.GoEnv), four of them every cache key.
	out, err := r.command(ctx, r.cfg.Root, "go", append([]string{"env", "-json"}, testbin.LookupEnvVars...)...).Output()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return campaign.ToolFailure("go env", err)
	}
	var vars map[string]string
	if err := json.Unmarshal(out, &vars); err != nil {
		return campaign.ToolFailure("go env -json", err)
	}
	env := []string{vars["GOVERSION"], vars["GOOS"], vars["GOARCH"], vars["GOFLAGS"]}
	r.goflags, r.goEnv = vars["GOFLAGS"], string(out)
	// Under its own context, which run cancels when it returns and then
	// waits for the lookup (a build of test2json on a cold build cache),
	// before it removes its temporary directory.
	lctx, stop := context.WithCancel(ctx)
	r.stopTest2json = stop
	g := r.testbin() // made here: the goroutine reads no runner field
	go func() {
		defer close(r.test2jsonReady)
		path, err := g.Test2json(lctx) // kept while the go command's settings hold
		switch {
		case err != nil && lctx.Err() != nil:
			r.test2jsonErr = lctx.Err()
		case err != nil:
			r.test2jsonErr = campaign.ToolFailure("go tool -n test2json", err)
		default:
			r.test2json = path
		}
	}()
	s, err := campaign.ResolveSuite(r.cfg.Root, r.cfg.SuitePkg, r.cfg.SuiteRun)
	if err != nil {
		return err
	}
	r.suite = s
	r.salt = cacheSalt(env, s, &r.cfg)
	return nil
}

// cacheSalt is the part of every cache key that is not a file: the go
// version, platform and GOFLAGS (env: GOVERSION, GOOS, GOARCH, GOFLAGS),
// the suite and its -run pattern, and every option that can change a
// verdict: vet on or off, and the timeout's factor and floor (a shorter
// timeout can turn a kill into a time-out; issue 11 item 14).
func cacheSalt(env []string, s verdict.Suite, c *Config) string {
	return strings.Join(append(append([]string{"waitsim-mutants-v2"}, env...), s.Pkg, s.Run, fmt.Sprint(!c.NoVet),
		fmt.Sprintf("timeout-factor=%g", c.TimeoutFactor), fmt.Sprintf("timeout-floor=%s", c.TimeoutFloor)), "\x00")
}

// baseline runs the unmutated suite, whose test binary is built once and
// reused while the module's sources are unchanged (suitebin; Config.BinDir).
func (r *runner) baseline(ctx context.Context) (testrun.Report, error) {
	dir := filepath.Join(r.tmp, "baseline")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return testrun.Report{}, err
	}
	bin, err := suitebin.Binary(ctx, suitebin.Options{Root: r.cfg.Root, Pkg: r.suite.Pkg, Dir: r.cfg.BinDir, Scratch: dir,
		Env: r.env, Command: workspace.GroupCommand})
	var be *suitebin.BuildError
	if errors.As(err, &be) {
		if ctx.Err() != nil {
			return testrun.Report{}, ctx.Err()
		}
		return testrun.Report{}, campaign.BuildFailure("building the unmutated suite (the baseline)", "does not compile", nil, r.cleanOutput(be.Output))
	}
	if err != nil {
		if ctx.Err() != nil {
			return testrun.Report{}, ctx.Err()
		}
		return testrun.Report{}, err
	}
	// The suite binaries' cache may prune it while this campaign still
	// starts processes from it (suggest, the generator's baseline).
	r.baseBin = testbin.Private(bin.Path, filepath.Join(r.tmp, "kept"))
	r.baseKey = bin.Key
	// The generator's baseline runs on the same binary, beside this run.
	r.startGenBaseline(ctx)
	kept := r.keptRun(ctx, "baseline", r.suite.Run, r.baseKey)
	var k keptBaseline
	if kept.load(&k) && baselineProblem(k.Report) == "" && !k.Report.TimedOut {
		r.caseFiles = k.CaseFiles
		r.note("the baseline's outcome reused: it passed before on the same test binary and inputs (the suite's files, the go command's settings)")
		return k.Report, nil
	}
	index := filepath.Join(dir, "results.json")
	rep, err := r.runWith(ctx, r.baseBin, r.suite.Run, 0, nil, results.Params{Results: index})
	if err == nil {
		r.caseFiles = testrun.CaseIndex(index)
		if baselineProblem(rep) == "" && !rep.TimedOut {
			kept.keep(ctx, keptBaseline{Report: rep, CaseFiles: r.caseFiles})
		}
	}
	return rep, err
}

// keptBaseline is the outcome of a baseline run that passed, kept for the
// next campaign on the same inputs (testbin.KeptRunPath): its report (the
// wall time that sets the mutants' timeout, the costs of kill first) and
// the table's case index.
type keptBaseline struct {
	Report    testrun.Report
	CaseFiles map[string]results.CaseRef `json:",omitempty"`
}

// keptRunRef names where the outcome of one run is kept: a baseline's, or
// a mutant's go vet pass (runner.vet).
type keptRunRef struct {
	r     *runner
	kind  string
	most  int // how many of kind are kept (testbin.KeepRun; 0: its default)
	parts []string
	path  string
}

// keptRun names the kept outcome of the run of kind decided also by parts,
// once the suite's inputs are known (they key it).
func (r *runner) keptRun(ctx context.Context, kind string, parts ...string) keptRunRef {
	select {
	case <-r.inputsReady:
	case <-ctx.Done():
		return keptRunRef{}
	}
	if r.inputs == nil { // not hashed: nothing is read or kept
		return keptRunRef{}
	}
	// Named by the inputs' hash of phase 1 (the mutants' keys use it too);
	// keep hashes them again.
	return keptRunRef{r: r, kind: kind, parts: parts, path: r.testbin().KeptRunPath(r.inputsKey, kind, parts...)}
}

func (k keptRunRef) load(v any) bool { return testbin.LoadKeptRun(k.path, v) }

func (k keptRunRef) keep(ctx context.Context, v any) {
	if k.r != nil {
		k.r.testbin().KeepRun(ctx, k.path, k.kind, k.most, k.parts, v)
	}
}

// baselineProblem says why a baseline run cannot serve, or "".
func baselineProblem(b testrun.Report) string {
	switch {
	case b.Exit != 0 && len(b.Failed) > 0:
		return fmt.Sprintf("the unmutated suite fails (%s); fix the suite or the code before mutating", strings.Join(verdict.First(b.Failed, 5), ", "))
	case b.Exit != 0:
		return fmt.Sprintf("the unmutated suite's test binary exited %d", b.Exit)
	case b.Passed == 0:
		return "the suite ran no test (check -run)"
	}
	return ""
}

// repro is the command that runs the kill suite by hand, each word
// shell-quoted (results.Command): pasted, it gives go the suite's package and
// -run pattern whatever they hold.
func (r *runner) repro() string {
	words := []string{"go", "test", r.suite.Pkg}
	if r.suite.Run != "" {
		words = append(words, "-run", r.suite.Run)
	}
	return results.Command(words...)
}

// collect builds the list of mutants: the sanity mutant first, then the
// catalog and the operator sites, filtered by Only, the shard and --diff.
func (r *runner) collect(ctx context.Context, sites []mutation.OperatorSite) ([]*mutant, []string, error) {
	var notes []string
	var muts []*mutant
	read := map[string][]byte{}
	source := func(rel string) ([]byte, error) {
		if b, ok := read[rel]; ok {
			return b, nil
		}
		b, err := os.ReadFile(r.cfg.Abs(rel))
		if err == nil {
			read[rel] = b
		}
		return b, err
	}
	if !r.cfg.NoCatalog {
		for _, e := range r.catalog {
			m := &mutant{res: verdict.MutantResult{ID: e.ID, Source: verdict.SourceCatalog, Intent: e.Intent, File: e.File}, catPath: e.Path}
			src, err := source(e.File)
			if err != nil {
				m.res.Status = verdict.StatusNoApply
				m.res.Detail = fmt.Sprintf("catalog mutant %s (%s): target file %s: %v", e.ID, e.Path, e.File, err)
				muts = append(muts, m)
				continue
			}
			out, ap, err := mutation.ApplyPatch(src, e.Patch)
			if err != nil {
				m.res.Status = verdict.StatusNoApply
				m.res.Detail = fmt.Sprintf("catalog mutant %s (%s) no longer applies to %s: %v", e.ID, e.Path, e.File, err)
				m.res.Diff = e.Patch
				muts = append(muts, m)
				continue
			}
			if bytes.Equal(out, src) {
				m.res.Status = verdict.StatusNoApply
				m.res.Detail = fmt.Sprintf("catalog mutant %s (%s) changes nothing: its patch gives %s back unchanged", e.ID, e.Path, e.File)
				m.res.Diff = e.Patch
				muts = append(muts, m)
				continue
			}
			m.files = map[string][]byte{e.File: out}
			m.lines = ap.Lines
			m.res.Line = ap.Line
			if ap.Offset != 0 {
				m.res.Detail = fmt.Sprintf("patch applied at offset %+d lines", ap.Offset)
			}
			m.res.Diff = mutation.UnifiedDiff(e.File, src, out)
			muts = append(muts, m)
		}
	}
	if !r.cfg.NoOperators {
		eq, err := mutation.LoadEquivalents(r.cfg.Abs(r.cfg.Equivalents))
		if errors.Is(err, verdict.ErrUsage) {
			return nil, nil, err // an *EquivalentsError: file:line:column: field: message
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", verdict.ErrUsage, err)
		}
		marks, err := mutation.LoadMarks(r.cfg.Root, r.cfg.Target) // //waitsim:equivalent (mutation/equivmark.go)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range sites {
			if campaign.InSubpackage(s.File, r.cfg.Target) {
				continue // another package's, under the target's directory
			}
			if err := campaign.CheckInPackage(s.File, r.cfg.Target); err != nil {
				return nil, nil, fmt.Errorf("gremlins' output: mutant %s: field file: %v", s.ID(), err)
			}
			id := s.ID()
			m := &mutant{res: verdict.MutantResult{ID: id, Source: verdict.SourceGremlins, File: s.File, Line: s.Line}, lines: []int{s.Line}}
			src, err := source(s.File)
			if err == nil {
				var out []byte
				var desc string
				out, desc, err = mutation.MutateOperator(s.File, src, s.Line, s.Col, s.Type)
				if err == nil {
					m.files = map[string][]byte{s.File: out}
					m.res.Intent = fmt.Sprintf("%s: %s", strings.ToLower(strings.ReplaceAll(s.Type, "_", " ")), desc)
					m.res.Diff = mutation.UnifiedDiff(s.File, src, out)
				}
			}
			if err != nil {
				m.res.Status = verdict.StatusNotViable
				m.res.Detail = "cannot materialize gremlins' mutant: " + err.Error()
			}
			if e, ok := eq[id]; ok {
				if line := mutation.SourceLine(src, s.Line); line == strings.TrimSpace(e.Source) {
					m.equiv = &e
				} else {
					notes = append(notes, fmt.Sprintf("%s: stale equivalent entry (line %d now reads %q, the entry was judged on %q); running it", id, s.Line, line, e.Source))
				}
			}
			applyMark(marks, m, s)
			muts = append(muts, m)
		}
		notes = append(notes, mutation.UnusedMarks(marks)...)
		for id := range eq {
			// An entry of another package is another campaign's (one
			// equivalents file may serve campaigns on several targets).
			if !hasID(muts, id) && verdict.InTarget(id, r.cfg.Target) {
				notes = append(notes, fmt.Sprintf("%s: equivalent entry matches no operator mutant any more; remove it", id))
			}
		}
	}
	sort.SliceStable(muts, func(i, j int) bool { return muts[i].res.ID < muts[j].res.ID })
	muts, err := r.filter(ctx, muts)
	if err != nil {
		return nil, nil, err
	}
	san, err := r.sanity()
	if err != nil {
		return nil, nil, err
	}
	muts = append([]*mutant{san}, muts...)
	for _, m := range muts {
		if m.files != nil {
			m.key = r.mutantKey(m.files)
		}
	}
	sort.Strings(notes)
	return muts, notes, nil
}

func hasID(muts []*mutant, id string) bool {
	for _, m := range muts {
		if m.res.ID == id {
			return true
		}
	}
	return false
}

// filter applies Only, --diff and the shard, in that order.
func (r *runner) filter(ctx context.Context, muts []*mutant) ([]*mutant, error) {
	keep := muts[:0:0]
	for _, m := range muts {
		if r.cfg.Only == nil || r.cfg.Only.MatchString(m.res.ID) {
			keep = append(keep, m)
		}
	}
	if r.cfg.Only != nil && len(keep) == 0 && len(muts) > 0 {
		ids := make([]string, 0, 3)
		for _, m := range muts[:min(3, len(muts))] {
			ids = append(ids, m.res.ID)
		}
		return nil, fmt.Errorf("%w: --only %q matches none of the campaign's %d mutants (ids such as %s)", verdict.ErrUsage, r.cfg.Only, len(muts), strings.Join(ids, ", "))
	}
	if r.cfg.DiffRef != "" {
		ch, err := mutation.ChangedLines(ctx, r.cfg.Root, r.cfg.DiffRef)
		if err != nil {
			return nil, err
		}
		sel := keep[:0:0]
		for _, m := range keep {
			if ch.Touches(m.res.File, m.lines) || (m.catPath != "" && ch.Touches(m.catPath, nil)) {
				sel = append(sel, m)
			}
		}
		keep = sel
	}
	ids := make([]string, len(keep))
	for i, m := range keep {
		ids[i] = m.res.ID
	}
	r.campaign = &verdict.Campaign{Total: len(keep), IDsHash: verdict.IDsHash(ids)}
	if r.cfg.Shard.N > 1 {
		sel := keep[:0:0]
		for i, m := range keep {
			if r.cfg.Shard.Has(i) {
				sel = append(sel, m)
			}
		}
		keep = sel
	}
	return keep, nil
}

// sanity builds the sanity mutant: every function of the target package's
// non-test files starts with `if true { panic(...) }`. It compiles and
// passes vet, and every test that reaches the package fails, so it must be
// killed: the proof that the overlay reaches the suite (issue 5).
func (r *runner) sanity() (*mutant, error) {
	dir := r.cfg.Abs(strings.TrimPrefix(r.cfg.Target, "./"))
	names, err := mutation.GoFiles(dir)
	if err != nil {
		return nil, err
	}
	m := &mutant{res: verdict.MutantResult{ID: "sanity", Source: verdict.SourceSanity,
		Intent: "every function of " + r.cfg.Target + " panics: the suite must fail, or the overlay does not reach it"}, files: map[string][]byte{}}
	var diffs []string
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out, err := mutation.PanicEverywhere(name, src)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(out, src) {
			continue
		}
		rel := mutation.RelTo(r.cfg.Root, name)
		m.files[rel] = out
		if m.res.File == "" {
			m.res.File = rel
		}
		diffs = append(diffs, mutation.UnifiedDiff(rel, src, out))
	}
	if len(m.files) == 0 {
		return nil, fmt.Errorf("%w: target %s has no function to break", verdict.ErrUsage, r.cfg.Target)
	}
	m.res.Diff = strings.Join(diffs, "")
	return m, nil
}

// hashInputs hashes every file the suite's verdict can depend on: go.mod,
// go.sum, vendor/modules.txt, and every file under the directories of the
// packages the suite's test binary imports outside GOROOT and the module
// cache — the module's own (so data files such as the scenario YAML count
// too), vendored ones, those of a directory a replace directive points at.
func (r *runner) hashInputs(ctx context.Context) error {
	dirs, err := r.moduleDirs(ctx, r.suite.Pkg)
	if err != nil {
		return err
	}
	r.inputDirs.Store(&dirs)
	in, err := testbin.HashDirs(r.cfg.Root, dirs)
	if err != nil {
		return err
	}
	r.inputs = in
	r.inputsKey = testbin.InputsKey(r.salt, in)
	return nil
}

// moduleDirs lists the directories of the packages pkg's test binary
// imports outside GOROOT and the module cache (pkg's own among them), each
// once (testbin.Go.ListDirs).
func (r *runner) moduleDirs(ctx context.Context, pkg string) ([]string, error) {
	out, err := r.testbin().ListDirs(ctx, pkg) // kept while the module is unchanged
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, campaign.ToolFailure("go list "+pkg, err)
	}
	var dirs []string
	seen := map[string]bool{}
	for _, dir := range testbin.Lines(out) {
		if !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	return dirs, nil
}

// testbin is how the runner runs the go command and keeps its builds
// (testbin.Go), made from the runner's state as it is now.
func (r *runner) testbin() *testbin.Go {
	var dirs []string
	if p := r.inputDirs.Load(); p != nil {
		dirs = *p
	}
	inputsKey := "" // read once phase 1 has hashed the inputs (inputsReady)
	select {
	case <-r.inputsReady:
		inputsKey = r.inputsKey
	default:
	}
	return &testbin.Go{
		InputsKey: inputsKey,
		Root:      r.cfg.Root,
		Env:       r.env,
		Pkg:       r.suite.Pkg,
		Tmp:       r.tmp,
		KeptDir:   testbin.KeptDir(r.cfg.BinDir),
		Salt:      r.salt,
		InputDirs: dirs,
		Clean:     r.cleanOutput,
		GoFlags:   r.goflags,
		// Every mutated file lies in the target package (collect, the
		// catalog's check): the suite's own vet sees none unless it is
		// the target.
		NoVet: !campaign.SamePackage(r.suite.Pkg, r.cfg.Target),
		GoEnv: r.goEnv,
	}
}

// command prepares a child process: in dir, with the runner's environment,
// in its own process group that is killed as a whole when ctx ends.
func (r *runner) command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	return r.testbin().Command(ctx, dir, name, args...)
}

// mutantKey is a mutant's cache key (testbin.MutantKey).
func (r *runner) mutantKey(files map[string][]byte) string {
	return testbin.MutantKey(r.salt, r.inputs, files)
}

// measureGremlins runs gremlins' own campaign on the target (after the
// gate's, so that the two do not share the CPU) and compares its verdicts
// with res's operator mutants (verdict.CompareGremlins).
func (r *runner) measureGremlins(ctx context.Context, res *verdict.Result) (*verdict.GremlinsRun, error) {
	b, wall, code, err := r.testbin().Gremlins(ctx, r.cfg.Target, r.cfg.Workers, false)
	if err != nil {
		return nil, err
	}
	_, status, err := mutation.ParseGremlinsOutput(b, r.cfg.Target)
	if err != nil {
		return nil, err
	}
	return verdict.CompareGremlins(status, wall, code, res.Mutants), nil
}
