package gen

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml/token"
	"github.com/waitsim/waitsim/hot"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
	"pgregory.net/rapid"
)

// Generator pools: values where the tool's rules change (the cap, the
// schema minimum, the bridge timeout, the cache window).
var (
	genLatencies = []int64{0, 5, 249, 250, 1000, 5000, 14999, 29000, 30000, 31000, 45000}
	genTimeouts  = []int{1000, 5000, 29999, 30000, 30001, 30999, 31000, 60500, 100000, 600000}
	genPolls     = []int{250, 251, 1000, 7000, 10000}
	genStates    = []string{"running", "waiting", "created", "prompt_sent", "", "completed", "failed", "cancelled", "other:archived"}
	// genChangeStates leaves out "": a change to the empty state is written
	// state: "" and the round trip through omitempty would drop it.
	genChangeStates = []string{"running", "waiting", "created", "prompt_sent", "completed", "failed", "cancelled", "other:gone"}
	// Budgets at and around their schema bounds and defaults (contract §2 "Input").
	genBudgets = map[string][]int{
		"maxMessagesPerAgent": {1, 2, 3, 20, 99, 100},
		"maxCharsPerMessage":  {50, 51, 99, 100, 4000, 100000},
		"maxCharsPerAgent":    {100, 101, 150, 20000, 500000},
		"maxTotalChars":       {1000, 1001, 1500, 100000, 2000000},
	}
	// Message lengths in characters at and around the budgets' edges, and
	// characters of one to four bytes in UTF-8.
	genLengths = []int{0, 1, 49, 50, 51, 99, 100, 101, 149, 150, 151, 500, 501, 700, 999, 1000, 1001}
	genChars   = []string{"x", "é", "日", "🙂"}
	genCounts  = []int{0, 1, 2, 3, 4, 21, 101}
	genTimes   = []int64{0, 100, 250, 999, 1000, 2500, 5000, 15000, 29999, 30000, 30001, 45000, 60000}
	// genLateness: timer lateness and jitter in ms, from idle (1–3 ms, as
	// measured) to a loaded machine.
	genLateness = []int64{0, 1, 3, 5, 20}
	// genProxies: proxy idle timeouts in ms (0: none), around the 60 s of
	// nginx and AWS and Cloudflare's 100 s; genWriteTimeouts likewise.
	genProxies       = []int64{0, 5000, 30000, 60000, 100000}
	genWriteTimeouts = []int64{0, 0, 20000, 60000}
)

// genStep draws one bridge step. A failing step's error names its label, so
// that each failing read has its own message. An output read (ids given)
// may return outputs of its own: ids it was not asked for, an id twice.
func genStep(t *rapid.T, label string, ids []string) scenario.Step {
	switch rapid.IntRange(0, 11).Draw(t, label+".kind") {
	case 0:
		return scenario.Step{Stall: true}
	case 1, 2:
		return scenario.Step{LatencyMs: rapid.SampledFrom(genLatencies).Draw(t, label+".ms"), Error: "boom at " + label}
	case 3:
		return scenario.Step{Reject: true, Error: rapid.SampledFrom([]string{"", "rejected " + label}).Draw(t, label+".why")}
	case 4, 5:
		if ids != nil {
			st := scenario.Step{LatencyMs: rapid.SampledFrom(genLatencies).Draw(t, label+".ms"), Outputs: []scenario.OutputSpec{}}
			pool := append(slices.Clone(ids), "zz")
			for i := range rapid.IntRange(0, 4).Draw(t, label+".outputs") {
				id := rapid.SampledFrom(pool).Draw(t, fmt.Sprintf("%s.out%d", label, i))
				st.Outputs = append(st.Outputs, scenario.OutputSpec{ID: id, Messages: genMessages(t, fmt.Sprintf("%s.out%d", label, i))})
			}
			return st
		}
	}
	return scenario.Step{LatencyMs: rapid.SampledFrom(genLatencies).Draw(t, label+".ms")}
}

// genMessages draws an agent's messages: how many, and each one's length
// and character, around the budgets' edges.
func genMessages(t *rapid.T, label string) []string {
	lengths, counts := genLengths, genCounts
	switch rapid.IntRange(0, 3).Draw(t, label+".kind") {
	case 0:
		return []string{"out of " + label}
	case 1: // a few long messages: agents that share maxTotalChars
		lengths, counts = genLengths[len(genLengths)-6:], []int{1, 2, 3}
	}
	n := rapid.SampledFrom(counts).Draw(t, label+".count")
	msgs := make([]string, 0, n)
	for i := range n {
		size := rapid.SampledFrom(lengths).Draw(t, fmt.Sprintf("%s.m%d.len", label, i))
		ch := rapid.SampledFrom(genChars).Draw(t, fmt.Sprintf("%s.m%d.char", label, i))
		msgs = append(msgs, genText(i, size, ch))
	}
	return msgs
}

// genText is message i of size characters: its number, then ch repeated.
func genText(i, size int, ch string) string {
	head := []rune(fmt.Sprintf("%d:", i))
	if size <= len(head) {
		return string(head[:size])
	}
	return string(head) + strings.Repeat(ch, size-len(head))
}

// Generate draws a random, valid scenario from t: a bridge script, a roster
// with changes, and one or two callers, all within the tool's input schema.
// Its expectations are empty: generated cases are checked by the invariants.
func Generate(t *rapid.T) scenario.Scenario {
	sc := scenario.Scenario{Name: "generated"}
	ids := []string{"a", "b", "c"}[:rapid.IntRange(1, 3).Draw(t, "agents")]
	for _, id := range ids {
		sc.Agents = append(sc.Agents, scenario.AgentSpec{ID: id, State: rapid.SampledFrom(genStates).Draw(t, "state."+id),
			Messages: genMessages(t, id)})
	}
	if rapid.IntRange(0, 3).Draw(t, "bridge") > 0 {
		b := &scenario.BridgeSpec{}
		for i := range rapid.IntRange(0, 4).Draw(t, "lists") {
			b.List = append(b.List, genStep(t, fmt.Sprintf("list%d", i), nil))
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "reads") {
			b.Read = append(b.Read, genStep(t, fmt.Sprintf("read%d", i), ids))
		}
		switch rapid.IntRange(0, 3).Draw(t, "bridgeTimeout") {
		case 1:
			b.TimeoutMs = &scenario.Limit{None: true}
		case 2:
			b.TimeoutMs = &scenario.Limit{Ms: rapid.SampledFrom([]int64{1000, 20000, 40000}).Draw(t, "bridgeTimeoutMs")}
		}
		if rapid.IntRange(0, 3).Draw(t, "nocache") == 0 {
			zero := int64(0)
			b.CacheMs = &zero
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "holds") {
			b.Congestion = append(b.Congestion, scenario.HoldSpec{
				AtMs:   rapid.SampledFrom(genTimes).Draw(t, fmt.Sprintf("hold%d.at", i)),
				HoldMs: rapid.SampledFrom(genLatencies).Draw(t, fmt.Sprintf("hold%d.ms", i))})
		}
		sc.Bridge = b
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "changes") {
		at := rapid.SampledFrom(genTimes).Draw(t, fmt.Sprintf("change%d.at", i))
		switch rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("change%d.op", i)) {
		case 0:
			sc.Changes = append(sc.Changes, scenario.ChangeSpec{AtMs: at, Op: "join", ID: fmt.Sprintf("n%d", i),
				State:    rapid.SampledFrom(genChangeStates).Draw(t, fmt.Sprintf("change%d.state", i)),
				Messages: genMessages(t, fmt.Sprintf("n%d", i))})
		case 1:
			sc.Changes = append(sc.Changes, scenario.ChangeSpec{AtMs: at, Op: "leave", ID: ids[len(ids)-1]})
		default:
			sc.Changes = append(sc.Changes, scenario.ChangeSpec{AtMs: at, Op: "state", ID: rapid.SampledFrom(ids).Draw(t, fmt.Sprintf("change%d.id", i)),
				State: rapid.SampledFrom(genChangeStates).Draw(t, fmt.Sprintf("change%d.state", i))})
		}
	}
	for i, name := range []string{"A", "B"}[:rapid.IntRange(1, 2).Draw(t, "callers")] {
		c := scenario.CallerSpec{Name: name, Args: map[string]any{}}
		if i > 0 {
			c.StartMs = rapid.SampledFrom(genTimes).Draw(t, name+".start")
		}
		c.Follow = rapid.Bool().Draw(t, name+".follow")
		c.Progress = new(rapid.Bool().Draw(t, name+".progress"))
		if rapid.IntRange(0, 3).Draw(t, name+".timeoutKind") == 0 {
			c.Args["timeoutMs"] = rapid.IntRange(1000, 600000).Draw(t, name+".timeoutMs")
		} else {
			c.Args["timeoutMs"] = rapid.SampledFrom(genTimeouts).Draw(t, name+".timeoutMs")
		}
		if rapid.Bool().Draw(t, name+".hasPoll") {
			c.Args["pollIntervalMs"] = rapid.SampledFrom(genPolls).Draw(t, name+".poll")
		}
		for _, k := range []string{"maxMessagesPerAgent", "maxCharsPerMessage", "maxCharsPerAgent", "maxTotalChars"} {
			if rapid.IntRange(0, 1).Draw(t, name+".has."+k) == 0 {
				c.Args[k] = rapid.SampledFrom(genBudgets[k]).Draw(t, name+"."+k)
			}
		}
		if rapid.IntRange(0, 3).Draw(t, name+".scoped") == 0 {
			scope := []any{rapid.SampledFrom(ids).Draw(t, name+".scope")}
			if len(sc.Changes) > 0 && sc.Changes[0].Op == "join" {
				scope = append(scope, sc.Changes[0].ID)
			}
			c.Args["sessionIds"] = scope
		}
		sc.Callers = append(sc.Callers, c)
	}
	// Real timers fire late (contract §2 step 12): a third of the worlds make
	// the tool's timers late, and bridges jitter, by a drawn seed.
	if rapid.IntRange(0, 2).Draw(t, "lateTimers") == 0 {
		sc.Timers = &scenario.TimersSpec{LateMs: rapid.SampledFrom(genLateness).Draw(t, "timers.lateMs"),
			JitterMs: rapid.SampledFrom(genLateness).Draw(t, "timers.jitterMs")}
		if sc.Bridge != nil && rapid.Bool().Draw(t, "bridgeJitter") {
			sc.Bridge.JitterMs = rapid.SampledFrom(genLatencies[:4]).Draw(t, "bridge.jitterMs")
		}
		sc.Seed = rapid.Int64Range(0, 1000).Draw(t, "seed")
	}
	// A quarter of the worlds put the SDK's streamable HTTP between callers and
	// tool, with what may sit between (contract §6); callers may be a known
	// client (contract §4). Drawn last, so the draws above keep their values.
	if rapid.IntRange(0, 3).Draw(t, "http") == 0 {
		tr := &scenario.TransportSpec{Mode: string(rapid.SampledFrom(sim.Modes[1:]).Draw(t, "transport.mode")),
			Protocol:   rapid.SampledFrom([]string{"", sim.Protocol20251125, sim.Protocol20260728}).Draw(t, "transport.protocol"),
			EventStore: rapid.Bool().Draw(t, "transport.eventStore")}
		tr.IdleTimeoutMs = rapid.SampledFrom(genProxies).Draw(t, "transport.idleTimeoutMs")
		tr.WriteTimeoutMs = rapid.SampledFrom(genWriteTimeouts).Draw(t, "transport.writeTimeoutMs")
		if rapid.IntRange(0, 3).Draw(t, "transport.drop") == 0 {
			tr.DropAtMs = []int64{rapid.SampledFrom(genTimes[1:]).Draw(t, "transport.dropAtMs")}
		}
		sc.Transport = tr
		for i := range sc.Callers {
			c := &sc.Callers[i]
			if rapid.Bool().Draw(t, c.Name+".profiled") {
				c.Profile = rapid.SampledFrom(sim.ProfileNames()).Draw(t, c.Name+".profile")
				c.Progress = nil // the profile's
			}
			if rapid.Bool().Draw(t, c.Name+".retry") {
				c.OnTransportFailure = string(sim.FailRetry)
			}
		}
	}
	// One world in eight replaces the tool's cap (capMs, contract §1 and §2):
	// the contract's 30000 given explicitly, or the first
	// version's 90000 — the tool's code path for a configured cap. Drawn last.
	if rapid.IntRange(0, 7).Draw(t, "cap") == 0 {
		sc.CapMs = rapid.SampledFrom([]int64{30000, 90000}).Draw(t, "capMs")
	}
	fitFile(&sc)
	// Drop roster changes the loader would refuse (e.g. a state change after
	// the agent left), in order, so that every draw is a valid scenario.
	for len(sc.Changes) > 0 && len(scenario.Validate(&sc, scenario.Options{})) > 0 {
		sc.Changes = slices.Delete(sc.Changes, len(sc.Changes)-1, len(sc.Changes))
	}
	return sc
}

// fitFile halves the longest message of sc until sc, written as a file, keeps
// well inside the loader's MaxFileBytes, so that every draw is a file the
// loader takes. Writing the world out again after each cut was nearly all the
// cost of drawing worlds (200 worlds: 830–900 ms, against 20 ms without
// fitFile, 2 December 2026; BenchmarkGenerate). When no message breaks a line
// (the generator draws none that does), the file's size is known from the
// world written once with empty messages (fileSize), and a cut changes it by
// what it changes the message's written length (writtenLen); otherwise the
// world is written after every cut (shrinkByWriting). Either way the cuts are
// the same (TestFitFileSize).
func fitFile(sc *scenario.Scenario) {
	size, ok := fileSize(*sc)
	if !ok {
		shrinkByWriting(sc)
		return
	}
	for size > fitBytes {
		longest := longestMessage(sc)
		if longest == nil || *longest == "" {
			return
		}
		half := halve(*longest)
		size += writtenLen(half) - writtenLen(*longest)
		*longest = half
	}
}

// shrinkByWriting is fitFile the plain way: it writes sc out after every
// cut of its longest message, until the file keeps within fitBytes.
func shrinkByWriting(sc *scenario.Scenario) {
	for {
		b, err := scenario.MarshalScenario(*sc, "size")
		if err != nil || len(b) <= fitBytes {
			return
		}
		longest := longestMessage(sc)
		if longest == nil || *longest == "" {
			return
		}
		*longest = halve(*longest)
	}
}

// halve is the first half of s, in runes.
func halve(s string) string {
	r := []rune(s)
	return string(r[:len(r)/2])
}

// fitBytes is the size fitFile keeps a world's file within.
var fitBytes = scenario.MaxFileBytes * 3 / 4

// fileSize is the size of sc written as a file (scenario.MarshalScenario);
// ok is false, and size means nothing, when a message of sc breaks a line
// or sc cannot be written. It is sc written with every message empty, plus
// what each message's written length adds to an empty one's. The encoder writes a message that breaks no line in
// its place, on its list item's line, as a token of its own whatever its
// column (writtenLen); one that breaks lines as a block of lines, each
// indented to its column.
func fileSize(sc scenario.Scenario) (size int, ok bool) {
	extra := 0
	oneLine := true
	empty := func(msgs []string) []string {
		if msgs == nil {
			return nil
		}
		for _, m := range msgs {
			extra += writtenLen(m) - writtenLen("")
			oneLine = oneLine && !strings.ContainsAny(m, "\n\r")
		}
		return make([]string, len(msgs))
	}
	// sc's own lists, copied before they are emptied.
	sc.Agents, sc.Changes = slices.Clone(sc.Agents), slices.Clone(sc.Changes)
	if sc.Bridge != nil {
		b := *sc.Bridge
		b.Read = slices.Clone(b.Read)
		for i := range b.Read {
			b.Read[i].Outputs = slices.Clone(b.Read[i].Outputs)
		}
		sc.Bridge = &b
	}
	messageLists(&sc, func(msgs *[]string) { *msgs = empty(*msgs) })
	if !oneLine {
		return 0, false
	}
	out, err := scenario.MarshalScenario(sc, "size")
	if err != nil {
		return 0, false
	}
	return len(out) + extra, true
}

// longestMessage is the longest message of sc in bytes (the first of
// those as long, in messageLists' order), nil when sc has none.
func longestMessage(sc *scenario.Scenario) *string {
	var longest *string
	messageLists(sc, func(msgs *[]string) {
		for i := range *msgs {
			if longest == nil || len((*msgs)[i]) > len(*longest) {
				longest = &(*msgs)[i]
			}
		}
	})
	return longest
}

// messageLists calls f with each list of messages of sc: the agents', the
// roster changes', then the outputs of the bridge's reads.
func messageLists(sc *scenario.Scenario, f func(msgs *[]string)) {
	for i := range sc.Agents {
		f(&sc.Agents[i].Messages)
	}
	for i := range sc.Changes {
		f(&sc.Changes[i].Messages)
	}
	if sc.Bridge != nil {
		for i := range sc.Bridge.Read {
			for j := range sc.Bridge.Read[i].Outputs {
				f(&sc.Bridge.Read[i].Outputs[j].Messages)
			}
		}
	}
}

// writtenLen is the length of s, a string that breaks no line, as the
// encoder writes it: quoted as strconv.Quote quotes it where a plain
// scalar would be read as something else (goccy's token.IsNeedQuoted, the
// rule its encoder applies in block style), as it is otherwise.
func writtenLen(s string) int {
	if token.IsNeedQuoted(s) {
		return len(strconv.Quote(s))
	}
	return len(s)
}

// Runner runs one case and checks it: a contract pack (waitagents.Pack),
// whose Run checks every invariant and the reference model.
type Runner interface {
	Run(t *testing.T, c *scenario.Case) results.CaseResult
}

// Options say how Check draws its worlds.
type Options struct {
	// Worlds is how many worlds it draws (default 40), unless -rapid.checks
	// or the command's params (results.Params.GenWorlds) say otherwise.
	Worlds int
	// Seed is rapid's seed (default 20261130) unless -rapid.seed says
	// otherwise: the same seed draws the same worlds.
	Seed uint64
	// Out is the directory where a shrunk failing world is written as a
	// scenario file ("" : not written).
	Out string
}

// Check runs seeded random worlds (Generate) through r, which checks each
// against every invariant and the reference model; rapid shrinks a failure to a minimal world,
// written to opts.Out as a scenario file that loads as it is. Under a
// mutant's kill suite (results.Params.KillSuite) it stops at the first
// counterexample instead, without shrinking, so that a kill never times out;
// given a results file too (results.Params.Results: a campaign's baseline),
// it writes what each world cost (results.RunResult.WorldMs) once every
// world passed.
func Check(t *testing.T, r Runner, opts Options) {
	t.Helper()
	params, _, err := results.ReadParams()
	if err != nil {
		t.Fatal(err)
	}
	if params.WatchdogMs > 0 {
		sim.SetWatchdog(time.Duration(params.WatchdogMs) * time.Millisecond)
	}
	if opts.Seed == 0 {
		opts.Seed = 20261130
	}
	setDefault("rapid.seed", strconv.FormatUint(opts.Seed, 10))
	if params.Hot != nil {
		// A hot runner's process: each request draws its worlds anew,
		// from the same seed, on the mutant it turned on.
		hot.Serve(t, *params.Hot, results.HotGenerator, func(t *testing.T, req results.HotRequest) results.HotReply {
			return serveHot(t, r, req)
		})
		return
	}
	if params.GenWorlds > 0 {
		setDefault("rapid.checks", strconv.Itoa(params.GenWorlds))
	}
	if opts.Worlds == 0 {
		opts.Worlds = 40
	}
	setDefault("rapid.checks", strconv.Itoa(opts.Worlds))
	setDefault("rapid.nofailfile", "true") // never write into the source tree
	if params.KillSuite {
		ms := killSuite(r, t, t, nil, func(_ int, msg string) { t.Fatal(msg) })
		if params.Results != "" && !t.Failed() {
			// A campaign's baseline: what each world cost. Without
			// them the campaign tries the worlds by index: its
			// verdicts are the same, so a failed write fails nothing.
			if err := results.WriteRun(params.Results, results.RunResult{Version: results.ResultVersion, WorldMs: ms}); err != nil {
				t.Logf("the worlds' costs were not written: %v", err)
			}
		}
		return
	}
	rapid.Check(t, func(rt *rapid.T) {
		sc := Generate(rt)
		if res, why := world(r, t, sc); len(why) > 0 {
			file := writeGenerated(t, opts.Out, sc, why[0])
			rt.Fatalf("invariants broken (minimal case written to %s):\n%s\n%s", file, strings.Join(why, "\n"), res.Timeline)
		}
	})
}

// world runs the world sc through r on t and returns its result and, when
// it fails, why: its error and the invariants it breaks.
func world(r Runner, t *testing.T, sc scenario.Scenario) (results.CaseResult, []string) {
	c := scenario.Case{ID: "generated", File: "(generator)", Scenario: sc}
	res := r.Run(t, &c)
	if res.Verdict == results.VerdictPass || res.Verdict == results.VerdictSkip {
		return res, nil
	}
	var why []string
	if res.Error != "" {
		why = append(why, res.Error)
	}
	for _, v := range res.Violation {
		why = append(why, v.Invariant+": "+v.Message)
	}
	if len(why) == 0 {
		why = append(why, "the world's verdict is "+res.Verdict)
	}
	return res, why
}

// killSuite is the generator as a mutant's kill suite: rapid's worlds
// (-rapid.checks of them from -rapid.seed), each through r on t, the first
// counterexample ending the run through kill (with its world's index, from
// 1; 0 for one of rapid's fail files), unshrunk. The worlds are rapid.Check's
// own (checkSeed; TestKillWorldsAreRapids), run in another order: the
// worlds first names (indices from 0: those that killed other mutants,
// then the cheapest), then the rest by index; rapid's fail files for tb's
// test, as rapid.Check replays them, come before all of them. A mutant is
// killed when one of these worlds fails, whatever their order. ms is each
// world's wall time in ms, by index (0 for a world that did not run; nil
// when one of the fail files failed).
func killSuite(r Runner, tb rapid.TB, t *testing.T, first []int, kill func(world int, msg string)) (ms []float64) {
	n, _ := strconv.Atoi(flag.Lookup("rapid.checks").Value.String())
	seed, _ := strconv.ParseUint(flag.Lookup("rapid.seed").Value.String(), 10, 64)
	fail := func(i int, sc scenario.Scenario, why []string) {
		b, _ := scenario.MarshalScenario(sc, "found by the generator: "+why[0])
		at := "one of rapid's fail files"
		if i > 0 {
			at = fmt.Sprintf("world %d of %d: -rapid.seed=%d -rapid.checks=1 draws it first", i, n, checkSeed(seed, i-1))
		}
		kill(i, fmt.Sprintf("invariants broken (not shrunk: a mutation run; %s):\n%s\n%s", at, strings.Join(why, "\n"), b))
	}
	// rapid.Check with no worlds of its own replays the fail files alone
	// (a kill there ends the goroutine: the flag is restored on the way).
	_ = flag.Set("rapid.checks", "0")
	defer func() { _ = flag.Set("rapid.checks", strconv.Itoa(n)) }()
	rapid.Check(tb, func(rt *rapid.T) {
		sc := Generate(rt)
		if _, why := world(r, t, sc); len(why) > 0 {
			fail(0, sc, why)
		}
	})
	if t.Failed() {
		return nil
	}
	g := rapid.Custom(Generate)
	order := slices.Clone(first)
	for i := range n {
		order = append(order, i)
	}
	done := make([]bool, n)
	ms = make([]float64, n)
	for _, i := range order {
		if i < 0 || i >= n || done[i] {
			continue
		}
		done[i] = true
		start := time.Now()
		sc := g.Example(int(checkSeed(seed, i)))
		_, why := world(r, t, sc)
		ms[i] = float64(time.Since(start).Microseconds()) / 1000
		if len(why) > 0 {
			fail(i+1, sc, why)
			return ms
		}
	}
	return ms
}

// checkSeed is the seed of the i-th world (from 0) rapid.Check draws from
// seed: it adds the world's index to the seed before each world (rapid
// v1.3.0, findBug).
func checkSeed(seed uint64, i int) uint64 {
	return seed + uint64(i)*uint64(i+1)/2
}

// serveHot runs one hot request through r: the generator over req.GenWorlds worlds
// from its seed, as a kill suite (its first counterexample ends it), in a
// subtest of the door's t; a failure is reported under the door's own
// test name, as a run of its own reports it.
func serveHot(t *testing.T, r Runner, req results.HotRequest) results.HotReply {
	var rep results.HotReply
	if req.GenWorlds > 0 {
		_ = flag.Set("rapid.checks", strconv.Itoa(req.GenWorlds))
	}
	_ = flag.Set("rapid.nofailfile", "true")
	var msg string
	ok := t.Run("generated", func(st *testing.T) {
		// rapid as the door's own test (its fail files are found by
		// the test's name), running in this subtest.
		_ = killSuite(r, namedTB{st, t.Name()}, st, req.GenOrder, func(world int, m string) {
			msg, rep.World = m, world
			st.Fatal(m)
		})
	})
	switch {
	case ok:
		rep.Passed = 1
	case msg == "":
		rep.Failed = []results.HotFailure{{Test: t.Name(), Output: "the generator failed (see its log)"}}
	default:
		rep.Failed = []results.HotFailure{{Test: t.Name(), Output: msg}}
	}
	return rep
}

// namedTB is a test under another name: what rapid knows of a hot
// request's subtest, so that it finds the door test's fail files as a run
// of its own would.
type namedTB struct {
	*testing.T
	name string
}

func (n namedTB) Name() string { return n.name }

// setDefault sets flag name to value unless the command line set it.
func setDefault(name, value string) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if !set {
		_ = flag.Set(name, value)
	}
}

// writeGenerated writes sc as a scenario file under dir and returns its
// path. Shrinking calls it again for each smaller failure; the last write is
// the minimal case.
func writeGenerated(t *testing.T, dir string, sc scenario.Scenario, why string) string {
	if dir == "" {
		return "(not written: no Options.Out)"
	}
	sc.Name = "generated-" + strings.NewReplacer(":", "", " ", "-").Replace(strings.SplitN(why, ":", 2)[0])
	b, err := scenario.MarshalScenario(sc, "found by the generator: "+why)
	if err != nil {
		t.Logf("cannot write the case: %v", err)
		return "(not written)"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("cannot write the case: %v", err)
		return "(not written)"
	}
	file := filepath.Join(dir, sc.Name+".yaml")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Logf("cannot write the case: %v", err)
	}
	return file
}
