package timeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/waitsim/waitsim/results"
)

func TestTraceEvents(t *testing.T) {
	s := loadScenarios(t, "head.json")
	var c = s.Cases[0] // slow-list[list=5000]: resolves at 20750 ms
	b, err := TraceEvents(&c)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		TraceEvents []struct {
			Name string            `json:"name"`
			Cat  string            `json:"cat"`
			Ph   string            `json:"ph"`
			Ts   int64             `json:"ts"`
			Dur  *int64            `json:"dur"`
			Tid  int               `json:"tid"`
			S    string            `json:"s"`
			Args map[string]string `json:"args"`
		} `json:"traceEvents"`
		DisplayTimeUnit string `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	threads := map[int]string{}
	var callDur, deadlineTs int64 = -1, -1
	for _, e := range f.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				threads[e.Tid] = e.Args["name"]
			}
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				t.Errorf("complete event %q without a duration", e.Name)
			}
			if e.Cat == "call" {
				callDur = *e.Dur
			}
			if e.Name == "list #2" && e.Ts != c.BridgeReqs[1].DispatchedMs*1000 {
				t.Errorf("list #2 starts at %d µs, want %d ms × 1000", e.Ts, c.BridgeReqs[1].DispatchedMs)
			}
		case "i":
			if e.Cat == "deadline" {
				deadlineTs = e.Ts
				if e.S != "p" {
					t.Errorf("deadline scope %q, want process", e.S)
				}
			}
		default:
			t.Errorf("unexpected phase %q", e.Ph)
		}
	}
	// Virtual µs: the call lasts 20750 ms, the deadline is at 30000 ms.
	if callDur != 20750*1000 || deadlineTs != 30000*1000 {
		t.Errorf("call dur %d µs, deadline ts %d µs", callDur, deadlineTs)
	}
	want := map[string]bool{"caller A": true, "tool": true, "bridge slot": true, "agent c": true}
	for _, n := range threads {
		delete(want, n)
	}
	if len(want) > 0 {
		t.Errorf("missing lanes %v in %v", want, threads)
	}
}

func TestTraceFileName(t *testing.T) {
	if got := TraceFileName("boundary[timeoutMs=30500]/a b"); got != "boundary_timeoutMs=30500_a_b-8c71ef17.json" {
		t.Errorf("got %s", got)
	}
}

// loadScenarios reads the scenario result of a Run fixture in
// reports/testdata (made by the reports tests: TestGenerateFixtures).
func loadScenarios(t *testing.T, name string) *results.RunResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Scenarios *results.RunResult `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Scenarios == nil || len(r.Scenarios.Cases) == 0 {
		t.Fatalf("%s: no scenario cases", name)
	}
	return r.Scenarios
}
