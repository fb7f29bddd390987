package scenario

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/waittool"
)

// refOpts load as the reference tool's table does (the wait_agents pack:
// the reference's own input schema).
var refOpts = func() Options {
	s, err := waittool.InputSchema()
	if err != nil {
		panic(err)
	}
	return Options{Pack: PackWaitAgents, DefaultTool: waittool.ToolName, Tools: map[string]*jsonschema.Schema{waittool.ToolName: s}}
}()

func loadRef(paths []string) ([]Case, error) { return Load(paths, refOpts) }

// loadFileRef is LoadFile with refOpts, its problems as lines.
func loadFileRef(file string) ([]Case, []string) {
	cases, ps := LoadFile(file, refOpts)
	var lines []string
	for _, p := range ps {
		lines = append(lines, p.String())
	}
	return cases, lines
}

// problemLines is fe's problems as lines.
func problemLines(fe *results.FileError) []string {
	lines := make([]string, len(fe.Problems))
	for i, p := range fe.Problems {
		lines[i] = p.String()
	}
	return lines
}

// checkLimits checks src as the loader does before it parses a file, and
// returns the values counted.
func checkLimits(src []byte) (int, error) {
	text, err := limits.Check(src, limits.Scenario)
	return text.Values, err
}
