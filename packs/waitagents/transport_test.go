package waitagents

import (
	"flag"
	"runtime"
	"slices"
	"testing"

	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/sim"
)

var determinismRuns = flag.Int("waitsim.transport-runs", 0, "runs of each HTTP world in TestTransportDeterminism at each GOMAXPROCS (default 20, or 5 with -race; make transport-determinism: 100)")

// transportRuns is -waitsim.transport-runs, or its default: 20 runs, but 5
// under the race detector, which finds a race in the first run that has it
// and costs about 3× the CPU per run (make test runs the test both ways:
// 5 runs with -race, 20 without).
func transportRuns() int {
	switch {
	case *determinismRuns > 0:
		return *determinismRuns
	case raceBuild:
		return 5
	}
	return 20
}

// httpWorlds are one world over each HTTP mode that exercises the wire:
// progress on a stream, the proxy's cut, drops, a resumption (2025-11-25 with
// an EventStore), a write deadline, a request timeout, a retry after a
// transport failure and a followed chain.
func httpWorlds() []World {
	var ws []World
	for _, m := range sim.Modes[1:] {
		resumable := &sim.TransportSpec{Mode: m, Protocol: sim.Protocol20251125, EventStore: true, IdleTimeoutMs: 20000, DropAtMs: []int64{12500}}
		ws = append(ws, World{Name: "busy-" + string(m),
			Agents:    []AgentSpec{{ID: "a", State: "running"}, {ID: "b", State: "running"}},
			Changes:   []Change{{AtMs: 50000, Op: OpState, ID: "a", State: "completed"}},
			Bridge:    bridge.Script{List: []bridge.Step{{LatencyMs: 200}}, Read: []bridge.Step{{LatencyMs: 700}}},
			Transport: &sim.TransportSpec{Mode: m, Protocol: sim.Protocol20260728, IdleTimeoutMs: 20000, DropAtMs: []int64{12500}},
			Callers: []sim.CallerSpec{
				{Name: "A", Progress: true, Follow: true, OnTransportFailure: sim.FailRetry, Args: map[string]any{"timeoutMs": 60000, "pollIntervalMs": 700}},
				{Name: "B", StartMs: 300, RequestTimeoutMs: 25000, Transport: resumable, Args: map[string]any{"timeoutMs": 600000, "sessionIds": []any{"b"}}},
				{Name: "C", StartMs: 100, Progress: true, ResetOnProgress: true, RequestTimeoutMs: 5000,
					Transport: &sim.TransportSpec{Mode: m, Protocol: sim.Protocol20251125, WriteTimeoutMs: 25000},
					Args:      map[string]any{"timeoutMs": 600000}},
				{Name: "D", StartMs: 200, Progress: true, Transport: resumable, Args: map[string]any{"timeoutMs": 30000, "sessionIds": []any{"a"}}},
				// E's resumption (SSE modes) is cut by the write deadline before its response began: the
				// client sends it again after its backoff.
				{Name: "E", StartMs: 400, Transport: &sim.TransportSpec{Mode: m, Protocol: sim.Protocol20251125, EventStore: true, WriteTimeoutMs: 20000, DropAtMs: []int64{1000}},
					Args: map[string]any{"timeoutMs": 600000}},
			}})
	}
	return ws
}

// TestTransportDeterminism: every HTTP world gives one trace hash over many
// runs at GOMAXPROCS 1, 2 and 4 (make test runs it with and without -race).
func TestTransportDeterminism(t *testing.T) {
	runs := transportRuns()
	if testing.Short() {
		runs = 5
	}
	for _, w := range httpWorlds() {
		t.Run(w.Name, func(t *testing.T) {
			first := RunWorld(t, w)
			if first.Err != "" {
				t.Fatalf("%s: %s\n%s", w.Name, first.Err, first.Timeline)
			}
			for _, procs := range []int{1, 2, 4} {
				old := runtime.GOMAXPROCS(procs)
				for i := 0; i < runs; i++ {
					res := RunWorld(t, w)
					if res.Hash != first.Hash {
						runtime.GOMAXPROCS(old)
						t.Fatalf("GOMAXPROCS %d run %d: trace differs\nfirst:\n%s\nthis:\n%s", procs, i, first.Timeline, res.Timeline)
					}
				}
				runtime.GOMAXPROCS(old)
			}
		})
	}
}

func TestTransportProbe(t *testing.T) {
	for _, w := range httpWorlds()[:2] {
		res := RunWorld(t, w)
		t.Log(res.Err, "\n", res.Timeline)
	}
}

// TestWorldIndependentOfProcessHistory: a world's trace, kernel steps
// included, is the same whether it is the first world of its process (the
// schemas are not yet resolved) or not. The tools were once listed over the
// first world's own wire, which gave that world steps no later run had; each
// world now lists them over a session of its own before its callers start.
func TestWorldIndependentOfProcessHistory(t *testing.T) {
	w := httpWorlds()[0]
	first := RunWorld(t, w)
	second := RunWorld(t, w)
	if first.Err != "" || second.Err != "" {
		t.Fatalf("%s: %s / %s", w.Name, first.Err, second.Err)
	}
	if !slices.Equal(first.Trace, second.Trace) {
		for i := range min(len(first.Trace), len(second.Trace)) {
			if first.Trace[i] != second.Trace[i] {
				t.Fatalf("entry %d differs: first run of the process %+v, later run %+v", i, first.Trace[i], second.Trace[i])
			}
		}
		t.Fatalf("%d entries in the first run of the process, %d later", len(first.Trace), len(second.Trace))
	}
}
