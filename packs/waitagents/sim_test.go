package waitagents

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/sim/timeline"
)

// busyWorld has three callers, a congested queue and membership changes.
func busyWorld() World {
	return World{
		Name: "busy",
		Bridge: bridge.Script{
			List:       []bridge.Step{{LatencyMs: 300}, {LatencyMs: 50}, {LatencyMs: 2000}, {LatencyMs: 50}},
			Read:       []bridge.Step{{LatencyMs: 700}},
			Congestion: []bridge.Hold{{AtMs: 1200, HoldMs: 4000}, {AtMs: 9000, HoldMs: 12000}},
		},
		Agents: []AgentSpec{{ID: "a", State: "running"}, {ID: "b", State: "waiting"}, {ID: "c", State: "prompt_sent"}},
		Changes: []Change{
			{AtMs: 2500, Op: OpJoin, ID: "d", State: "running"},
			{AtMs: 7000, Op: OpState, ID: "a", State: "completed"},
			{AtMs: 11000, Op: OpLeave, ID: "b"},
			{AtMs: 26000, Op: OpState, ID: "c", State: "failed"},
			{AtMs: 40000, Op: OpState, ID: "d", State: "completed"},
		},
		Callers: []sim.CallerSpec{
			{Name: "A", Follow: true, Args: map[string]any{"timeoutMs": 120000, "pollIntervalMs": 700}},
			{Name: "B", StartMs: 1000, Follow: true, Progress: true, Args: map[string]any{"sessionIds": []any{"a", "c"}, "timeoutMs": 90000, "pollIntervalMs": 250}},
			{Name: "C", StartMs: 3000, Progress: true, ResetOnProgress: true, RequestTimeoutMs: 20000, Follow: true, Args: map[string]any{"sessionIds": []any{"b", "d"}, "timeoutMs": 600000}},
		},
	}
}

// TestDeterminism: 102 runs of the busy world give one trace hash, 34 at
// each of GOMAXPROCS 1, 2 and 4; under the race detector 10 at each (make
// test runs it both ways, as TestTransportDeterminism: the detector finds
// a race in the first run that has it, and a run costs about 4× the CPU
// there: 102 runs took 10.4 s of CPU with it and 2.8 s without, 3 December
// 2026).
func TestDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runs := 34
	if raceBuild {
		runs = 10
	}
	var first *Result
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for i := range runs {
			res := RunWorld(t, busyWorld())
			if res.Err != "" {
				t.Fatal(res.Err)
			}
			if first == nil {
				first = res
				if len(res.Trace) < 100 {
					t.Fatalf("busy world too quiet: %d entries", len(res.Trace))
				}
				continue
			}
			if res.Hash != first.Hash {
				t.Fatalf("GOMAXPROCS=%d run %d: trace differs:\n%s", procs, i, diffEntries(first.Trace, res.Trace))
			}
		}
	}
}

func diffEntries(a, b []timeline.Entry) string {
	for i := 0; i < max(len(a), len(b)); i++ {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return fmt.Sprintf("first difference at entry %d:\n%s\nvs\n%s", i+1, timeline.FormatEntries(a[max(0, i-2):min(len(a), i+1)]), timeline.FormatEntries(b[max(0, i-2):min(len(b), i+1)]))
		}
	}
	return "(identical)"
}
