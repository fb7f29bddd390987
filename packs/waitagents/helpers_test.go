package waitagents

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/waitsim/waitsim/scenario"
)

// refOpts load as the reference tool's table does.
var refOpts = func() scenario.Options {
	o, err := Reference().LoadOptions()
	if err != nil {
		panic(err)
	}
	return o
}()

func loadRef(paths []string) ([]scenario.Case, error) { return scenario.Load(paths, refOpts) }

// loadSrc writes src as a scenario file and loads it: its path, its cases
// and its problems as lines.
func loadSrc(t *testing.T, src string) (string, []scenario.Case, []string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, ps := scenario.LoadFile(file, refOpts)
	var lines []string
	for _, p := range ps {
		lines = append(lines, p.String())
	}
	return file, cases, lines
}
