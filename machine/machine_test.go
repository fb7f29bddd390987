package machine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/waittool"
)

// These tests run on the virtual clock of a synctest bubble (clock.New()
// inside the bubble reads the bubble's time, and a goroutine that sleeps
// there is a goroutine the virtual clock keeps from running): a stall S of
// "the machine" is a read's goroutine that sleeps S inside its bridge call
// and a twin that sleeps S before it runs, as both would on a real machine
// whose garbage collection or scheduler held them.

const ms = time.Millisecond

// stalled is a twin whose goroutines, for reads that begin at the given
// offsets from the bubble's start, are held by the machine that long.
func stalled(epoch time.Time, at map[time.Duration]time.Duration) twin {
	return twin{work: func(start time.Time) {
		if s, ok := at[start.Sub(epoch)]; ok {
			time.Sleep(s)
		}
		emptyRead(start)
	}}
}

func TestBridgeIsTimeLessTwin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.New()
		start := clk.Now()
		// The twin ran 300 ms after the read began; the read took 400 ms:
		// 300 of them were the machine's.
		m := stalled(start, map[time.Duration]time.Duration{0: 300 * ms}).Read(clk, start)
		time.Sleep(400 * ms)
		if got := m.Bridge(clk.Since(start)); got != 100*ms {
			t.Errorf("a 400 ms read whose twin ran at 300 ms: bridge time %v, want 100ms", got)
		}
		// A read that ended before its twin could run: the machine ran
		// no empty read meanwhile, so none of its time is the bridge's.
		start = clk.Now()
		m = stalled(start, map[time.Duration]time.Duration{0: 300 * ms}).Read(clk, start)
		time.Sleep(200 * ms)
		if got := m.Bridge(clk.Since(start)); got != 0 {
			t.Errorf("a 200 ms read whose twin had not run: bridge time %v, want 0", got)
		}
		// A twin that runs at once leaves the bridge all of its time.
		start = clk.Now()
		m = Twin().Read(clk, start)
		time.Sleep(250 * ms)
		if got := m.Bridge(clk.Since(start)); got != 250*ms {
			t.Errorf("a 250 ms read whose twin ran at once: bridge time %v, want 250ms", got)
		}
		time.Sleep(time.Second) // let the twins end
	})
}

func TestRaceRunsOnForTheTwin(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stall time.Duration // the twin's
		fires time.Duration // when the race timer fires, from the read's start
	}{
		{"twin ran at once: due at the limit", 0, 100 * ms},
		{"twin ran before the limit: later by its time", 40 * ms, 140 * ms},
		{"twin ran after the limit: waited for, then later by its time", 250 * ms, 350 * ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := clock.New()
				start := clk.Now()
				m := stalled(start, map[time.Duration]time.Duration{0: tc.stall}).Read(clk, start)
				race := m.Race(clk, start.Add(100*ms), start)
				defer race.Stop()
				at := <-race.C
				if got := at.Sub(start); got != tc.fires {
					t.Errorf("race fired at %v, want %v", got, tc.fires)
				}
				time.Sleep(time.Second) // the twin ends
			})
		})
	}
}

func TestRaceStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.New()
		start := clk.Now()
		m := stalled(start, map[time.Duration]time.Duration{0: 500 * ms}).Read(clk, start)
		race := m.Race(clk, start.Add(100*ms), start)
		time.Sleep(200 * ms) // the timer has fired; the race waits for the twin
		race.Stop()
		race.Stop() // twice is harmless
		synctest.Wait()
		select {
		case <-race.C:
			t.Error("a stopped race fired")
		default:
		}
		time.Sleep(time.Second) // the twin ends; the race's goroutine has already
	})
}

// world is a call's surroundings on the virtual clock: a bridge whose n-th
// list takes lists[n] of its own time (1 ms when not given; a read, read)
// and a machine that holds every goroutine of a read, and its twin, that
// runs in [stall[0], stall[1]) until stall[1], as a garbage collection or a
// starved process holds all of them.
type script struct {
	stall [2]time.Duration
	lists map[int]time.Duration
	read  time.Duration
}

// world runs a script from epoch; n counts the lists.
type world struct {
	script
	epoch time.Time
	n     atomic.Int32
}

func (w *world) hold() {
	if now := time.Since(w.epoch); now >= w.stall[0] && now < w.stall[1] {
		time.Sleep(w.stall[1] - now)
	}
}

func (w *world) ListAgents(context.Context, string) ([]waittool.Agent, error) {
	w.hold()
	own, ok := w.lists[int(w.n.Add(1))]
	if !ok {
		own = ms
	}
	time.Sleep(own)
	return []waittool.Agent{{SessionID: "c", State: "running"}}, nil
}

func (w *world) ReadOutputs(context.Context, string, []string) ([]waittool.AgentOutput, error) {
	w.hold()
	time.Sleep(w.read)
	return []waittool.AgentOutput{{SessionID: "c", Messages: []string{"working"}}}, nil
}

// twin is the world's machine: twins it holds like the reads.
func (w *world) twin() waittool.Machine {
	return twin{work: func(start time.Time) { w.hold(); emptyRead(start) }}
}

// oneCall serves the tool (machine m: "exact" or "twin") in world w, makes
// one call (timeoutMs 1000, pollIntervalMs 250) and returns its reply, when
// it resolved (ms from the start) and the tool's events ("kind detail@ms").
// Without a stall, with lists of 1 ms, the call lists at 0, 251, 502, 753
// and 998 ms and reads its outputs at 999 ms.
func oneCall(t *testing.T, m string, sc script) (rep waittool.Reply, endMs int64, events []string) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		w := &world{script: sc, epoch: time.Now()}
		machine := waittool.Machine(waittool.ExactMachine{})
		if m == "twin" {
			machine = w.twin()
		}
		var mu sync.Mutex
		server := mcp.NewServer(&mcp.Implementation{Name: "machine-test", Version: "v0"}, nil)
		waittool.Register(server, waittool.Options{Clock: clock.New(), Bridge: w, Machine: machine,
			Observer: func(e waittool.Event) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, fmt.Sprintf("%s %s@%d", e.Kind, e.Detail, e.At.Sub(w.epoch).Milliseconds()))
			}})
		st, ct := mcp.NewInMemoryTransports()
		ctx := context.Background()
		ss, err := server.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "v0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: waittool.ToolName,
			Arguments: map[string]any{"timeoutMs": 1000, "pollIntervalMs": 250}})
		endMs = time.Since(w.epoch).Milliseconds()
		if err != nil || res.IsError {
			t.Fatalf("call: %v %v", err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatal(err)
		}
		_ = cs.Close()
		_ = ss.Wait()
		time.Sleep(10 * time.Second) // every abandoned read and twin ends
	})
	return rep, endMs, events
}

// kept reports whether the reply kept its outputs.
func kept(rep waittool.Reply) bool { return !rep.OutputsUnavailable && len(rep.Outputs) == 1 }

func window(from, to time.Duration) [2]time.Duration { return [2]time.Duration{from, to} }

// TestPollHeldByTheMachine: the machine holds the list issued at 753 ms,
// and its twin, until 953 ms. On the exact clock's terms that list cost
// 201 ms, and the final read, predicted to end at 1155 ms, is not issued:
// the outputs are lost at 954 ms. With the twin the list cost the bridge its
// own 1 ms; the 200 ms are the machine's (slip): the call polls on as
// planned, reads its outputs at 999 ms and keeps them (contract §2 step 12).
func TestPollHeldByTheMachine(t *testing.T) {
	w := script{stall: window(753*ms, 953*ms)}
	rep, end, ev := oneCall(t, "exact", w)
	if kept(rep) || end != 954 || !slices.Contains(ev, "not-issued read@954") {
		t.Errorf("exact: the held poll should cost the final read: reply %+v at %d ms, events %v", rep, end, ev)
	}
	rep, end, ev = oneCall(t, "twin", w)
	if !kept(rep) || end != 999 || !slices.Contains(ev, "issue read@999") {
		t.Errorf("a poll the machine held must not cost the final read: reply %+v at %d ms, events %v", rep, end, ev)
	}
}

// TestPollRaceHeldByTheMachine: the machine holds the list issued at 753 ms,
// and its twin, until 1053 ms, past the deadline. Exact: the list loses its
// race at 1000 ms, having cost 247 ms, and the final read is not issued.
// With the twin the race waits for the twin, the list's result comes first
// (1054 ms) having cost the bridge 1 ms, and the final read follows at once,
// its limit moved by the machine's 300 ms: kept, at 1054 ms.
func TestPollRaceHeldByTheMachine(t *testing.T) {
	w := script{stall: window(753*ms, 1053*ms)}
	rep, end, ev := oneCall(t, "exact", w)
	if kept(rep) || end != 1000 || !slices.Contains(ev, "lost list@1000") || !slices.Contains(ev, "not-issued read@1000") {
		t.Errorf("exact: the held list should lose its race at 1000 ms and cost the final read: reply %+v at %d ms, events %v", rep, end, ev)
	}
	rep, end, ev = oneCall(t, "twin", w)
	if !kept(rep) || end != 1054 || !slices.Contains(ev, "in-time list@1054") || !slices.Contains(ev, "issue read@1054") {
		t.Errorf("a list the machine held must keep its race and not cost the final read: reply %+v at %d ms, events %v", rep, end, ev)
	}
}

// TestFinalReadHeldByTheMachine: the machine holds the final read (issued
// at 999 ms, its limit 1000 ms), and its twin, until 1299 ms. Exact: the
// race is lost at 1000 ms. With the twin the race waits for the twin and
// runs on to 1300 ms; the read's result comes at 1299 ms: kept.
func TestFinalReadHeldByTheMachine(t *testing.T) {
	w := script{stall: window(999*ms, 1299*ms)}
	rep, end, ev := oneCall(t, "exact", w)
	if kept(rep) || end != 1000 || !slices.Contains(ev, "lost read@1000") {
		t.Errorf("exact: the held final read should lose its race at 1000 ms: reply %+v at %d ms, events %v", rep, end, ev)
	}
	rep, end, ev = oneCall(t, "twin", w)
	if !kept(rep) || end != 1299 || !slices.Contains(ev, "in-time read@1299") {
		t.Errorf("a final read the machine held must keep its race: reply %+v at %d ms, events %v", rep, end, ev)
	}
}

// TestRaceExtensionIsBounded: the same final read, but the bridge then
// takes 5 s of its own: the race runs on for the twin's 300 ms and no
// longer, and the read is lost at 1300 ms.
func TestRaceExtensionIsBounded(t *testing.T) {
	rep, end, ev := oneCall(t, "twin", script{stall: window(999*ms, 1299*ms), read: 5 * time.Second})
	if kept(rep) || end != 1300 || !slices.Contains(ev, "lost read@1300") {
		t.Errorf("reply %+v at %d ms, want outputs lost at 1300 ms; events %v", rep, end, strings.Join(ev, ", "))
	}
}

// TestSlowBridgeStaysSlow: the same delays, but the bridge's own, and the
// twins run at once: the rule excuses nothing, and the twin changes
// nothing. A 4th list of 200 ms costs the final read (not issued at
// 953 ms); one of 300 ms, or a final read of 300 ms, loses its race at
// 1000 ms.
func TestSlowBridgeStaysSlow(t *testing.T) {
	for _, tc := range []struct {
		w     script
		want  string
		endMs int64
	}{
		{script{lists: map[int]time.Duration{4: 200 * ms}}, "not-issued read@953", 953},
		{script{lists: map[int]time.Duration{4: 300 * ms}}, "lost list@1000", 1000},
		{script{read: 300 * ms}, "lost read@1000", 1000},
	} {
		rep, end, ev := oneCall(t, "twin", tc.w)
		if kept(rep) || end != tc.endMs || !slices.Contains(ev, tc.want) {
			t.Errorf("a slow bridge (lists %v, read %v) with twins that run at once: reply %+v at %d ms, want %s; events %v",
				tc.w.lists, tc.w.read, rep, end, tc.want, ev)
		}
	}
}

// TestTwinOnAnExactClock: where nothing holds the process, every twin runs
// at its read's instant, measures 0, and the call is the exact clock's,
// event for event (the simulation gives the tool no Machine; this is why it
// need not). Every world here gives each list at least 1 ms of the bridge's
// own time, as oneCall's do: with lists of 0 ms the final read is issued at
// its limit, and synctest's clock (unlike the simulation's kernel, which
// orders one instant's work) may fire a timer of 0 ms before the goroutine
// whose result is ready at that instant has run, with or without a twin.
func TestTwinOnAnExactClock(t *testing.T) {
	for _, w := range []script{
		{},
		{lists: map[int]time.Duration{2: 40 * ms, 3: 90 * ms}},
		{lists: map[int]time.Duration{4: 200 * ms}},
		{lists: map[int]time.Duration{4: 300 * ms}},
		{read: 300 * ms},
		{lists: map[int]time.Duration{1: 1500 * ms}},
	} {
		er, eend, eev := oneCall(t, "exact", w)
		tr, tend, tev := oneCall(t, "twin", w)
		if !slices.Equal(eev, tev) || eend != tend || fmt.Sprint(er) != fmt.Sprint(tr) {
			t.Errorf("lists %v, read %v: exact %+v at %d ms %v\ntwin %+v at %d ms %v", w.lists, w.read, er, eend, eev, tr, tend, tev)
		}
	}
}
