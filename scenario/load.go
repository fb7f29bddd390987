package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/sim"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Packs a table may be loaded for (Options.Pack).
const (
	// PackWaitAgents is the orchestration_wait_agents contract pack: every
	// key of the format means something.
	PackWaitAgents = "wait_agents"
	// PackGeneric is any tool registered on an mcp.Server (waitsim.Params.Tool):
	// the wait_agents keys are refused.
	PackGeneric = "generic"
)

// Options say what the loader checks beyond the format itself.
type Options struct {
	// Pack is the pack that will run the cases: PackWaitAgents ("" too) or
	// PackGeneric.
	Pack string
	// Tools are the published input schemas of the tools the worlds' server
	// lists, by name: a caller's args are checked against its tool's
	// (unless it sets invalidArgs), and a caller's tool: must name one.
	// Nil: args are not checked.
	Tools map[string]*jsonschema.Schema
	// Outputs are the published output schemas of the tools that have one,
	// by name: an expectation's replyFields name fields of it, each value
	// one its field allows. Nil, or a tool without one: not checked.
	Outputs map[string]*jsonschema.Schema
	// DefaultTool is the tool a caller without tool: calls; "" is the only
	// one of Tools.
	DefaultTool string
}

// defaultTool is the tool a caller without tool: calls, or "" when Tools
// does not tell.
func (o *Options) defaultTool() string {
	if o.DefaultTool != "" {
		return o.DefaultTool
	}
	if len(o.Tools) == 1 {
		for name := range o.Tools {
			return name
		}
	}
	return ""
}

// Case is one scenario after matrix expansion, validated and ready to run.
type Case struct {
	ID       string   // name, or name[p1=v1,p2=v2]
	File     string   // the path as given to Load
	Line     int      // line of the scenario in File
	Protects string   // the file's "# protects:" line
	Params   []Param  // matrix values of this case
	Scenario Scenario // decoded, placeholders replaced
}

// ProtectsPrefix opens the comment line every scenario file must have: one
// line that says what the file protects against.
const ProtectsPrefix = "# protects:"

// Expand lists the YAML files named by paths: files as given, directories
// walked for *.yaml and *.yml, in lexical order.
func Expand(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return slices.Compact(files), nil
}

// Load reads, expands and validates every scenario file named by paths (see
// Expand). Every file is validated before anything runs: on any problem it
// returns a *results.FileError listing all of them. Case ids must be unique,
// also as go test names (results.TestName).
func Load(paths []string, opts Options) ([]Case, error) {
	files, err := Expand(paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no scenario files (*.yaml) under %s", strings.Join(paths, ", "))
	}
	var cases []Case
	var problems []results.Problem
	seen := map[string]string{}  // case id → where
	named := map[string]string{} // go test name → case id
	for _, f := range files {
		cs, errs := loadSorted(f, &opts)
		problems = append(problems, errs...)
		for _, c := range cs {
			where := fmt.Sprintf("%s:%d", c.File, c.Line)
			if prev, dup := seen[c.ID]; dup {
				problems = append(problems, results.Problem{File: c.File, Line: c.Line, Column: 1, Field: "name", Message: fmt.Sprintf("case id %q already defined at %s", c.ID, prev)})
				continue
			}
			if strings.Contains(c.ID, "/") {
				problems = append(problems, results.Problem{File: c.File, Line: c.Line, Column: 1, Field: "matrix",
					Message: fmt.Sprintf("case id %q holds a '/', which go test reads as one more subtest level: no command could run this case alone; use another character in the matrix value", c.ID)})
				continue
			}
			if other, dup := named[results.TestName(c.ID)]; dup {
				problems = append(problems, results.Problem{File: c.File, Line: c.Line, Column: 1, Field: "name",
					Message: fmt.Sprintf("case id %q and case id %q (at %s) are one go test name, %q: go test could not run one without the other; make them differ in more than white space", c.ID, other, seen[other], results.TestName(c.ID))})
				continue
			}
			seen[c.ID] = where
			named[results.TestName(c.ID)] = c.ID
			cases = append(cases, c)
		}
	}
	if len(problems) > 0 {
		return nil, &results.FileError{Problems: bounded(problems)}
	}
	return cases, nil
}

// LoadFile loads one file; its problems come sorted by place in the file,
// at most MaxProblemsPerFile of them, then one that counts the rest.
func LoadFile(file string, opts Options) ([]Case, []results.Problem) {
	cases, problems := loadSorted(file, &opts)
	return cases, bounded(problems)
}

// loadSorted loads one file, its problems sorted by place in the file.
func loadSorted(file string, opts *Options) ([]Case, []results.Problem) {
	cases, problems := loadFile(file, opts)
	slices.SortStableFunc(problems, func(a, b results.Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return cases, problems
}

// bounded keeps at most MaxProblemsPerFile problems of each file (problems
// come grouped by file), then one, of the whole file, that counts the rest.
func bounded(problems []results.Problem) []results.Problem {
	var out []results.Problem
	listed, more := 0, 0 // of the current file
	end := func(file string) {
		if more > 0 {
			out = append(out, results.Problem{File: file, Field: "file",
				Message: fmt.Sprintf("and %d more problems in this file (at most %d are listed)", more, MaxProblemsPerFile)})
		}
	}
	for k, p := range problems {
		if k > 0 && p.File != problems[k-1].File {
			end(problems[k-1].File)
			listed, more = 0, 0
		}
		if listed < MaxProblemsPerFile {
			out = append(out, p)
			listed++
		} else {
			more++
		}
	}
	if len(problems) > 0 {
		end(problems[len(problems)-1].File)
	}
	return out
}

func loadFile(file string, opts *Options) ([]Case, []results.Problem) {
	one := func(p results.Problem) []results.Problem { return []results.Problem{p} }
	text, err := limits.Read(file, limits.Scenario)
	var le *limits.Error
	if errors.As(err, &le) {
		return nil, one(results.Problem{File: file, Line: le.Line, Column: le.Column, Field: le.Field, Message: le.Message})
	}
	if err != nil {
		return nil, one(results.Problem{File: file, Field: "file", Message: err.Error()})
	}
	src, values := text.Src, text.Values
	prob := func(line, col int, field, msg string) results.Problem {
		return results.Problem{File: file, Line: line, Column: col, Field: field, Message: msg}
	}
	protects := ""
	for _, l := range limits.SplitLines(string(src)) {
		if strings.HasPrefix(l, ProtectsPrefix) {
			protects = strings.TrimSpace(strings.TrimPrefix(l, ProtectsPrefix))
			break
		}
	}
	var problems []results.Problem
	if protects == "" {
		problems = append(problems, prob(1, 1, "protects", "the file must say in one comment line what it protects against: '"+ProtectsPrefix+" …'"))
	}
	nodes, perr := scenarioNodes(src)
	if perr != nil {
		return nil, append(problems, yamlProblem(file, perr))
	}
	var cases []Case
	fl := &fileLoad{file: file, values: values, work: values, protects: protects, opts: opts} // work: the parse above
	for i, node := range nodes {
		cs, errs := fl.scenario(node, i)
		cases = append(cases, cs...)
		problems = append(problems, errs...)
	}
	return cases, problems
}

// fileLoad is the loading of one file: what it has cost so far, against
// the bounds of a file (MaxLoadWork, MaxCallsPerFile).
type fileLoad struct {
	file     string
	values   int // the file's value count
	work     int // the work spent on the file so far (MaxLoadWork)
	calls    int // the calls its cases so far may make (MaxCallsPerFile)
	over     bool
	protects string
	opts     *Options
}

// scenario loads the i-th scenario of the file, node: checking it, or
// one of its matrix cases, adds the file's values to the work.
func (fl *fileLoad) scenario(node ast.Node, i int) ([]Case, []results.Problem) {
	file, values := fl.file, fl.values
	if fl.over {
		return nil, nil // the file's bound is reported once
	}
	fl.work += values
	if fl.work > MaxLoadWork {
		return nil, []results.Problem{yamlProblem(file, nodeErr(node, "scenarios", "too much to load: %d scenarios in a file of %d values: (1 + cases) × values summed over them is more than %d (docs/scenarios.md: Limits)", i+1, values, MaxLoadWork))}
	}
	line := node.GetToken().Position.Line
	combos, distinct, err := matrixCombos(node)
	if err != nil {
		return nil, []results.Problem{yamlProblem(file, err)}
	}
	// Named at its matrix, or at the scenario when it has none.
	at, field := child(node, "matrix"), "matrix"
	if at == nil {
		at, field = node, "scenarios"
	}
	if fl.work+len(combos)*values > MaxLoadWork {
		return nil, []results.Problem{yamlProblem(file, nodeErr(at, field,
			"%d cases of a file of %d values: (1 + cases) × values is more than %d (docs/scenarios.md: Limits)", len(combos), values, MaxLoadWork))}
	}
	fl.work += len(combos) * values
	var cases []Case
	var problems []results.Problem
	n := node // one parse serves every case: substitute's changes are undone after each
	for _, params := range combos {
		var undo []func()
		restore := func() {
			for j := len(undo) - 1; j >= 0; j-- {
				undo[j]()
			}
		}
		var ok bool
		problems, ok = loadCase(file, n, params, &undo, line, fl.protects, &cases, problems, fl.opts)
		restore()
		if !ok {
			break
		}
		if len(cases) == 1 && distinct != nil {
			if err := distinct(); err != nil {
				return nil, append(problems, yamlProblem(file, err))
			}
		}
		fl.calls += Calls(&cases[len(cases)-1].Scenario)
		if fl.calls > MaxCallsPerFile {
			fl.over = true
			return nil, append(problems, yamlProblem(file, nodeErr(at, field,
				"the file's cases may make %d calls or more: more than %d a file (a caller counts its maxCalls, default %d, when it follows or retries, else 1; docs/scenarios.md: Limits)", fl.calls, MaxCallsPerFile, sim.DefaultMaxCalls)))
		}
	}
	return cases, problems
}

// loadCase substitutes params into the scenario node n (recording its
// changes in undo), checks and decodes it, and appends the case to cases or
// its problems to problems; ok is false when it had problems.
func loadCase(file string, n ast.Node, params []Param, undo *[]func(), line int, protects string, cases *[]Case, problems []results.Problem, opts *Options) ([]results.Problem, bool) {
	if err := substitute(n, params, undo); err != nil {
		return append(problems, yamlProblem(file, err)), false
	}
	if errs := typeCheck(n, reflect.TypeFor[Scenario](), "", opts.Pack == PackGeneric); len(errs) > 0 {
		for _, e := range errs {
			problems = append(problems, yamlProblem(file, e))
		}
		return problems, false
	}
	var sc Scenario
	if err := yaml.NodeToValue(n, &sc, yaml.Strict()); err != nil {
		return append(problems, yamlProblem(file, err)), false
	}
	errs := validate(&sc, n, opts)
	for _, e := range errs {
		problems = append(problems, yamlProblem(file, e))
	}
	if len(errs) > 0 {
		return problems, false
	}
	*cases = append(*cases, Case{ID: caseID(sc.Name, params), File: file, Line: line, Protects: protects, Params: params, Scenario: sc})
	return problems, true
}
