package suggest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"

	"github.com/goccy/go-yaml"
	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/packs/waitagents/gen"
	"pgregory.net/rapid"
)

// TestObservedHoldsOnHead: the expectations Observed writes for a case are
// ones the case meets — every field of every call — and each is needed: a
// run that differs in any of them fails. Checked on table cases of every
// kind (lost replies, rejected calls, chains, outputs).
func TestObservedHoldsOnHead(t *testing.T) {
	cases, err := scenario.Load([]string{"../scenarios/table"}, loadOptions)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if len(seen) > 40 {
			break
		}
		r := waitagents.Reference().Run(t, &c)
		if r.Verdict != results.VerdictPass {
			continue
		}
		obs := Observed(r)
		for _, e := range obs {
			switch {
			case !*e.Received:
				seen["lost"] = true
			case *e.Rejected:
				seen["rejected"] = true
			case e.Call > 1:
				seen["chain"] = true
			case e.Reply != nil && *e.Reply.Outputs > 0:
				seen["outputs"] = true
			}
		}
		seen[c.ID] = true
		c.Scenario.Expect = obs
		if got := waitagents.Reference().Run(t, &c); got.Verdict != results.VerdictPass {
			t.Errorf("%s: head fails its own observed expectations: %v", c.ID, got.Failures)
		}
		// Every observed value is checked: change one, and the case fails.
		if len(obs) > 0 && obs[0].ResolvesAtMs != nil {
			wrong := append([]scenario.Expect{}, obs...)
			wrong[0].ResolvesAtMs = ptr(*obs[0].ResolvesAtMs + 1)
			c.Scenario.Expect = wrong
			if got := waitagents.Reference().Run(t, &c); got.Verdict == results.VerdictPass {
				t.Errorf("%s: a wrong resolve time passes", c.ID)
			}
		}
	}
	for _, k := range []string{"outputs", "chain"} {
		if !seen[k] {
			t.Errorf("no case with %s among those checked", k)
		}
	}
}

// TestObservedFields: a reply's fields become values or absent, numbers
// integers, agents id=state, outputs counted in messages and code points.
func TestObservedFields(t *testing.T) {
	r := results.CaseResult{Calls: []results.CallSummary{
		{Caller: "A", Index: 1, StartMs: 0, EndMs: 30000, Lists: 3, Reads: 1, Reply: map[string]any{
			"done": false, "remainingMs": 570000.0, "bridgeError": "boom",
			"agents":  []any{map[string]any{"sessionId": "a", "state": "running"}},
			"outputs": []any{map[string]any{"sessionId": "a", "messages": []any{"日本", "x"}}}}},
		{Caller: "A", Index: 2, StartMs: 30000, EndMs: 90000, Lost: true, LostBy: "proxy idle timeout (60000 ms)"},
	}}
	obs := Observed(r)
	b, _ := yaml.Marshal(obs)
	want := `- caller: A
  call: 1
  resolvesAtMs: 30000
  startsAtMs: 0
  received: true
  rejected: false
  reply:
    ok: absent
    done: false
    remainingMs: 570000
    agentsUnavailable: absent
    outputsUnavailable: absent
    bridgeError: boom
    truncated: absent
    error: absent
    agents:
    - a=running
    outputs: 1
    outputChars: 3
    outputMessages: 2
  lists: 3
  reads: 1
  stranded: 0
  calls: 2
- caller: A
  call: 2
  resolvesAtMs: 90000
  startsAtMs: 30000
  received: false
  lostBy: proxy idle timeout
  rejected: false
  lists: 0
  reads: 0
  stranded: 0
`
	if string(b) != want {
		t.Fatalf("observed:\n%s\nwant:\n%s", b, want)
	}
	// prune keeps resolve times and replies, and counts where they differ.
	mut := Observed(r)
	mut[0].Reads = ptr(2)
	p := prune(obs, mut)
	if p[0].Reads == nil || *p[0].Reads != 1 || p[0].Lists != nil || p[0].Reply == nil || p[1].Received == nil || *p[1].Received {
		t.Errorf("pruned: %+v", p)
	}
	if r := p[0].Reply; r.OK != nil || r.Done == nil || r.BridgeError == nil || r.OutputChars == nil || r.Outputs == nil {
		t.Errorf("pruned reply keeps a field absent on both builds, or drops a value: %+v", r)
	}
	mut[0].Reply.OK = &scenario.Want{Value: true}
	if r := prune(obs, mut)[0].Reply; r.OK == nil || !r.OK.Absent {
		t.Errorf("pruned reply drops a field absent on head but not on the mutant: %+v", r.OK)
	}
	if d := describe(obs, mut); d != "A#1: reads is 1 on head, 2 on the mutant" {
		t.Errorf("describe: %q", d)
	}
}

// TestCaseName: a name the loader takes, stable, never shared by two ids.
func TestCaseName(t *testing.T) {
	for id, want := range map[string]string{
		"late-not-inherited": "suggested-late-not-inherited",
		"gremlins:waittool/tool.go:181:4:CONDITIONALS_BOUNDARY": "suggested-gremlins_waittool_tool.go_181_4_CONDITIONALS_BOUNDARY-",
	} {
		if got := CaseName(id); !strings.HasPrefix(got, want) || (strings.HasSuffix(want, "-") && len(got) != len(want)+8) {
			t.Errorf("CaseName(%q) = %q, want %q…", id, got, want)
		}
	}
	if CaseName("a:b") == CaseName("a/b") {
		t.Error("two ids share a name")
	}
}

// TestSimplify: every candidate is one step simpler and loads as a table
// case; the world it came from is never changed.
func TestSimplify(t *testing.T) {
	dir := t.TempDir()
	worlds := rapid.Custom(gen.Generate)
	for seed := range 12 {
		rt := t
		w := worlds.Example(seed)
		before, _ := yaml.Marshal(w)
		cands := simplify(w)
		if after, _ := yaml.Marshal(w); string(after) != string(before) {
			rt.Fatalf("simplify changed its world:\n%s\nnow:\n%s", before, after)
		}
		loaded, step := 0, max(1, len(cands)/20) // load about 20 of them
		for i, c := range cands {
			if reflect.DeepEqual(c, clone(w)) {
				rt.Fatalf("candidate %d is the world itself", i)
			}
			if i%step != 0 {
				continue
			}
			b, err := scenario.MarshalScenario(c, "a candidate")
			if err != nil {
				rt.Fatal(err)
			}
			f := filepath.Join(dir, "c.yaml")
			if err := os.WriteFile(f, b, 0o644); err != nil {
				rt.Fatal(err)
			}
			if _, probs := scenario.LoadFile(f, loadOptions); len(probs) == 0 {
				loaded++
			}
		}
		if len(cands) > 0 && loaded == 0 {
			rt.Fatalf("no candidate of %d loads", len(cands))
		}
	}
}

// Search's runs ask the suite for results without traces (it reads only
// verdicts, failures and calls): every run's params file says noTraces.
func TestSearchAsksNoTraces(t *testing.T) {
	var mu sync.Mutex // head's and the mutant's runs are side by side
	var runs, without int
	stop := errors.New("stopped by the test")
	run := func(ctx context.Context, b Build, args ...string) error {
		p, err := paramsOf(b)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		defer mu.Unlock()
		runs++
		if !p.NoTraces {
			without++
		}
		return stop
	}
	_, _, err := Search(context.Background(), Job{ID: "m", Run: run, Tmp: t.TempDir(), Worlds: 3})
	if !errors.Is(err, stop) || runs == 0 || without != 0 {
		t.Errorf("error %v; %d runs, %d of them without noTraces", err, runs, without)
	}
}

// A world head's suite refuses to load is left out and the others run again;
// it is never the world picked, even when the mutant's run differs on it. A
// problem in no world's file is an error, not a loop.
func TestRefusedWorldsLeftOut(t *testing.T) {
	worlds := rapid.Custom(gen.Generate)
	ws := []scenario.Scenario{worlds.Example(1), worlds.Example(2), worlds.Example(3)}
	for _, c := range []struct {
		name     string
		refuse   string // the file head's suite refuses ("": none), by base name
		want     int    // the world picked
		wantRuns []int  // the files head's runs saw, run by run
		wantErr  bool
	}{
		{"none refused", "", 0, []int{3}, false},
		{"the first world refused", "w000.yaml", 2, []int{3, 2}, false},
		{"a problem in another file", "other.yaml", -1, []int{3}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var runs []int
			run := func(ctx context.Context, b Build, args ...string) error {
				p, err := paramsOf(b)
				if err != nil {
					return err
				}
				files, err := filepath.Glob(filepath.Join(p.Paths[0], "*.yaml"))
				if err != nil {
					return err
				}
				var r results.RunResult
				for _, f := range files {
					if c.refuse != "" && (filepath.Base(f) == c.refuse || c.refuse == "other.yaml") {
						r.Problems = []results.Problem{{File: filepath.Join(filepath.Dir(f), c.refuse), Line: 1, Column: 1, Field: "name", Message: "refused by the test"}}
						break
					}
					id := strings.TrimSuffix(filepath.Base(f), ".yaml")
					v := results.VerdictPass
					// The mutant fails w000 (refused in one case) and w002.
					if b.Bin == "mutant" && id != "w001" {
						v = results.VerdictFail
					}
					r.Cases = append(r.Cases, results.CaseResult{ID: id, Verdict: v})
				}
				if b.Bin == "head" {
					mu.Lock()
					runs = append(runs, len(files))
					mu.Unlock()
				}
				return results.WriteRun(p.Results, r)
			}
			s := &searcher{j: Job{ID: "m", Run: run, Tmp: t.TempDir(), Head: Build{Bin: "head"}, Mutant: Build{Bin: "mutant"}}}
			k, why, err := s.firstDiff(context.Background(), ws)
			if (err != nil) != c.wantErr || k != c.want || !reflect.DeepEqual(runs, c.wantRuns) {
				t.Errorf("picked world %d (%q), error %v, head's runs saw %v files; want world %d, an error %t, runs %v", k, why, err, runs, c.want, c.wantErr, c.wantRuns)
			}
		})
	}
}

// paramsOf reads the params file a run of b is given (results.ParamsEnv).
func paramsOf(b Build) (results.Params, error) {
	var p results.Params
	for _, kv := range b.Env {
		if f, ok := strings.CutPrefix(kv, results.ParamsEnv+"="); ok {
			src, err := os.ReadFile(f)
			if err == nil {
				err = json.Unmarshal(src, &p)
			}
			if err != nil {
				return p, fmt.Errorf("params file %s: %v", f, err)
			}
		}
	}
	return p, nil
}
