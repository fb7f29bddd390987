package limits

// Doc is where the limits are stated for people; every refusal ends with it.
const Doc = "docs/scenarios.md: Limits"

// The kinds of file waitsim reads, and their limits. Each is far above what
// the repository's own files need (noted beside it) and low enough that the
// parser's time and memory stay small; docs/scenarios.md ("Limits") states
// the same numbers, and a test keeps the two equal.
var (
	// Scenario is a scenario file (scenario.Load). The largest table file is
	// under 3 KB, 6 levels deep.
	Scenario = Kind{Name: "a scenario file", Format: YAML, MaxBytes: 128 << 10, MaxDepth: 32, MaxEntries: 1000, MaxValues: 10000}
	// CatalogEntry is one file of the mutation catalog (mutants.LoadCatalog):
	// a mapping of four strings, the largest 1.2 KB.
	CatalogEntry = Kind{Name: "a catalog entry", Format: YAML, MaxBytes: 256 << 10, MaxDepth: 8, MaxEntries: 100, MaxValues: 1000}
	// Equivalents is the list of equivalent operator mutants
	// (mutants.LoadEquivalents): 5 KB, 3 values an entry.
	Equivalents = Kind{Name: "the equivalents file", Format: YAML, MaxBytes: 256 << 10, MaxDepth: 8, MaxEntries: 5000, MaxValues: 20000}
	// Accepted is the ratchet's file of accepted survivors
	// (mutants.LoadRatchet): like the equivalents file, 2 values an entry.
	Accepted = Kind{Name: "the accepted survivors file", Format: YAML, MaxBytes: 256 << 10, MaxDepth: 8, MaxEntries: 5000, MaxValues: 20000}
	// GremlinsConfig is .gremlins.yaml (mutants.LoadThresholds), which
	// gremlins reads too: under 1 KB, 3 levels.
	GremlinsConfig = Kind{Name: "the gremlins config", Format: YAML, MaxBytes: 64 << 10, MaxDepth: 16, MaxEntries: 1000, MaxValues: 10000}
	// Params is the params file a command hands the test binary
	// (results.ReadParams): a few KB, 3 levels.
	Params = Kind{Name: "a params file", Format: JSON, MaxBytes: 16 << 20, MaxDepth: 8, MaxEntries: 1000000, MaxValues: 4000000}
	// Results is a results file waitsim wrote and reads back: the scenario
	// run's (results.ReadRun, the reports), the mutation run's, a shard's,
	// a report's run.json and the mutation cache. The whole table's
	// scenarios.json is 41 MB, 9 levels deep, at most 3882 entries in one
	// list and 1.25 million values.
	Results = Kind{Name: "a results file", Format: JSON, MaxBytes: 256 << 20, MaxDepth: 32, MaxEntries: 1000000, MaxValues: 32000000}
)

// Kinds lists every kind of file, in the order docs/scenarios.md states them.
func Kinds() []Kind {
	return []Kind{Scenario, CatalogEntry, Equivalents, GremlinsConfig, Params, Results}
}
