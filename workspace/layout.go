package workspace

import (
	"os"
	"path/filepath"
	"regexp"
)

// Where commands write, relative to the module root, in any module.
const (
	OutDir             = "out"
	ScenarioResults    = "out/scenarios.json"      // waitsim run --json
	MutationResults    = "out/mutation.json"       // waitsim mutate
	MutationCache      = "out/mutation-cache.json" // waitsim mutate's cache
	ConformanceResults = "out/conformance.json"    // waitsim conformance
	ReportDir          = "out/report"              // waitsim report
	SuggestDir         = "out/suggested"           // waitsim mutate --suggest
	GeneratedDir       = "out/generated"           // a shrunk failing generated world
)

// Gremlins, which enumerates operator mutants: the package and the version
// this module's go.mod pins with its tool line (a test keeps them equal).
// In a module without that tool line, waitsim runs this version itself
// (go run GremlinsPkg@GremlinsVersion).
const (
	GremlinsPkg     = "github.com/go-gremlins/gremlins/cmd/gremlins"
	GremlinsVersion = "v0.6.0"
)

// GremlinsConfig is gremlins' config file at the module root, whose
// unleash.threshold.efficacy is the gate's operator-score threshold.
const GremlinsConfig = ".gremlins.yaml"

// Waitsim's own module and its layout.
const (
	OwnModule      = "github.com/waitsim/waitsim"
	OwnSuitePkg    = "./scenarios/"
	OwnSuiteTest   = "TestTable"
	OwnSuiteRun    = "^" + OwnSuiteTest + "$"
	OwnTarget      = "./waittool/"
	OwnCatalog     = "mutants/catalog"
	OwnEquivalents = "mutants/equivalent.yaml"
	OwnAccepted    = "mutants/accepted.yaml"
)

// In a module of one's own, waitsim's files live under one directory:
// the semantic catalog, the list of equivalent mutants and the list of
// accepted survivors (the mutation gate's ratchet), each optional.
const (
	UserDir         = "waitsim"
	UserCatalog     = "waitsim/catalog"
	UserEquivalents = "waitsim/equivalent.yaml"
	UserAccepted    = "waitsim/accepted.yaml"
)

var moduleLine = regexp.MustCompile(`(?m)^module\s+"?([^\s"]+)"?\s*$`)

// ModulePath is the module path the go.mod at root declares ("" when it
// cannot be read).
func ModulePath(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	if m := moduleLine.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// IsOwn reports whether root is waitsim's own module.
func IsOwn(root string) bool { return ModulePath(root) == OwnModule }

var toolLine = regexp.MustCompile(`(?m)^\s*tool\s+` + regexp.QuoteMeta(GremlinsPkg) + `\s*$|^tool\s*\((?s:[^)]*)\b` + regexp.QuoteMeta(GremlinsPkg) + `\b`)

// GremlinsArgs are the go command's arguments that run gremlins in the
// module at root: `go tool gremlins` when its go.mod has gremlins as a
// tool, else gremlins at GremlinsVersion (go run pkg@version).
func GremlinsArgs(root string) []string {
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil && toolLine.Match(b) {
		return []string{"tool", "gremlins"}
	}
	return []string{"run", GremlinsPkg + "@" + GremlinsVersion}
}
