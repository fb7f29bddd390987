package conformance

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/serve"
	simpkg "github.com/waitsim/waitsim/sim"
)

func simCalls() []results.CallSummary {
	return []results.CallSummary{
		{Caller: "A", Index: 1, EndMs: 30000, Progress: 1, Reply: map[string]any{"ok": true, "done": false, "remainingMs": 10000.0,
			"agents": []any{map[string]any{"sessionId": "c", "state": "running"}}, "outputs": []any{map[string]any{"sessionId": "c", "messages": []any{"x"}}}}},
		{Caller: "B", Index: 1, EndMs: 3000, Lost: true, LostBy: simpkg.LostByTimeout},
	}
}

func realCalls() []Observed {
	return []Observed{
		{Caller: "A", Index: 1, EndMs: 30004.5, Reply: map[string]any{"ok": true, "done": false, "remainingMs": 9996.0,
			"agents": []any{map[string]any{"sessionId": "c", "state": "running"}}, "outputs": []any{map[string]any{"sessionId": "c", "messages": []any{"x"}}}},
			ProgressNotes: []Note{{AtMs: 1000, Progress: 1000, Total: 30000}}},
		{Caller: "B", Index: 1, EndMs: 3001, Lost: true, Cause: CauseTimeout},
	}
}

var goRules = judgeRules{client: ClientGo}

func TestCompareAgrees(t *testing.T) {
	for _, c := range compare(simCalls(), realCalls(), 100, goRules) {
		if len(c.Mismatches) > 0 || c.LostOutputs {
			t.Errorf("%s#%d: %v", c.Caller, c.Index, c.Mismatches)
		}
	}
	if got := compare(simCalls(), realCalls(), 100, goRules)[0].DiffMs; got != 4.5 {
		t.Errorf("DiffMs = %v, want 4.5", got)
	}
}

// Each kind of disagreement is caught and named.
func TestCompareDisagrees(t *testing.T) {
	cases := map[string]struct {
		edit func([]Observed) []Observed
		want string
	}{
		"late": {func(o []Observed) []Observed { o[0].EndMs = 30200; return o }, "off by 200.0 ms"},
		"lost outputs": {func(o []Observed) []Observed {
			o[0].Reply["outputs"] = []any{}
			o[0].Reply["outputsUnavailable"] = true
			return o
		}, "outputsUnavailable: absent in the simulation, real true"},
		"remaining off":    {func(o []Observed) []Observed { o[0].Reply["remainingMs"] = 9800.0; return o }, "remainingMs: simulation 10000, real 9800"},
		"remaining gone":   {func(o []Observed) []Observed { delete(o[0].Reply, "remainingMs"); return o }, "remainingMs: simulation 10000, absent"},
		"agent state":      {func(o []Observed) []Observed { o[0].Reply["done"] = true; return o }, "done: simulation false, real true"},
		"received":         {func(o []Observed) []Observed { o[1].Lost = false; o[1].Reply = map[string]any{"ok": true}; return o }, "lost: simulation true, real false"},
		"progress > total": {func(o []Observed) []Observed { o[0].ProgressNotes[0].Progress = 30002; return o }, "progress 30002 above total 30000"},
		"missing call":     {func(o []Observed) []Observed { return o[:1] }, "the real client made no such call"},
		"extra call":       {func(o []Observed) []Observed { return append(o, Observed{Caller: "A", Index: 2}) }, "a call the simulation does not predict"},
		"error":            {func(o []Observed) []Observed { o[1].Lost, o[1].RPCError = false, "boom"; return o }, "error: simulation false, real true"},
	}
	for name, tc := range cases {
		got := compare(simCalls(), tc.edit(realCalls()), 100, goRules)
		var all []string
		for _, c := range got {
			all = append(all, c.Mismatches...)
		}
		if !strings.Contains(strings.Join(all, "\n"), tc.want) {
			t.Errorf("%s: mismatches %q do not contain %q", name, all, tc.want)
		}
		if name == "lost outputs" && !got[0].LostOutputs {
			t.Errorf("lost outputs not counted")
		}
	}
}

// The tolerance of a case is the floor, or StallFactor × the probe's stall.
func TestJudgeTolerance(t *testing.T) {
	obs := realCalls()
	obs[0].EndMs = 30250
	e := RunEntry{observed: obs}
	judge(&e, simCalls(), 10, 100, goRules)
	if e.Agree || e.ToleranceMs != 100 {
		t.Errorf("250 ms late, stall 10 ms: agree %v, tolerance %v; want a disagreement at 100 ms", e.Agree, e.ToleranceMs)
	}
	e = RunEntry{observed: obs}
	judge(&e, simCalls(), 90, 100, goRules)
	if !e.Agree || e.ToleranceMs != 90*StallFactor {
		t.Errorf("250 ms late, stall 90 ms: agree %v, tolerance %v; want agreement at %d ms", e.Agree, e.ToleranceMs, 90*StallFactor)
	}
	// The TypeScript client behind a proxy has a floor of its own
	// (ProxiedTSToleranceMs); without a proxy, or the Go client, the
	// default's.
	for _, tc := range []struct {
		rules judgeRules
		tol   float64
	}{
		{judgeRules{client: ClientTS, idleMs: 20000}, ProxiedTSToleranceMs},
		{judgeRules{client: ClientTS}, 100},
		{judgeRules{client: ClientGo, idleMs: 20000}, 100},
	} {
		e = RunEntry{observed: obs}
		judge(&e, simCalls(), 10, 100, tc.rules)
		if e.ToleranceMs != tc.tol || e.Agree != (tc.tol > 250) {
			t.Errorf("%+v, 250 ms late: tolerance %v, agree %v; want tolerance %v", tc.rules, e.ToleranceMs, e.Agree, tc.tol)
		}
	}
	e = RunEntry{observed: obs, serverStallMs: 90}
	judge(&e, simCalls(), 10, 100, goRules)
	if !e.Agree || e.StallMs != 90 {
		t.Errorf("250 ms late, the server's stall 90 ms: agree %v, stall %v; want agreement", e.Agree, e.StallMs)
	}
	// The TypeScript client's own stall counts as the probes' do.
	e = RunEntry{observed: obs, ClientStallMs: 90}
	judge(&e, simCalls(), 10, 100, judgeRules{client: ClientTS})
	if !e.Agree || e.StallMs != 90 {
		t.Errorf("250 ms late, the client's stall 90 ms: agree %v, stall %v; want agreement", e.Agree, e.StallMs)
	}
	// A first call that reached the server late moves what the server
	// times later, never earlier: late by the lag more passes, early does
	// not, and remainingMs (two instants the lag moves alike) gets no more.
	lagged := func(lagMs float64) RunEntry {
		return RunEntry{observed: obs, StartLagMs: lagMs}
	}
	e = lagged(200)
	judge(&e, simCalls(), 10, 100, goRules)
	if !e.Agree || e.StartLagMs != 200 || e.ToleranceMs != 100 {
		t.Errorf("250 ms late after a start lag of 200 ms: agree %v, lag %v, tolerance %v; want agreement", e.Agree, e.StartLagMs, e.ToleranceMs)
	}
	e = lagged(100)
	judge(&e, simCalls(), 10, 100, goRules)
	if e.Agree {
		t.Errorf("250 ms late after a start lag of 100 ms: agree %v, want a disagreement", e.Agree)
	}
	early := realCalls()
	early[0].EndMs = 29750
	e = RunEntry{observed: early, StartLagMs: 200}
	judge(&e, simCalls(), 10, 100, goRules)
	if e.Agree {
		t.Error("250 ms early after a start lag of 200 ms agrees; a late start makes nothing early")
	}
	rem := realCalls()
	rem[0].Reply = maps.Clone(rem[0].Reply)
	rem[0].Reply["remainingMs"] = 10250.0
	e = RunEntry{observed: rem, StartLagMs: 200}
	judge(&e, simCalls(), 10, 100, goRules)
	if e.Agree {
		t.Error("remainingMs 250 ms off after a start lag of 200 ms agrees; the lag moves both of its instants")
	}
	// A lag or a client's stall beyond any lateness a run survives is a
	// broken measurement.
	e = lagged(HangGraceMs + 1)
	judge(&e, simCalls(), 10, 100, goRules)
	if e.Agree || !strings.Contains(e.Error, "measurement") {
		t.Errorf("a start lag above HangGraceMs: agree %v, error %q; want an error", e.Agree, e.Error)
	}
	e = RunEntry{observed: realCalls(), Error: "TypeScript client: boom"}
	judge(&e, simCalls(), 0, 100, goRules)
	if e.Agree {
		t.Error("a run with an error agrees")
	}
}

func TestSummarize(t *testing.T) {
	rep := &Report{Results: []RunEntry{
		{Client: "go", Transport: "sse", Agree: true, MaxAbsDiffMs: 3, StallMs: 40, StartLagMs: 25, Calls: []CallComparison{{}, {}}},
		{Client: "ts", Transport: "stdio", Agree: false, MaxAbsDiffMs: 7, Calls: []CallComparison{{Mismatches: []string{"x"}, LostOutputs: true}}},
	}}
	summarize(rep)
	if rep.Agree || rep.Runs != 2 || rep.Calls != 3 || rep.Disagreements != 1 || rep.LostOutputs != 1 || rep.MaxAbsDiffMs != 7 || rep.MaxStallMs != 40 || rep.MaxStartLagMs != 25 || len(rep.Profiles) != 2 {
		t.Errorf("summary %+v", rep)
	}
	empty := &Report{}
	summarize(empty)
	if empty.Agree {
		t.Error("a report without runs agrees")
	}
}

func TestServerProbeFromLog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "serve.log")
	log := "        5 ms  tool:1     start\n" + serve.ProbePrefix + `{"largestStallMs":123.4,"firstCallUnixMs":1796218052789.997}` + "\nwaitsim serve: stopped\n"
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := probeOf(nil, p); got.err != nil || got.ProbeReport != (serve.ProbeReport{LargestStallMs: 123.4, FirstCallUnixMs: 1796218052789.997}) {
		t.Errorf("probeOf = %+v, want the stall 123.4 and the first call 1796218052789.997", got)
	}
	if got := probeOf(&server{probe: serverProbe{ProbeReport: serve.ProbeReport{LargestStallMs: 7}}}, p); got.LargestStallMs != 7 {
		t.Errorf("an HTTP server's stall: %v, want 7", got.LargestStallMs)
	}
	if got := probeOf(nil, filepath.Join(t.TempDir(), "none.log")); got != (serverProbe{}) {
		t.Errorf("no log: %+v, want nothing", got)
	}
	if err := os.WriteFile(p, []byte(serve.ProbePrefix+"{\"largestStallMs\":\"12\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := probeOf(nil, p); got.err == nil {
		t.Errorf("a malformed probe line: %+v, want an error", got)
	}
}

// The start lag is how much later than its client's start the first call
// reached the server, measured on the wall clock by both.
func TestStartLag(t *testing.T) {
	for _, tc := range []struct {
		client, first, want float64
	}{
		{1000, 1300.5, 300.5},
		{1000, 990, 0}, // the clocks' resolution: no lag
		{0, 1500, 0},   // the client's start unknown
		{1000, 0, 0},   // no call reached the server
	} {
		if got := startLag(tc.client, tc.first); got != tc.want {
			t.Errorf("startLag(client %v, first call %v) = %v, want %v", tc.client, tc.first, got, tc.want)
		}
	}
}

func TestStaggerOffset(t *testing.T) {
	if got := staggerOffset(3, 150); got != 450*time.Millisecond {
		t.Errorf("the 4th client 150 ms apart starts %v after the release, want 450ms", got)
	}
	if got := staggerOffset(5, 0); got != 0 {
		t.Errorf("no stagger: %v, want 0", got)
	}
}

// What ended a call is compared: the proxy's 504, a cut stream, the
// client's own timeout, a hang (with the cut that left the client waiting),
// each against the simulation's account of the same call.
func TestCompareCauses(t *testing.T) {
	proxy := "proxy idle timeout (20000 ms)"
	sim504 := results.CallSummary{Caller: "A", Index: 1, EndMs: 20000, Lost: true, LostBy: proxy, Cut: simpkg.CutBeforeHeaders}
	simCut := results.CallSummary{Caller: "A", Index: 1, EndMs: 22000, Lost: true, LostBy: proxy, Cut: simpkg.CutAfterHeaders}
	simTimeoutAfterCut := results.CallSummary{Caller: "A", Index: 1, EndMs: 32000, Lost: true, LostBy: simpkg.LostByTimeout, CutBy: proxy, Cut: simpkg.CutAfterHeaders}
	simHang := results.CallSummary{Caller: "A", Index: 1, EndMs: 22000, Lost: true, LostBy: simpkg.LostByHang + "the stream was cut", Cut: simpkg.CutAfterHeaders}
	simTimeout := results.CallSummary{Caller: "A", Index: 1, EndMs: 25000, Lost: true, LostBy: simpkg.LostByTimeout}
	simReceived := results.CallSummary{Caller: "A", Index: 1, EndMs: 30000, Reply: map[string]any{"done": false}}
	real := func(end float64, cause string, cutAt float64) Observed {
		return Observed{Caller: "A", Index: 1, EndMs: end, Lost: true, Cause: cause, CutAtMs: cutAt}
	}
	ts := judgeRules{client: ClientTS, idleMs: 20000}
	goR := judgeRules{client: ClientGo, idleMs: 20000}
	for _, tc := range []struct {
		name  string
		sim   results.CallSummary
		real  Observed
		rules judgeRules
		want  string // "" agrees
		diff  float64
	}{
		{"504", sim504, real(20030, Cause504, 0), goR, "", 30},
		{"504 seen as a cut", sim504, real(20030, CauseCut, 0), goR, "ended by: simulation 504 (proxy idle timeout (20000 ms)), real cut", 30},
		{"cut", simCut, real(22010, CauseCut, 0), goR, "", 10},
		{"cut seen as a 504", simCut, real(22010, Cause504, 0), goR, "ended by: simulation cut", 10},
		{"own timeout after a cut", simTimeoutAfterCut, real(32040, CauseTimeout, 22020), ts, "", 40},
		{"own timeout, the cut unseen", simTimeoutAfterCut, real(32040, CauseTimeout, 0), ts, "the real client's transport reported no cut", 40},
		{"hang", simHang, real(27000, CauseHang, 22050), ts, "", 50},
		{"hang, no cut seen", simHang, real(27000, CauseHang, 0), ts, "the real client's transport reported no cut", 5000},
		{"hang where the simulation waits for the timeout", simTimeoutAfterCut, real(37000, CauseHang, 22020), ts, "ended by: simulation timeout (request timeout), real hang", -9980},
		{"received, real hang", simReceived, real(35000, CauseHang, 0), ts, "lost: simulation false, real true", 5000},
		{"timeout, a cut the simulation did not see", simTimeout, real(25010, CauseTimeout, 20000), ts, "the simulated client saw no cut", 10},
		{"timeout seen as a 504", simTimeout, real(25010, Cause504, 0), ts, "ended by: simulation timeout (request timeout), real 504", 10},
	} {
		got := compare([]results.CallSummary{tc.sim}, []Observed{tc.real}, 100, tc.rules)[0]
		all := strings.Join(got.Mismatches, "; ")
		if tc.want == "" && all != "" || !strings.Contains(all, tc.want) {
			t.Errorf("%s: mismatches %q, want %q", tc.name, all, tc.want)
		}
		if got.DiffMs != tc.diff {
			t.Errorf("%s: DiffMs %v, want %v", tc.name, got.DiffMs, tc.diff)
		}
		if got.SimCause == "" || got.RealCause == "" {
			t.Errorf("%s: causes %q, %q not recorded", tc.name, got.SimCause, got.RealCause)
		}
	}
}

// At equal timeouts the simulated client's timer fires first; the real one
// may lose the tie to the proxy's by a fraction of a ms. Either agrees, and
// the comparison says which came first; a 504 where the timeouts differ, or
// where progress kept the POST alive, is no tie.
func TestCompareTie(t *testing.T) {
	sim := results.CallSummary{Caller: "A", Index: 1, StartMs: 0, EndMs: 20000, Lost: true, LostBy: simpkg.LostByTimeout}
	for _, tc := range []struct {
		name     string
		sim      results.CallSummary
		cause    string
		rules    judgeRules
		tie      string
		mismatch bool
	}{
		{"client first", sim, CauseTimeout, judgeRules{client: ClientTS, idleMs: 20000}, TieClientFirst, false},
		{"proxy first", sim, Cause504, judgeRules{client: ClientTS, idleMs: 20000}, TieProxyFirst, false},
		{"no proxy", sim, Cause504, judgeRules{client: ClientTS}, "", true},
		{"another timeout", sim, Cause504, judgeRules{client: ClientTS, idleMs: 25000}, "", true},
		{"progress kept the POST alive", withProgress(sim, 5), Cause504, judgeRules{client: ClientTS, idleMs: 20000}, "", true},
		{"progress on the GET stream", withProgress(sim, 5), Cause504, judgeRules{client: ClientTS, idleMs: 20000, postSilent: true}, TieProxyFirst, false},
	} {
		real := Observed{Caller: "A", Index: 1, EndMs: 20005, Lost: true, Cause: tc.cause}
		for range tc.sim.Progress {
			real.ProgressNotes = append(real.ProgressNotes, Note{AtMs: 1000})
		}
		got := compare([]results.CallSummary{tc.sim}, []Observed{real}, 100, tc.rules)[0]
		if got.Tie != tc.tie || (len(got.Mismatches) > 0) != tc.mismatch {
			t.Errorf("%s: tie %q, mismatches %q; want tie %q, a mismatch %v", tc.name, got.Tie, got.Mismatches, tc.tie, tc.mismatch)
		}
	}
	rep := &Report{Results: []RunEntry{{Agree: true, Calls: []CallComparison{{Tie: TieClientFirst}, {Tie: TieProxyFirst}, {Tie: TieClientFirst}}}}}
	summarize(rep)
	if rep.TiesClientFirst != 2 || rep.TiesProxyFirst != 1 {
		t.Errorf("ties counted %d client first, %d proxy first; want 2 and 1", rep.TiesClientFirst, rep.TiesProxyFirst)
	}
}

func withProgress(s results.CallSummary, n int) results.CallSummary {
	s.Progress = n
	return s
}

// The progress count agrees within the tolerance around the real end, and
// for the TypeScript client one note more (its SDK drops a note processed
// after the call settled).
func TestCompareProgressWindow(t *testing.T) {
	notes := func(n int) []Note {
		var out []Note
		for k := 1; k <= n; k++ {
			out = append(out, Note{AtMs: float64(1500*k + 50), Progress: float64(1500 * k), Total: 30000})
		}
		return out
	}
	sim := results.CallSummary{Caller: "A", Index: 1, EndMs: 20000, Lost: true, LostBy: "proxy idle timeout (20000 ms)", Cut: simpkg.CutBeforeHeaders, Progress: 13}
	for _, tc := range []struct {
		name  string
		notes []Note
		end   float64
		rules judgeRules
		agree bool
	}{
		{"all 13", notes(13), 20020, goRules, true},
		{"12", notes(12), 20020, goRules, false},
		{"14: one more after the end, beyond the tolerance", notes(14), 20020, goRules, true},
		{"14 by the end", append(notes(13), Note{AtMs: 19900}), 20020, goRules, false},
		{"the 13th within the tolerance after the end", append(notes(12), Note{AtMs: 20070}), 20020, goRules, true},
		{"the TypeScript client dropped the last", notes(12), 20020, judgeRules{client: ClientTS}, true},
		{"the TypeScript client dropped two", notes(11), 20020, judgeRules{client: ClientTS}, false},
	} {
		real := Observed{Caller: "A", Index: 1, EndMs: tc.end, Lost: true, Cause: Cause504, ProgressNotes: tc.notes}
		got := compare([]results.CallSummary{sim}, []Observed{real}, 100, tc.rules)[0]
		if agree := len(got.Mismatches) == 0; agree != tc.agree {
			t.Errorf("%s: mismatches %q, want agreement %v", tc.name, got.Mismatches, tc.agree)
		}
	}
}

// The Go SDK client's errors name what ended the call.
func TestGoCause(t *testing.T) {
	for _, tc := range []struct {
		err  string
		late bool
		want string
	}{
		{`calling "tools/call": rejected by transport: sending "tools/call": Gateway Timeout`, false, Cause504},
		{`calling "tools/call": request terminated without response`, false, CauseCut},
		{`context deadline exceeded`, true, CauseHang},
		{`calling "tools/call": invalid params`, false, ""},
	} {
		if got := goCause(errors.New(tc.err), tc.late); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.err, got, tc.want)
		}
	}
}

// A client that restarts its request timeout on progress times out the
// timeout after it received the last note, and a proxy may hold that note
// (HAProxy about 200 ms): its end is judged from the note's arrival, the
// note's delay within the tolerance and the proxy's hold. CI's run 1 of
// proxy-bridge-stalls[ts-sdk-reset] through HAProxy: the last note at
// 2333.5 ms, the end at 32333.8 ms against the simulation's 32000.
func TestCompareResetAnchoredAtNote(t *testing.T) {
	sim := results.CallSummary{Caller: "A", Index: 1, EndMs: 32000, Lost: true, LostBy: simpkg.LostByTimeout, CutBy: "proxy idle timeout (20000 ms)", Cut: simpkg.CutAfterHeaders, Progress: 2}
	hap := judgeRules{client: ClientTS, idleMs: 20000, holdMs: haproxyHoldMs, resetMs: map[string]int64{"A": 30000}}
	noHold := hap
	noHold.holdMs = 0
	noReset := hap
	noReset.resetMs = nil
	real := func(last, end float64) Observed {
		return Observed{Caller: "A", Index: 1, EndMs: end, Lost: true, Cause: CauseTimeout, CutAtMs: 22100,
			ProgressNotes: []Note{{AtMs: 1330, Progress: 1000, Total: 100000}, {AtMs: last, Progress: 2000, Total: 100000}}}
	}
	for _, tc := range []struct {
		name  string
		real  Observed
		rules judgeRules
		want  string // "" agrees
		delay float64
	}{
		{"CI's run: the note held by HAProxy", real(2333.5, 32333.8), hap, "", 333.5},
		{"the same without a proxy's hold", real(2333.5, 32333.8), noHold, "the last progress notification before the timeout arrived at 2333.5 ms, simulation 2000 ms: off by 333.5 ms", 333.5},
		{"a client that does not reset: judged from the start", real(2333.5, 32333.8), noReset, "resolves at 32333.8 ms, simulation 32000 ms: off by 333.8 ms", 0},
		{"the timer ran past the note's arrival plus the timeout", real(2100, 32333.8), hap, "resolves at 32333.8 ms, 30233.8 ms after its last progress notification; the simulation 30000 ms after: off by 233.8 ms, tolerance 150 ms", 100},
		{"a note held longer than any proxy holds", real(2700, 32700), hap, "the last progress notification before the timeout arrived at 2700.0 ms", 700},
	} {
		got := compare([]results.CallSummary{sim}, []Observed{tc.real}, DefaultToleranceMs, tc.rules)[0]
		all := strings.Join(got.Mismatches, "; ")
		if tc.want == "" && all != "" || !strings.Contains(all, tc.want) {
			t.Errorf("%s: mismatches %q, want %q", tc.name, all, tc.want)
		}
		if got.NoteDelayMs != tc.delay {
			t.Errorf("%s: NoteDelayMs %v, want %v", tc.name, got.NoteDelayMs, tc.delay)
		}
	}
}
