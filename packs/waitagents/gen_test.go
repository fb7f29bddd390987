package waitagents

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/waitsim/waitsim/scenario"
	"go.yaml.in/yaml/v3"
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
		cases, err := loadRef([]string{file})
		if err != nil {
			rt.Fatalf("%v\n%s", err, b)
		}
		got, _ := yaml.Marshal(cases[0].Scenario)
		want, _ := yaml.Marshal(sc)
		if string(got) != string(want) {
			rt.Fatalf("round trip differs:\n%s\nvs\n%s", got, want)
		}
	})
}
