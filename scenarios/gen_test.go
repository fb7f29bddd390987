package scenarios

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/waitsim/waitsim/sim"
	"pgregory.net/rapid"
)

var flagGenOut = flag.String("waitsim.genout", "../out/generated", "where the generator writes a shrunk failing case as YAML")

// setDefault sets flag name to value unless the command line set it.
func setDefault(name, value string) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if !set {
		_ = flag.Set(name, value)
	}
}

// TestGenerated checks seeded random worlds against every invariant; rapid
// shrinks a failure to a minimal world, written out as a scenario file. By
// default it runs 40 worlds from a fixed seed, so the suite stays
// deterministic; `make fuzz` passes a budget and a random seed.
func TestGenerated(t *testing.T) {
	setDefault("rapid.seed", "20261130")
	if n := os.Getenv(GenWorldsEnv); n != "" {
		setDefault("rapid.checks", n) // the mutation gate's generator campaign
	}
	setDefault("rapid.checks", "40")
	setDefault("rapid.nofailfile", "true") // never write into the source tree
	rapid.Check(t, func(rt *rapid.T) {
		sc := Generate(rt)
		c := Case{ID: "generated", File: "(generator)", Scenario: sc}
		res := sim.RunWorld(t, c.World())
		r := Summarize(&c, res)
		if r.Verdict == VerdictPass {
			return
		}
		var why []string
		if r.Error != "" {
			why = append(why, r.Error)
		}
		for _, v := range r.Violation {
			why = append(why, v.Invariant+": "+v.Message)
		}
		if os.Getenv(KillSuiteEnv) != "" {
			// A mutation run: the first counterexample is the kill. Stop
			// at once, without shrinking, so a kill never times out.
			b, _ := MarshalScenario(sc, "found by the generator: "+why[0])
			t.Fatalf("invariants broken (not shrunk: a mutation run):\n%s\n%s", strings.Join(why, "\n"), b)
		}
		file := writeGenerated(t, sc, why[0])
		rt.Fatalf("invariants broken (minimal case written to %s):\n%s\n%s", file, strings.Join(why, "\n"), r.Timeline)
	})
}

// writeGenerated writes sc as a scenario file under -waitsim.genout and
// returns its path. Shrinking calls it again for each smaller failure; the
// last write is the minimal case.
func writeGenerated(t *testing.T, sc Scenario, why string) string {
	sc.Name = "generated-" + strings.NewReplacer(":", "", " ", "-").Replace(strings.SplitN(why, ":", 2)[0])
	b, err := MarshalScenario(sc, "found by the generator: "+why)
	if err != nil {
		t.Logf("cannot write the case: %v", err)
		return "(not written)"
	}
	if err := os.MkdirAll(*flagGenOut, 0o755); err != nil {
		t.Logf("cannot write the case: %v", err)
		return "(not written)"
	}
	file := filepath.Join(*flagGenOut, sc.Name+".yaml")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Logf("cannot write the case: %v", err)
	}
	return file
}

// TestGeneratedRoundTrip: a generated scenario written as YAML loads back to
// the same scenario, so a shrunk failure is a table case as it stands.
func TestGeneratedRoundTrip(t *testing.T) {
	setDefault("rapid.seed", "7")
	setDefault("rapid.nofailfile", "true")
	rapid.Check(t, func(rt *rapid.T) {
		sc := Generate(rt)
		b, err := MarshalScenario(sc, "round trip")
		if err != nil {
			rt.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "g.yaml")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			rt.Fatal(err)
		}
		cases, err := Load([]string{file})
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
