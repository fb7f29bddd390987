package gen

import (
	"flag"
	"fmt"
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

// TestKillWorldsAreRapids: the worlds a kill suite runs (killSuite: world i
// drawn from checkSeed) are the worlds rapid.Check draws from the same seed,
// one for one, so that their order, and not which worlds run, is all that
// kill first changes. It fails when rapid changes how it seeds its worlds.
func TestKillWorldsAreRapids(t *testing.T) {
	const seed, n = 20261130, 60
	old := flag.Lookup("rapid.seed").Value.String()
	oldN := flag.Lookup("rapid.checks").Value.String()
	_ = flag.Set("rapid.seed", fmt.Sprint(seed))
	_ = flag.Set("rapid.checks", fmt.Sprint(n))
	setDefault("rapid.nofailfile", "true")
	defer func() {
		_ = flag.Set("rapid.seed", old)
		_ = flag.Set("rapid.checks", oldN)
	}()
	var checked []string
	rapid.Check(t, func(rt *rapid.T) {
		b, err := scenario.MarshalScenario(Generate(rt), "w")
		if err != nil {
			t.Fatal(err)
		}
		checked = append(checked, string(b))
	})
	if len(checked) != n {
		t.Fatalf("rapid.Check drew %d worlds, want %d", len(checked), n)
	}
	g := rapid.Custom(Generate)
	for i, want := range checked {
		b, err := scenario.MarshalScenario(g.Example(int(checkSeed(seed, i))), "w")
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Fatalf("world %d: the kill suite's differs from rapid.Check's:\n%s\nrapid.Check:\n%s", i, b, want)
		}
	}
}
