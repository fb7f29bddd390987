//go:build realclock && linux

package waittool_test

// The tool on the real clock UNDER LOAD (contract §2 step 12, issue 19 item
// 4): the one-second run of realclock_test.go beside a bounded CPU load —
// busy-loop processes that this test starts, that end by themselves after a
// bounded time, and that it always kills (t.Cleanup, and SIGKILL by the
// kernel should the test process die first). `make realclock` runs it:
//
//	go test -tags realclock -count=1 -v -run '^TestRealClockLoaded$' ./waittool/ \
//	    -args -realclock.busy=6 -realclock.rounds=5
//
// Each round is 100 one-second calls from 25 sessions at once against an
// instant in-process bridge; a round passes when no reply lost its outputs.
// The load the round ran under is measured, not assumed: /proc/loadavg's
// runnable count sampled every 20 ms during the round (mean and largest), and
// its 1-minute load average at the round's end.

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/waitsim/waitsim/waittool"
)

var (
	busyProcs = flag.Int("realclock.busy", 3*runtime.NumCPU(), "busy-loop processes beside the loaded run (at least twice the cores makes the load)")
	rounds    = flag.Int("realclock.rounds", 5, "rounds of 100 one-second calls in the loaded run")
	warmup    = flag.Duration("realclock.warmup", 3*time.Second, "how long the load runs before the first round")
)

// busyEnv names the instant (Unix ms) until which a helper process spins.
const busyEnv = "WAITSIM_REALCLOCK_BUSY_UNTIL"

// TestLoadHelper is not a test: run by TestRealClockLoaded in a process of
// its own with busyEnv set, it spins on one CPU until that instant. Without
// the variable it does nothing.
func TestLoadHelper(t *testing.T) {
	until, err := strconv.ParseInt(os.Getenv(busyEnv), 10, 64)
	if err != nil {
		t.Skip("a helper process of TestRealClockLoaded")
	}
	end := time.UnixMilli(until)
	x := uint64(1)
	for time.Now().Before(end) {
		for range 1 << 16 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if x == 0 {
		fmt.Println(x)
	}
}

// startLoad starts n busy-loop processes that end by themselves after d; the
// test's cleanup kills them, and the kernel kills them if the test process
// dies first (Pdeathsig).
func startLoad(t *testing.T, n int, d time.Duration) {
	t.Helper()
	until := time.Now().Add(d).UnixMilli()
	var procs []*exec.Cmd
	t.Cleanup(func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	})
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), busyEnv+"="+strconv.FormatInt(until, 10), "GOMAXPROCS=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
}

// loadavg reads /proc/loadavg: the 1-minute average and the number of
// kernel scheduling entities runnable now.
func loadavg() (avg1 float64, runnable int) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1, -1
	}
	f := strings.Fields(string(b))
	avg1, _ = strconv.ParseFloat(f[0], 64)
	r, _, _ := strings.Cut(f[3], "/")
	runnable, _ = strconv.Atoi(r)
	return avg1, runnable
}

// loadSampler samples the runnable count every 20 ms until stopped.
type loadSampler struct {
	stop    chan struct{}
	done    chan struct{}
	samples []int
}

func sampleLoad() *loadSampler {
	s := &loadSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
				if _, r := loadavg(); r >= 0 {
					s.samples = append(s.samples, r)
				}
			}
		}
	}()
	return s
}

// end stops the sampler and returns the mean and largest runnable count.
func (s *loadSampler) end() (mean float64, most int) {
	close(s.stop)
	<-s.done
	sum := 0
	for _, v := range s.samples {
		sum += v
		most = max(most, v)
	}
	if len(s.samples) > 0 {
		mean = float64(sum) / float64(len(s.samples))
	}
	return mean, most
}

// callLog keeps every call's events, to show the calls that lost their
// outputs.
type callLog struct {
	mu     sync.Mutex
	events map[uint64][]waittool.Event
}

func (l *callLog) observe(e waittool.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events[e.Call.ID] = append(l.events[e.Call.ID], e)
}

// lost returns, for each call whose final read lost its race or was not
// issued, its events as one line, times in ms since the call's start.
func (l *callLog) lost() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for id, evs := range l.events {
		if !slices.ContainsFunc(evs, func(e waittool.Event) bool {
			return (e.Kind == waittool.EvLost || e.Kind == waittool.EvNotIssued) && e.Detail == "read"
		}) {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "call %d:", id)
		for _, e := range evs {
			fmt.Fprintf(&b, " %.1f %s", float64(e.At.Sub(e.Call.StartedAt))/float64(time.Millisecond), e.Kind)
			if e.Detail != "" {
				fmt.Fprintf(&b, "(%s)", e.Detail)
			}
			if e.CostMs > 0 {
				fmt.Fprintf(&b, "[cost %d]", e.CostMs)
			}
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// TestRealClockLoaded: rounds of 100 one-second calls (25 sessions × 4,
// half with a progress token) beside busyProcs busy-loop processes.
func TestRealClockLoaded(t *testing.T) {
	perRound := 15 * time.Second // a round takes about 4 s, longer under load
	startLoad(t, *busyProcs, *warmup+time.Duration(*rounds)*perRound+30*time.Second)
	time.Sleep(*warmup)
	avg0, _ := loadavg()
	t.Logf("load: %d busy-loop processes on %d CPUs; 1-minute load average %.2f after a %v warm-up; the tool without a Machine (exact): %v", *busyProcs, runtime.NumCPU(), avg0, *warmup, *exact)
	failed := 0
	for round := 1; round <= *rounds; round++ {
		rt := &realTally{lastProgress: map[string]float64{}, ends: map[string]int{}}
		log := &callLog{events: map[uint64][]waittool.Event{}}
		server := realServerObserved(func(e waittool.Event) { rt.observe(e); log.observe(e) })
		sampler := sampleLoad()
		start := time.Now()
		oneSecondCalls(t, server, rt)
		took := time.Since(start)
		mean, most := sampler.end()
		avg1, _ := loadavg()
		t.Logf("LOADED round %d: %d of %d calls lost their outputs; runnable mean %.1f, max %d (%d samples); 1-minute load average %.2f; %.1f s; replies past their deadline: median %.1f ms, 99th percentile %.1f ms, latest %.1f ms; reads lost or not issued: %v",
			round, rt.lostOutputs, rt.calls, mean, most, len(sampler.samples), avg1, took.Seconds(), rt.overQuantile(0.5), rt.overQuantile(0.99), rt.maxOverMs, rt.ends)
		for _, line := range log.lost() {
			t.Logf("  %s", line)
		}
		if rt.lostOutputs != 0 || rt.aboveTotal != 0 || rt.notGrowing != 0 || rt.strayNote != 0 {
			failed++
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d loaded rounds broke a promise of contract §2 steps 11–12 on the real clock", failed, *rounds)
	}
}
