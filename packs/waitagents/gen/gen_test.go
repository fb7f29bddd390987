package gen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/scenario"
	"pgregory.net/rapid"
)

// TestGeneratedRoundTrip: a generated scenario written as YAML loads back to
// the same scenario, so a shrunk failure is a table case as it stands.
func TestGeneratedRoundTrip(t *testing.T) {
	setDefault("rapid.seed", "7")
	setDefault("rapid.nofailfile", "true")
	rapid.Check(t, func(rt *rapid.T) {
		sc := Generate(rt)
		b, err := scenario.MarshalScenario(sc, "round trip")
		if err != nil {
			rt.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "g.yaml")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			rt.Fatal(err)
		}
		cases, err := scenario.Load([]string{file}, refOpts)
		if err != nil {
			rt.Fatalf("%v\n%s", err, b)
		}
		got, err := yaml.Marshal(cases[0].Scenario)
		if err != nil {
			rt.Fatal(err)
		}
		want, err := yaml.Marshal(sc)
		if err != nil {
			rt.Fatal(err)
		}
		if string(got) != string(want) {
			rt.Fatalf("round trip differs:\n%s\nvs\n%s", got, want)
		}
	})
}

// refOpts load as the reference tool's table does.
var refOpts = func() scenario.Options {
	o, err := waitagents.Reference().LoadOptions()
	if err != nil {
		panic(err)
	}
	return o
}()
