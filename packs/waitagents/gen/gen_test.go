package gen

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/results"
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

// failing fails every world it runs and records them.
type failing struct{ ran []scenario.Scenario }

func (f *failing) Run(_ *testing.T, c *scenario.Case) results.CaseResult {
	f.ran = append(f.ran, c.Scenario)
	return results.CaseResult{Verdict: results.VerdictFail, Error: "broken on purpose"}
}

// TestKillSuiteOrder: a kill suite runs first the worlds it is told to
// (the ones that killed other mutants), so the first of them is the one
// that kills, with its index from 1; an index out of range is skipped.
func TestKillSuiteOrder(t *testing.T) {
	const seed = 20261130
	old := flag.Lookup("rapid.seed").Value.String()
	oldN := flag.Lookup("rapid.checks").Value.String()
	_ = flag.Set("rapid.seed", fmt.Sprint(seed))
	_ = flag.Set("rapid.checks", "20")
	setDefault("rapid.nofailfile", "true")
	defer func() {
		_ = flag.Set("rapid.seed", old)
		_ = flag.Set("rapid.checks", oldN)
	}()
	r := &failing{}
	killed, msg := -1, ""
	t.Run("kill", func(st *testing.T) {
		killSuite(r, st, st, []int{99, 6, 2}, func(world int, m string) {
			killed, msg = world, m
		})
	})
	if killed != 7 || len(r.ran) != 1 {
		t.Fatalf("killed by world %d after %d worlds, want world 7 (index 6) alone", killed, len(r.ran))
	}
	want, _ := scenario.MarshalScenario(rapid.Custom(Generate).Example(int(checkSeed(seed, 6))), "w")
	got, _ := scenario.MarshalScenario(r.ran[0], "w")
	if string(got) != string(want) {
		t.Fatalf("the world run is not world 7:\n%s", got)
	}
	if !strings.Contains(msg, "world 7 of 20: -rapid.seed="+fmt.Sprint(checkSeed(seed, 6))) {
		t.Errorf("the kill does not name its world and seed: %s", msg)
	}
}

// TestFitFileSize: for every world whose messages break no line, fileSize
// is the size of the world's file, also with messages the encoder must
// quote and escape (control characters, bytes that are not UTF-8, runes
// other encoders escape, YAML's own signs); and fitFile, which writes a
// world with empty messages once, cuts every world exactly as
// shrinkByWriting, which writes it after every cut, does: worlds far
// inside the limit, near it and past it, and worlds with messages of many
// lines (written as indented blocks).
func TestFitFileSize(t *testing.T) {
	g := rapid.Custom(Generate)
	odd := []string{"", "\x00\x01\x7f", "\xff\xfe", "\u2028\u00ad", "\U000e0001", "a: b", "- x", "#c", "'\"", "日🙂é", "\\", "1", "x\ny", "\r", strings.Repeat("a\n", 200)}
	// world is the generator's world i, with odd messages grown n times
	// (none for n 0): a fresh value on every call.
	world := func(i, n int) scenario.Scenario {
		w := g.Example(int(checkSeed(20261130, i)))
		if n == 0 {
			return w
		}
		messageLists(&w, func(msgs *[]string) {
			for j := range *msgs {
				(*msgs)[j] = strings.Repeat((*msgs)[j]+odd[(i+j)%len(odd)], n)
			}
		})
		return w
	}
	type sample struct {
		i, n, big int // world i, odd messages ×n, and a message of big bytes
	}
	var samples []sample
	for i := range 40 {
		samples = append(samples, sample{i, 0, 0})
		if i%2 == 0 {
			samples = append(samples, sample{i, 1, 0})
		}
	}
	// Worlds near and past the limit: one long message added, or every
	// message of a large world grown.
	for k, big := range []int{fitBytes / 2, fitBytes * 7 / 8, fitBytes, fitBytes * 3 / 2} {
		samples = append(samples, sample{k, 0, big})
	}
	samples = append(samples, sample{9, 2, 0}, sample{36, 2, 0})
	build := func(s sample) scenario.Scenario {
		w := world(s.i, s.n)
		if s.big > 0 {
			// Characters written escaped (2 bytes for 1), in quotes, or as they are.
			ch := []string{"日🙂é", "#c", "'\"", "\\"}[s.i%4]
			w.Agents[0].Messages = append(w.Agents[0].Messages, strings.Repeat(ch, s.big/len(ch)+1))
		}
		return w
	}
	oneLines, past, blocks := 0, 0, 0
	for _, s := range samples {
		sc := build(s)
		b, err := scenario.MarshalScenario(sc, "size")
		if err != nil {
			t.Fatal(err)
		}
		size, oneLine := fileSize(sc)
		if again, _ := scenario.MarshalScenario(sc, "size"); string(again) != string(b) {
			t.Fatalf("%+v: fileSize changed the world", s)
		}
		switch {
		case !oneLine:
			blocks++
		case size != len(b):
			t.Fatalf("%+v: fileSize %d, the file has %d bytes", s, size, len(b))
		case len(b) > fitBytes:
			past++
			fallthrough
		default:
			oneLines++
		}
		fitted, shrunk := build(s), build(s)
		fitFile(&fitted)
		shrinkByWriting(&shrunk)
		if !reflect.DeepEqual(fitted, shrunk) {
			t.Fatalf("%+v: fitFile and shrinkByWriting differ", s)
		}
	}
	// The test means something only if every path was taken.
	t.Logf("%d worlds of one-line messages (%d past the limit), %d with blocks", oneLines, past, blocks)
	if oneLines < 40 || past < 2 || blocks < 2 {
		t.Fatalf("%d worlds of one-line messages (%d past the limit), %d with blocks: want every path taken", oneLines, past, blocks)
	}
}

// BenchmarkGenerate draws the 200 worlds of a mutant's generator run
// (go test -run '^$' -bench Generate ./packs/waitagents/gen/).
func BenchmarkGenerate(b *testing.B) {
	g := rapid.Custom(Generate)
	for b.Loop() {
		for i := range 200 {
			_ = g.Example(int(checkSeed(20261130, i)))
		}
	}
}

// passing passes every world it runs and counts them.
type passing struct{ ran int }

func (p *passing) Run(_ *testing.T, c *scenario.Case) results.CaseResult {
	p.ran++
	return results.CaseResult{Verdict: results.VerdictPass}
}

// TestKillSuiteCosts: the generator as a campaign's baseline (a kill suite
// given a results file) writes what each of its worlds cost, by index.
func TestKillSuiteCosts(t *testing.T) {
	old := flag.Lookup("rapid.checks").Value.String()
	_ = flag.Set("rapid.checks", "5")
	setDefault("rapid.nofailfile", "true")
	defer func() { _ = flag.Set("rapid.checks", old) }()
	dir := t.TempDir()
	pf, res := filepath.Join(dir, "params.json"), filepath.Join(dir, "results.json")
	if err := results.WriteParams(pf, results.Params{KillSuite: true, GenWorlds: 5, Results: res}); err != nil {
		t.Fatal(err)
	}
	t.Setenv(results.ParamsEnv, pf)
	r := &passing{}
	t.Run("baseline", func(st *testing.T) { Check(st, r, Options{}) })
	got, err := results.ReadRun(res)
	if err != nil {
		t.Fatal(err)
	}
	if r.ran != 5 || len(got.WorldMs) != 5 {
		t.Fatalf("%d worlds ran, %d costs written (%v): want 5 and 5", r.ran, len(got.WorldMs), got.WorldMs)
	}
	for i, ms := range got.WorldMs {
		if ms <= 0 {
			t.Errorf("world %d cost %v ms", i, ms)
		}
	}
}
