package scenario

import (
	"fmt"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/sim"
)

// Limits of a scenario file, checked on its bytes before the YAML parser
// sees them (issue 11 item 7, issue 20 item 2) by the one mechanism every
// file waitsim reads goes through: limits.Read, with limits.Scenario. A
// parser's time and memory grow with the nesting depth and the number of
// values, so a small hostile file could take minutes and gigabytes. Every
// table file is far inside them (the largest is under 3 KB, 6 levels deep).
// A file over a limit is refused with file:line:column of the first place
// it goes over. docs/scenarios.md ("Limits") and schema.json state the same
// numbers.
var (
	// MaxFileBytes is the size of a scenario file, in bytes.
	MaxFileBytes = int(limits.Scenario.MaxBytes)
	// MaxDepth is how deeply collections may nest: block and flow
	// collections together.
	MaxDepth = limits.Scenario.MaxDepth
	// MaxEntries is the number of entries of one list or mapping.
	MaxEntries = limits.Scenario.MaxEntries
	// MaxValues is the number of values (list and mapping entries) of a
	// whole file.
	MaxValues = limits.Scenario.MaxValues
)

// Bounds of what a file makes waitsim do once it is parsed: check it, build
// its agents' messages, run its calls. docs/scenarios.md ("Limits") states
// them.
const (
	// MaxLoadWork bounds the work of loading one file: the file is parsed
	// once, and each scenario then checked once per matrix case, so
	// (1 + cases) × values of the file, summed over its scenarios, may not
	// exceed it. (Values are the entries the parser builds; a matrix of
	// 1000 rows of one parameter, 2000 of them, fits.)
	MaxLoadWork = 3000000
	// MaxGeneratedMessages bounds the messages generate: makes, summed
	// over a scenario's agents (count).
	MaxGeneratedMessages = 10000
	// MaxGeneratedChars bounds the characters generate: makes, summed
	// over a scenario's agents (count × chars).
	MaxGeneratedChars = 1000000
	// MaxCallsPerCase bounds the calls one case may make: each caller
	// counts its maxCalls (default sim.DefaultMaxCalls) when it follows a
	// chain or retries after a transport failure, else 1.
	MaxCallsPerCase = 500
	// MaxCallsPerFile bounds the calls of all the cases of a file, counted
	// as for MaxCallsPerCase.
	MaxCallsPerFile = 5000
	// MaxProblemsPerFile bounds the problems listed for one file; one more
	// problem says how many were left out.
	MaxProblemsPerFile = 100
)

// LimitsText states the limits for people (README.md, schema.json).
var LimitsText = fmt.Sprintf("%s, and (1 + matrix cases) × values ≤ %d; generate: at most %d messages and %d characters a scenario; at most %d calls a case and %d a file (a caller counts its maxCalls, default %d, when it follows or retries)",
	limits.Scenario.Text(), MaxLoadWork, MaxGeneratedMessages, MaxGeneratedChars, MaxCallsPerCase, MaxCallsPerFile, sim.DefaultMaxCalls)
