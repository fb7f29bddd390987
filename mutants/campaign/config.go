package campaign

import (
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"
)

// Config is one mutation campaign. Paths are relative to Root unless
// absolute; package patterns are "./dir/" relative to Root.
type Config struct {
	Root     string // module root (the directory of go.mod); required
	SuitePkg string // the kill suite's package, default "./scenarios/"
	SuiteRun string // its -test.run pattern, default "^TestTable$"
	// Target is the package under mutation: the one gremlins enumerates
	// operator mutants in. Default "./waittool/".
	Target      string
	CatalogDir  string        // default "mutants/catalog"
	Equivalents string        // default "mutants/equivalent.yaml"
	Accepted    string        // the accepted survivors (the ratchet), default "mutants/accepted.yaml"
	GremlinsCfg string        // default ".gremlins.yaml": the operator-score threshold
	Workers     int           // parallel mutants, default runtime.NumCPU()
	Shard       verdict.Shard // the zero Shard is the whole campaign
	DiffRef     string        // when set, only mutants on lines changed since this git ref
	CacheFile   string        // incremental cache; "" disables it
	// TimeoutFactor and TimeoutFloor set a mutant's test-run timeout:
	// max(TimeoutFloor, TimeoutFactor × the baseline run's wall time). Build
	// time is never counted. Defaults 10 and 5 s.
	TimeoutFactor float64
	TimeoutFloor  time.Duration
	NoCatalog     bool // skip the semantic catalog
	// catalogAbsent: Defaults set NoCatalog because the module has no
	// catalog directory. The campaign is then whole, not narrowed by
	// --no-catalog (Options).
	catalogAbsent bool
	// ThresholdDefault: the module has no gremlins config, and the
	// operator-score threshold is the default (Options records config as
	// "-", so that the gate does not name a file that is not there).
	ThresholdDefault bool
	NoOperators      bool           // skip gremlins' operator mutants
	NoVet            bool           // skip the go vet viability check
	Only             *regexp.Regexp // when set, only mutants whose id matches
	// MeasureGremlins also runs gremlins' own campaign on Target after the
	// gate's, for the per-mutant comparison in Result.Gremlins.
	MeasureGremlins bool
	// Progress receives progress lines (nil: none); TTY makes it one line
	// rewritten in place with done/total and ETA.
	Progress io.Writer
	TTY      bool
	// Mode is ModeSchemata (default) or ModeOverlay.
	Mode string
	// GenWorlds > 0 runs the generator campaign (mutants/generator.go): each
	// mutant's test binary runs GenRun too, drawing GenWorlds worlds, and
	// the generator's kill rate is reported beside the table's. 0: none.
	GenWorlds int
	GenRun    string // the generator's -test.run pattern, default "^TestGenerated$"
	// Suggest writes, for every survivor, a scenario file that kills it
	// (mutants/suggestions) under SuggestDir (default "out/suggested").
	Suggest    bool
	SuggestDir string
	// AllKillers runs every case of the suite for each mutant and lists
	// every failing one in KilledBy; by default a mutant's run stops at its
	// first failing case (kill first, see mutants/killfirst.go). Verdicts are the
	// same either way.
	AllKillers bool
	// BinDir keeps the unmutated suite's test binary between campaigns
	// (suitebin.Options.Dir; "" is the user cache directory's).
	BinDir string
	// HintsDir keeps the cold hints between campaigns (testbin.ColdHints;
	// "" is beside the kept binaries, testbin.KeptDir of BinDir). They
	// decide no verdict; a test that must see a hot process die gives
	// its own.
	HintsDir string
	// Runner is RunnerHot (the default: a long-lived process per worker
	// runs mutant after mutant, mutants/hot.go) or RunnerCold (a process per
	// mutant). The verdicts are the same.
	Runner string
}

// Build modes. In ModeOverlay every mutant's test binary is built on its
// own through `go test -c -overlay`. In ModeSchemata (the default) the
// mutants whose changes lie inside function bodies share one test binary,
// each behind a switch (see mutants/testbin/schemata.go), and only the others are built on
// their own; verdicts are the same, the cost far lower.
const (
	ModeSchemata = "schemata"
	ModeOverlay  = "overlay"
)

// Defaults fills what cfg leaves empty: the one place of the campaign's
// defaults (the command's flags default to empty). In waitsim's own module
// they are its layout (workspace.Own*); in a module of one's own the kill
// suite is the test that calls waitsim.Run (workspace.FindSuite), the target
// its package, and the catalog, the equivalents and the accepted survivors
// live under waitsim/, each optional. It returns notes on what it chose and a usage error when a
// module of one's own leaves the suite or the target to guess.
func (c *Config) Defaults() ([]string, error) {
	var notes []string
	own := workspace.IsOwn(c.Root)
	if c.SuitePkg == "" {
		if own {
			c.SuitePkg = workspace.OwnSuitePkg
			if c.SuiteRun == "" {
				c.SuiteRun = workspace.OwnSuiteRun
			}
		} else {
			st, err := workspace.FindSuite(c.Root, "", "")
			if err != nil {
				return nil, fmt.Errorf("%w: the kill suite: %v (or name it: --pkg, --run)", verdict.ErrUsage, err)
			}
			c.SuitePkg = st.Pkg
			if c.SuiteRun == "" {
				c.SuiteRun = st.RunPattern()
			}
		}
	}
	if c.Target == "" {
		switch {
		case own:
			c.Target = workspace.OwnTarget
		case hasCode(c.Abs(c.SuitePkg)):
			c.Target = c.SuitePkg
			notes = append(notes, fmt.Sprintf("target: %s, the kill suite's own package (--target names another)", c.Target))
		default:
			return nil, fmt.Errorf("%w: name the package to mutate: --target ./yourtool/ (the kill suite %s holds no code of its own)", verdict.ErrUsage, c.SuitePkg)
		}
	}
	if c.CatalogDir == "" {
		c.CatalogDir = workspace.OwnCatalog
		if !own {
			c.CatalogDir = workspace.UserCatalog
			if mutation.CheckDir(c.Abs(c.CatalogDir)) != nil && !c.NoCatalog {
				c.NoCatalog, c.catalogAbsent = true, true
				notes = append(notes, fmt.Sprintf("no semantic catalog (%s/ holds one, each mutant a file)", workspace.UserCatalog))
			}
		}
	}
	if c.Equivalents == "" {
		c.Equivalents = workspace.OwnEquivalents
		if !own {
			c.Equivalents = workspace.UserEquivalents
		}
	}
	if c.Accepted == "" {
		c.Accepted = workspace.OwnAccepted
		if !own {
			c.Accepted = workspace.UserAccepted
		}
	}
	if c.GremlinsCfg == "" {
		c.GremlinsCfg = workspace.GremlinsConfig
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.TimeoutFactor <= 0 {
		c.TimeoutFactor = DefaultTimeoutFactor
	}
	if c.TimeoutFloor <= 0 {
		c.TimeoutFloor = DefaultTimeoutFloor
	}
	if c.Mode == "" {
		c.Mode = ModeSchemata
	}
	if c.Runner == "" {
		c.Runner = RunnerHot
	}
	if c.GenRun == "" {
		c.GenRun = DefaultGenRun
	}
	if c.SuggestDir == "" {
		c.SuggestDir = workspace.SuggestDir
	}
	return notes, nil
}

// hasCode reports whether dir holds a Go file, not a test, that declares
// something (a package clause and a doc comment alone are no code to
// mutate).
func hasCode(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range m {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution); err == nil && len(pf.Decls) > 0 {
			return true
		}
	}
	return false
}

// Validate rejects settings that cannot mean anything (ErrUsage): a
// negative Workers (0 is the core count), a TimeoutFactor or TimeoutFloor
// below zero (0 is the default).
func (c *Config) Validate() error {
	switch {
	case c.Root == "":
		return fmt.Errorf("%w: no module root", verdict.ErrUsage)
	case c.Workers < 0:
		return fmt.Errorf("%w: --workers %d: want ≥ 1, or 0 for the number of cores", verdict.ErrUsage, c.Workers)
	case c.TimeoutFactor < 0 || math.IsNaN(c.TimeoutFactor) || math.IsInf(c.TimeoutFactor, 0):
		return fmt.Errorf("%w: --timeout-factor %v: want a number > 0", verdict.ErrUsage, c.TimeoutFactor)
	case c.TimeoutFloor < 0:
		return fmt.Errorf("%w: --timeout-floor %v: want a duration > 0", verdict.ErrUsage, c.TimeoutFloor)
	}
	for _, f := range [...]struct{ flag, pkg string }{{"--pkg", c.SuitePkg}, {"--target", c.Target}} {
		if f.pkg != "" && !localPackage(f.pkg) {
			return fmt.Errorf("%w: %s %s: want a package directory of the module, written from its root as ./dir/ (e.g. ./%s)", verdict.ErrUsage, f.flag, f.pkg, strings.TrimPrefix(f.pkg, "/"))
		}
	}
	return nil
}

// localPackage reports whether pkg is written as a directory from the
// module root ("." or "./dir/"), as the go command reads a relative path;
// "dir/" would be an import path, which the go command looks up in the
// standard library.
func localPackage(pkg string) bool {
	p := filepath.ToSlash(pkg)
	return p == "." || strings.HasPrefix(p, "./")
}

// Options is Result.Options: the settings that decide the mutant set or
// the verdicts, canonically (Workers, Mode and progress do not).
// no-catalog is the option as given: a module without a catalog directory
// runs its whole campaign (a report does not call it partial).
func (c *Config) Options() string {
	only := ""
	if c.Only != nil {
		only = c.Only.String()
	}
	config := filepath.ToSlash(c.GremlinsCfg)
	if c.ThresholdDefault {
		config = "-"
	}
	s := fmt.Sprintf("target=%s catalog=%s equivalents=%s config=%s no-catalog=%t no-operators=%t no-vet=%t only=%q diff=%q timeout-factor=%g timeout-floor=%s%s",
		c.Target, filepath.ToSlash(c.CatalogDir), filepath.ToSlash(c.Equivalents), config, c.NoCatalog && !c.catalogAbsent, c.NoOperators, c.NoVet, only, c.DiffRef, c.TimeoutFactor, c.TimeoutFloor, c.genOptions())
	if c.AllKillers {
		s += " all-killers=true" // the same verdicts, but fuller killedBy lists
	}
	return s
}

// Abs is the path p, relative to Root unless absolute.
func (c *Config) Abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Root, filepath.FromSlash(p))
}

// Runners (Config.Runner).
const (
	RunnerHot  = "hot"
	RunnerCold = "cold"
)

// A mutant's test-run timeout by default: max(DefaultTimeoutFloor,
// DefaultTimeoutFactor × the baseline run's wall time).
const (
	DefaultTimeoutFactor = 10
	DefaultTimeoutFloor  = 5 * time.Second
)

// DefaultGenRun is the generator's -test.run pattern by default.
const DefaultGenRun = "^TestGenerated$"

// DefaultGenWorlds is `waitsim mutate`'s default --generator: worlds per
// mutant. With the generator's fixed seed, 200 worlds kill every catalog
// mutant (40 left late-not-inherited and lost-read-not-charged alive).
const DefaultGenWorlds = 200

// genOptions is the generator's part of Config.Options: shards that differ
// in it are of different campaigns.
func (c *Config) genOptions() string {
	if c.GenWorlds <= 0 {
		return ""
	}
	return fmt.Sprintf(" generator=%s:%d", c.GenRun, c.GenWorlds)
}
