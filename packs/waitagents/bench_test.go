package waitagents

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/waitsim/waitsim/sim"
)

// inBubble runs world w b.N times, each in its own synctest bubble, and
// reports virtual ms per wall ms, wall ms per world and the process's CPU ms
// per world (and virtual ms per CPU ms). synctest.Test wants a *testing.T,
// which a benchmark does not have, so the loop runs as a nested test through
// testing.RunTests.
func inBubble(b *testing.B, w World) {
	b.Helper()
	var virtMs int64
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	defer oneCount()()
	ok := testing.RunTests(func(string, string) (bool, error) { return true, nil }, []testing.InternalTest{{
		Name: b.Name(),
		F: func(t *testing.T) {
			for range b.N {
				res := RunWorld(t, w)
				if res.Err != "" {
					t.Fatal(res.Err)
				}
				virtMs += res.EndMs
			}
		},
	}})
	wall, cpu := time.Since(start), processCPU()-cpu0
	b.StopTimer()
	if !ok {
		b.Fatal("world failed")
	}
	b.ReportMetric(float64(virtMs)/float64(wall.Microseconds())*1000, "virtual-ms/wall-ms")
	b.ReportMetric(float64(wall.Microseconds())/1000/float64(b.N), "wall-ms/op")
	// CPU time of the whole process (every goroutine, the GC's included) per
	// world: on a shared, loaded machine it moves much less than wall time.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	if cpu > 0 {
		b.ReportMetric(float64(virtMs)/float64(cpu.Microseconds())*1000, "virtual-ms/cpu-ms")
	}
}

// oneCount makes testing.RunTests run the nested test once, whatever
// -test.count says (it reads that flag too, and would repeat the loop), and
// returns the function that restores the flag.
func oneCount() func() {
	f := flag.Lookup("test.count")
	old := f.Value.String()
	_ = f.Value.Set("1")
	return func() { _ = f.Value.Set(old) }
}

// BenchmarkCappedWait: one 30 s capped wait through MCP (instant bridge,
// poll 1000 ms: 31 lists and a read), over each transport mode (contract §6;
// the goal: sse costs at most 3× memory).
func BenchmarkCappedWait(b *testing.B) {
	for _, m := range sim.Modes {
		b.Run("transport="+string(m), func(b *testing.B) {
			w := World{Name: "capped", Agents: []AgentSpec{{ID: "c", State: "running"}},
				Callers: []sim.CallerSpec{{Name: "A", Args: map[string]any{"timeoutMs": 600000}}}}
			if m != sim.ModeMemory {
				w.Transport = &sim.TransportSpec{Mode: m}
			}
			inBubble(b, w)
		})
	}
}

// BenchmarkRecoveryChain: a 10-minute recovery chain, 20 calls of 30 s.
func BenchmarkRecoveryChain(b *testing.B) {
	inBubble(b, World{Name: "chain", Agents: []AgentSpec{{ID: "c", State: "running"}},
		Callers: []sim.CallerSpec{{Name: "A", Follow: true, Args: map[string]any{"timeoutMs": 600000}}}})
}

// BenchmarkBusyWorld: three callers, a congested queue, membership changes.
func BenchmarkBusyWorld(b *testing.B) { inBubble(b, busyWorld()) }

// BenchmarkCallers: N callers sharing one bridge, each making one capped
// 30 s call (poll 1000 ms) at time 0. The cost per world should grow
// linearly with N (issue 13: 64 callers at most 70× one).
func BenchmarkCallers(b *testing.B) {
	for _, n := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("callers=%d", n), func(b *testing.B) {
			w := World{Name: "callers", Agents: []AgentSpec{{ID: "c", State: "running"}}}
			for i := range n {
				w.Callers = append(w.Callers, sim.CallerSpec{Name: fmt.Sprintf("C%d", i), Args: map[string]any{"timeoutMs": 600000}})
			}
			inBubble(b, w)
		})
	}
}
