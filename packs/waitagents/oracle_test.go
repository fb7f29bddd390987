package waitagents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/waittool"
)

// Who tests the tester: every invariant and the reference model are shown
// firing on a world that breaks them. Each world below runs the real tool
// once; its records are then changed the way a broken tool would have
// changed them, and the checks must name the broken rule (and, untouched,
// must pass).

// oracleWorlds are the worlds the tests below break, by name.
var oracleWorlds = map[string]string{
	// capped: polls to the cap with progress; c in scope, d not.
	"capped": `name: capped
agents:
  - {id: c, state: running, messages: ["hello", "wörld"]}
  - {id: d, state: running}
callers:
  - name: A
    progress: true
    args: {timeoutMs: 100000, sessionIds: [c]}
`,
	// slow: a 5000 ms list; polls leave a 10000 ms reserve.
	"slow": `name: slow
bridge: {list: [5000], read: [0]}
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 600000, pollIntervalMs: 250}
`,
	// done: everything completed, long outputs cut to small budgets.
	"done": `name: done
bridge: {read: [5000]}
agents:
  - {id: a, state: completed, messages: ["m1", "m2", "` + strings.Repeat("é", 120) + `"]}
  - {id: b, state: other:archived, messages: ["` + strings.Repeat("日", 900) + `"]}
callers:
  - name: A
    args: {maxMessagesPerAgent: 2, maxCharsPerMessage: 100, maxCharsPerAgent: 150, maxTotalChars: 1000}
`,
	// nolist: the only list outlives the deadline.
	"nolist": `name: nolist
bridge: {list: [40000]}
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 600000}
`,
	// noread: the final read outlives the deadline, after a failed poll.
	"noread": `name: noread
bridge: {list: [0, {latencyMs: 10, error: "first"}, 0], read: [20000]}
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 600000}
`,
	// chain: 60500 → 30500 → stop.
	"chain": `name: chain
agents:
  - {id: c, state: running}
callers:
  - name: A
    follow: true
    args: {timeoutMs: 60500}
`,
	// lateread: every tool timer 5 ms late; the final read ends 5 ms after
	// the deadline, at the instant its late race timer fires: in time.
	"lateread": `name: lateread
bridge: {read: [30005], timeoutMs: none}
timers: {lateMs: 5}
agents:
  - {id: c, state: completed, messages: ["done"]}
callers:
  - name: A
`,
	// latereadjitter: lateread with jittered timers (0..5 ms late): the
	// final read's race timer draws 5 ms (seed 13), so the read, ending at
	// 30005 ms, is in time; a draw below 5 would have lost it.
	"latereadjitter": `name: latereadjitter
seed: 13
bridge: {read: [30005], timeoutMs: none}
timers: {jitterMs: 5}
agents:
  - {id: c, state: completed, messages: ["done"]}
callers:
  - name: A
`,
	// later: a capped call that starts at 1000 ms (times count from its start).
	"later": `name: later
agents:
  - {id: c, state: running}
callers:
  - name: A
    startMs: 1000
    progress: true
    args: {timeoutMs: 100000, pollIntervalMs: 10000}
`,
	// http: a capped call with progress over streamable HTTP (SSE).
	"http": `name: http
transport: {mode: sse}
agents:
  - {id: c, state: running}
callers:
  - name: A
    progress: true
    args: {timeoutMs: 100000, pollIntervalMs: 5000}
`,
	// latepolls: polls under late, jittered timers (some wakes on time,
	// some up to 7 ms late), with progress.
	"latepolls": `name: latepolls
timers: {lateMs: 0, jitterMs: 7}
seed: 3
bridge: {list: [0, 40, 0], read: [0]}
agents:
  - {id: c, state: running, messages: ["x"]}
callers:
  - name: A
    progress: true
    args: {timeoutMs: 100000, pollIntervalMs: 3000}
`,
	// edge: the final read ends exactly at the deadline: in time.
	"edge": `name: edge
bridge: {read: [30000], timeoutMs: none}
agents:
  - {id: c, state: completed, messages: ["done"]}
callers:
  - name: A
`,
	// firstfails: the first list fails at once; the call polls until one
	// is read.
	"firstfails": `name: firstfails
bridge: {list: [{error: down}, 0]}
agents:
  - {id: c, state: completed, messages: ["done"]}
callers:
  - name: A
`,
	// inherit-same-instant: B starts at the instant A's reply resolves, so
	// either may be the tool's previous call for B (contract §2 step 12).
	"inherit-same-instant": `name: inherit-same-instant
timers: {lateMs: 3}
agents:
  - {id: a, state: running}
callers:
  - name: A
    args: {timeoutMs: 30001, pollIntervalMs: 251}
  - name: B
    startMs: 29983
    args: {timeoutMs: 1000, pollIntervalMs: 7000}
`,
	// inherit-after: B starts after A resolved and inherits A's delay;
	// C starts before anyone resolved and inherits none.
	"inherit-after": `name: inherit-after
timers: {lateMs: 3}
agents:
  - {id: a, state: running}
callers:
  - name: C
    startMs: 100
    args: {timeoutMs: 1000, pollIntervalMs: 7000}
  - name: A
    args: {timeoutMs: 3000, pollIntervalMs: 251}
  - name: B
    startMs: 6000
    args: {timeoutMs: 1000, pollIntervalMs: 7000}
`,
	// inherit-chain: the second call of a chain starts at the instant the
	// first resolves, after it stored its delay, and inherits it.
	"inherit-chain": `name: inherit-chain
timers: {lateMs: 3}
agents:
  - {id: a, state: running}
callers:
  - name: A
    follow: true
    args: {timeoutMs: 31100, pollIntervalMs: 7000}
`,
	// notissued: the last poll's list takes 5000 ms where the others took
	// 1000: it ends at 29000 ms, and the final read (cost 5000 ms) is not
	// issued.
	"notissued": `name: notissued
bridge: {list: [1000, 1000, 1000, 1000, 5000]}
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 600000, pollIntervalMs: 5000}
`,
	// nobridge: the tool registered without a bridge.
	"nobridge": `name: nobridge
noBridge: true
callers:
  - name: A
`,
	// replayed: A's one notification (1000 ms) reaches it again at 13000
	// ms, replayed by a standalone stream reopened without Last-Event-ID
	// (contract §6); B keeps the world open.
	"replayed": `name: replayed
transport: {mode: json, eventStore: true, idleTimeoutMs: 5000}
agents:
  - {id: c, state: running}
callers:
  - name: A
    progress: true
    args: {timeoutMs: 1000}
  - name: B
    transport: {mode: memory}
    args: {timeoutMs: 14000, pollIntervalMs: 10000}
`,
	// lostcall: A's reply is lost on the wire while its handler runs on and
	// measures 1 ms of lateness; B inherits it (contract §2 step 12).
	"lostcall": `name: lostcall
timers: {lateMs: 1}
agents:
  - {id: c, state: running}
callers:
  - name: A
    transport: {mode: sse, dropAtMs: [100]}
    args: {timeoutMs: 1000, pollIntervalMs: 250}
  - name: B
    startMs: 2000
    args: {timeoutMs: 1000}
`,
	// resumedlate: the race timer of the only list fires 5 ms late, at
	// 30005 ms (jittered timers, 0..5 ms late: seed 5 draws 5 for it); the
	// reply, built then, reaches the caller over a stream resumed at 31000
	// ms (contract §6).
	"resumedlate": `name: resumedlate
seed: 5
timers: {jitterMs: 5}
transport: {mode: sse, protocol: 2025-11-25, eventStore: true, idleTimeoutMs: 30000}
bridge: {list: [stall], timeoutMs: none}
agents:
  - {id: c, state: running}
callers:
  - name: A
    profile: go-sdk
    args: {timeoutMs: 100000}
`,
	// resumedlateexact: resumedlate with every timer 5 ms late.
	"resumedlateexact": `name: resumedlateexact
timers: {lateMs: 5}
transport: {mode: sse, protocol: 2025-11-25, eventStore: true, idleTimeoutMs: 30000}
bridge: {list: [stall], timeoutMs: none}
agents:
  - {id: c, state: running}
callers:
  - name: A
    profile: go-sdk
    args: {timeoutMs: 100000}
`,
	// inheritjitter: jittered timers (seed 5); A's first list loses its
	// race to a late timer, whose wake the model reads from A's reply; B
	// inherits A's figure (contract §2 step 12).
	"inheritjitter": `name: inheritjitter
seed: 5
timers: {jitterMs: 30}
bridge: {list: [2000, 0]}
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 1000}
  - name: B
    startMs: 3000
    args: {timeoutMs: 1000, pollIntervalMs: 10000}
`,
	// lostjitter: jittered timers; A's reply is lost, its handler measures
	// 28 ms (the world's largest lateness), and B, whose one wake is 1 ms
	// late, can only have inherited 27 or 28 ms (contract §2 step 12).
	"lostjitter": `name: lostjitter
seed: 34
timers: {jitterMs: 30}
agents:
  - {id: c, state: running}
callers:
  - name: A
    transport: {mode: sse, dropAtMs: [100]}
    args: {timeoutMs: 1000, pollIntervalMs: 250}
  - name: B
    startMs: 2000
    args: {timeoutMs: 1000}
`,
	// resumedjitter: the poll's list never ends; its race timer, due at
	// 30009 ms, fires 1 ms late (the world's largest lateness is 9 ms), and
	// the reply reaches the caller over a stream resumed at 31000 ms: only
	// its remainingMs tells that it was built at 30010 ms (contract §6).
	"resumedjitter": `name: resumedjitter
seed: 3
timers: {jitterMs: 9}
transport: {mode: sse, protocol: 2025-11-25, eventStore: true, idleTimeoutMs: 30000}
bridge: {list: [0, stall], timeoutMs: none}
agents:
  - {id: c, state: running}
callers:
  - name: A
    profile: go-sdk
    args: {timeoutMs: 100000, pollIntervalMs: 10000}
`,
	// inherit-lost-race: A's final read outlives its deadline; its race
	// timer wakes the call 3 ms late and the reply (in memory: no wire
	// delay) follows at once. B inherits A's 3 ms (contract §2 step 12).
	"inherit-lost-race": `name: inherit-lost-race
timers: {lateMs: 3}
bridge: {read: [5000]}
agents:
  - {id: a, state: running}
callers:
  - name: A
    args: {timeoutMs: 1000, pollIntervalMs: 7000}
  - name: B
    startMs: 7000
    args: {timeoutMs: 1000, pollIntervalMs: 7000}
`,
	// inherit-lost-first-list: A's only timer is its first list's race
	// timer, 40 ms late; B inherits 40 ms and its one sleep ends 40 ms
	// before its deadline (contract §2 step 12).
	"inherit-lost-first-list": `name: inherit-lost-first-list
timers: {lateMs: 40}
bridge: {list: [2000, 0]}
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 1000}
  - name: B
    startMs: 3000
    args: {timeoutMs: 1000, pollIntervalMs: 10000}
`,
	// inherit-at-start: B starts before A ends; A's 40 ms, stored while B
	// waits for its first list, is not B's (contract §2 step 12).
	"inherit-at-start": `name: inherit-at-start
timers: {lateMs: 40}
bridge: {list: [0, 700, 0]}
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 1000, pollIntervalMs: 10000}
  - name: B
    startMs: 500
    args: {timeoutMs: 5000, pollIntervalMs: 10000}
`,
	// lostcall30: lostcall with timers 30 ms late: A's figure, lost with
	// its reply, can only be 0 or 30 ms, never a figure between.
	"lostcall30": `name: lostcall30
timers: {lateMs: 30}
agents:
  - {id: c, state: running}
callers:
  - name: A
    transport: {mode: sse, dropAtMs: [100]}
    args: {timeoutMs: 1000, pollIntervalMs: 250}
  - name: B
    startMs: 2000
    args: {timeoutMs: 1000}
`,
	// panicky: the first list's bridge call panics; the tool retries it as
	// a failed first list and reports "bridge panic: boom" (contract §2
	// step 9); a poll's list panics again later, once agents were listed.
	"panicky": `name: panicky
bridge: {list: [{panic: boom}, 0, {latencyMs: 5, panic: "kaboom 2"}, 0]}
agents:
  - {id: c, state: running, messages: [hello]}
callers:
  - name: A
    progress: true
    args: {timeoutMs: 100000, pollIntervalMs: 10000}
`,
	// resumeretry: a resumption cut by the write deadline before its
	// response began is sent again 3000 ms later: the reply resolves at
	// 33000 ms, delayed by gaps of 1000 and 3000 ms (contract §6).
	"resumeretry": `name: resumeretry
transport: {mode: sse, protocol: 2025-11-25, eventStore: true, writeTimeoutMs: 20000, dropAtMs: [100]}
agents:
  - {id: c, state: running}
callers:
  - name: A
    profile: ts-sdk
    args: {timeoutMs: 100000}
`,
}

// oracleRun runs the named world and returns its case and result.
func oracleRun(t *testing.T, name string) (*scenario.Case, *Result) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(file, []byte("# protects: a fixture\n"+oracleWorlds[name]), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := loadRef([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	c := &cases[0]
	return c, RunWorld(t, Reference().World(c))
}

// editReply changes call i's reply as JSON and keeps the typed view (the
// reply's JSON as sent, which ReplyOf decodes) in step.
func editReply(t *testing.T, res *Result, i int, edit func(map[string]any)) {
	t.Helper()
	cr := &res.Calls[i]
	edit(cr.Raw)
	b, err := json.Marshal(cr.Raw)
	if err != nil {
		t.Fatal(err)
	}
	var rep waittool.Reply
	if err := json.Unmarshal(b, &rep); err == nil {
		cr.StructuredJSON = b // else (a value the typed reply cannot hold): the JSON alone is changed
	}
}

// requestsOf returns the indexes in res.Requests of call i's requests of op.
func requestsOf(res *Result, i int, op string) []int {
	var out []int
	for j, r := range res.Requests {
		if r.CallID == res.Calls[i].CallID && r.Op == op {
			out = append(out, j)
		}
	}
	return out
}

// violated returns the ids of the broken invariants, and the messages.
func violated(c *scenario.Case, res *Result) ([]string, string) {
	r := Reference().Check(c, res)
	var ids, msgs []string
	for _, v := range r.Violation {
		if !slices.Contains(ids, v.Invariant) {
			ids = append(ids, v.Invariant)
		}
		msgs = append(msgs, v.Invariant+": "+v.Message)
	}
	return ids, strings.Join(msgs, "\n")
}

// TestOracleWorldsPass: untouched, every fixture world passes every check.
func TestOracleWorldsPass(t *testing.T) {
	t.Parallel() // after the tests that set GOMAXPROCS, which run alone
	for name := range oracleWorlds {
		t.Run(name, func(t *testing.T) {
			c, res := oracleRun(t, name)
			if ids, msgs := violated(c, res); len(ids) > 0 {
				t.Fatalf("untouched world breaks %v:\n%s", ids, msgs)
			}
		})
	}
}

// TestInvariantsFire: each broken record is named by the invariant (and,
// where the model sees it, the model field) that guards it.
func TestInvariantsFire(t *testing.T) {
	t.Parallel() // after the tests that set GOMAXPROCS, which run alone
	cases := []struct {
		name, world string
		breakIt     func(t *testing.T, res *Result)
		want        []string // invariant ids that must fire
		mentions    string   // a substring of the messages
		notWant     []string // invariant ids that must not fire
	}{
		{"resolves-one-ms-late", "capped", func(t *testing.T, res *Result) { res.Calls[0].EndMs++ },
			[]string{"resolves-by-deadline", ModelRequests}, "after the deadline 30000 ms", nil},
		{"resolves-late-by-the-cap", "nolist", func(t *testing.T, res *Result) { res.Calls[0].EndMs += 29000 },
			[]string{"resolves-by-deadline"}, "59000", nil},
		{"default-caller-loses", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].Lost, res.Calls[0].LostBy, res.Calls[0].StructuredJSON, res.Calls[0].Raw = true, sim.LostByTimeout, nil, nil
		}, []string{"default-caller-never-loses"}, "lost at 30000 ms", nil},
		{"error-result", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].IsError, res.Calls[0].StructuredJSON, res.Calls[0].Raw, res.Calls[0].ErrorText = true, nil, nil, "bridge down"
		}, []string{"bridge-errors-are-fields"}, "bridge down", nil},
		{"protocol-error", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].RPCError, res.Calls[0].StructuredJSON, res.Calls[0].Raw = "connection closed", nil, nil
		}, []string{"bridge-errors-are-fields"}, "connection closed", nil},
		{"read-issued-too-late", "noread", func(t *testing.T, res *Result) {
			// cost is 10 ms (the failed poll): a read at 29991 ms is predicted to end at 30001 ms
			r := &res.Requests[requestsOf(res, 0, "read")[0]]
			r.IssuedMs = 29991
		}, []string{"read-predicted-in-time", ModelRequests}, "predicted to end at 30001 ms", nil},
		{"read-late-despite-a-stamp-on-the-first-list", "noread", func(t *testing.T, res *Result) {
			// a first list follows no sleep: a wake stamp on it gives no slip
			late := int64(100)
			res.Requests[requestsOf(res, 0, "list")[0]].WakeLateMs = &late
			res.Requests[requestsOf(res, 0, "read")[0]].IssuedMs = 29991
		}, []string{"read-predicted-in-time"}, "slip 0 ms", nil},
		{"list-at-the-deadline-read-in-time", "slow", func(t *testing.T, res *Result) {
			// the first list ends exactly at the deadline: it was read in time
			r := &res.Requests[requestsOf(res, 0, "list")[0]]
			r.CompletedMs = 30000
			editReply(t, res, 0, func(m map[string]any) { m["agentsUnavailable"] = true; m["agents"] = []any{} })
		}, []string{"agents-unavailable-exact"}, "agentsUnavailable = true", nil},
		{"remaining-at-maximum-is-legal", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 600000.0 })
		}, []string{"remaining-when-spec-says"}, "600000", []string{"remaining-legal"}},
		{"first-progress-of-1-ms", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].ProgressNotes = []sim.ProgressNote{{AtMs: 1, Progress: 1, Total: 30000}}
		}, []string{ModelProgress}, "", []string{"progress-reports-elapsed"}},
		{"chain-passes-the-same-timeout", "chain", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 60500.0 })
			res.Calls[1].Args["timeoutMs"] = 60500.0
		}, []string{"chain-terminates"}, "passed timeoutMs 60500", nil},
		{"late-race-lost-early", "latereadjitter", func(t *testing.T, res *Result) {
			// a race timer that woke 3 ms late, before the read ended: lost
			res.Calls[0].EndMs = 30003
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = []any{}; m["outputsUnavailable"] = true })
		}, nil, "", []string{ModelRequests, ModelReply, ModelProgress, "outputs-unavailable-exact"}},
		{"late-race-lost-early-exact-timers", "lateread", func(t *testing.T, res *Result) {
			// every timer of the world is 5 ms late, none 3
			res.Calls[0].EndMs = 30003
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = []any{}; m["outputsUnavailable"] = true })
		}, []string{ModelRequests}, "resolved at 30003 ms, want 30005 ms", nil},
		{"late-race-lost-at-the-end", "lateread", func(t *testing.T, res *Result) {
			// the read ended at the instant the timer woke: it was in time
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = []any{}; m["outputsUnavailable"] = true })
		}, []string{ModelRequests}, "it was in time", nil},
		{"late-race-done-flipped", "lateread", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["done"] = false })
		}, []string{ModelReply}, "done = false, want true", nil},
		{"late-wake-too-late-resolves", "latereadjitter", func(t *testing.T, res *Result) {
			// the walk goes on from the latest wake the world allows
			res.Requests[requestsOf(res, 0, "read")[0]].CompletedMs = 30100
			res.Calls[0].EndMs = 30006
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = []any{}; m["outputsUnavailable"] = true })
		}, []string{ModelRequests}, "resolved at 30006 ms, want 30005 ms", nil},
		{"late-wake-too-late", "latereadjitter", func(t *testing.T, res *Result) {
			res.Requests[requestsOf(res, 0, "read")[0]].CompletedMs = 30100
			res.Calls[0].EndMs = 30006
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = []any{}; m["outputsUnavailable"] = true })
		}, []string{ModelRequests}, "woke the call at 30006 ms (its next act); timers are at most 5 ms late", nil},
		{"poll-without-reserve", "slow", func(t *testing.T, res *Result) {
			lists := requestsOf(res, 0, "list")
			r := &res.Requests[lists[len(lists)-1]]
			r.IssuedMs, r.CompletedMs = 20001, 25001
		}, []string{"poll-leaves-reserve"}, "leaves no room", nil},
		{"remaining-off-by-one", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 70001.0 })
		}, []string{"remaining-when-spec-says", ModelReply}, "70000", nil},
		{"remaining-missing", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "remainingMs") })
		}, []string{"remaining-when-spec-says", ModelReply}, "remainingMs absent", nil},
		{"remaining-when-done", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 25000.0 })
		}, []string{"remaining-when-spec-says", ModelReply}, "want absent", nil},
		{"remaining-below-minimum", "chain", func(t *testing.T, res *Result) {
			editReply(t, res, 1, func(m map[string]any) { m["remainingMs"] = 500.0 })
		}, []string{"remaining-legal", "remaining-when-spec-says"}, "not a legal timeoutMs", nil},
		{"remaining-fraction", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 70000.5 })
		}, []string{"remaining-legal"}, "70000.5", nil},
		{"remaining-above-maximum", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 600001.0 })
		}, []string{"remaining-legal"}, "600001", nil},
		{"done-while-running", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["done"] = true })
		}, []string{"done-needs-terminal-list", ModelReply}, `agent c is "running"`, nil},
		{"done-without-list", "nolist", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["done"] = true })
		}, []string{"done-needs-terminal-list", ModelReply}, "no list of the call was read in time", nil},
		{"agents-unavailable-missing", "nolist", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "agentsUnavailable") })
		}, []string{"agents-unavailable-exact", ModelReply}, "agentsUnavailable = false", nil},
		{"agents-unavailable-wrongly", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["agentsUnavailable"] = true })
		}, []string{"agents-unavailable-exact", ModelReply}, "agentsUnavailable = true", nil},
		{"agents-without-list", "nolist", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["agents"] = []any{map[string]any{"sessionId": "c", "state": "running"}} })
		}, []string{"agents-unavailable-exact", ModelReply}, "yet the reply lists 1 agents", nil},
		{"outputs-unavailable-missing", "noread", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "outputsUnavailable") })
		}, []string{"outputs-unavailable-exact", ModelReply}, "want true", nil},
		{"outputs-unavailable-wrongly", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["outputsUnavailable"] = true })
		}, []string{"outputs-unavailable-exact", ModelReply}, "want false", nil},
		{"agent-out-of-scope", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) {
				m["agents"] = append(m["agents"].([]any), map[string]any{"sessionId": "d", "state": "running"})
			})
		}, []string{"agents-in-scope", ModelReply}, "agent d is outside the scope", nil},
		{"output-out-of-scope", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].Args["timeoutMs"] = 30000.0 // an uncapped call: the reply's outputs are read
			editReply(t, res, 0, func(m map[string]any) {
				m["outputs"] = append(m["outputs"].([]any), map[string]any{"sessionId": "d", "messages": []any{}})
			})
		}, []string{"agents-in-scope"}, "output of d is outside the scope", nil},
		{"output-of-unlisted", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) {
				m["outputs"] = append(m["outputs"].([]any), map[string]any{"sessionId": "z", "messages": []any{}})
			})
		}, []string{"agents-in-scope", ModelReply}, "output of z, which is not among the reply's agents", nil},
		{"too-many-messages", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[0].(map[string]any)
				o["messages"] = append([]any{"m1"}, o["messages"].([]any)...)
			})
		}, []string{"outputs-within-budget", ModelReply}, "has 3 messages, more than maxMessagesPerAgent 2", nil},
		{"message-too-long", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[0].(map[string]any)
				o["messages"] = []any{strings.Repeat("é", 101)}
			})
		}, []string{"outputs-within-budget", ModelReply}, "has 101 chars, more than maxCharsPerMessage 100", nil},
		{"agent-too-long", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[0].(map[string]any)
				o["messages"] = []any{strings.Repeat("x", 51), strings.Repeat("y", 100)}
			})
		}, []string{"outputs-within-budget", ModelReply}, "has 151 chars, more than maxCharsPerAgent 150", nil},
		{"total-too-long", "done", func(t *testing.T, res *Result) {
			res.Calls[0].Args["maxCharsPerAgent"] = 100000.0
			res.Calls[0].Args["maxCharsPerMessage"] = 100000.0
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[1].(map[string]any)
				o["messages"] = []any{strings.Repeat("日", 999)}
			})
		}, []string{"outputs-within-budget"}, "more than maxTotalChars 1000", nil},
		{"progress-without-a-token", "capped", func(t *testing.T, res *Result) {
			res.StrayProgress = append(res.StrayProgress, sim.StrayProgress{Caller: "A", AtMs: 1000, Token: "<nil>"})
		}, []string{"progress-needs-token"}, "A received a progress notification at 1000 ms with a token it did not send (<nil>)", nil},
		{"progress-above-total", "capped", func(t *testing.T, res *Result) {
			n := &res.Calls[0].ProgressNotes[len(res.Calls[0].ProgressNotes)-1]
			n.Progress, n.AtMs = 30002, res.Calls[0].StartMs+30002
		}, []string{"progress-reports-elapsed"}, "30002/30000", nil},
		{"progress-wrong-total", "capped", func(t *testing.T, res *Result) { res.Calls[0].ProgressNotes[3].Total = 100000 },
			[]string{"progress-reports-elapsed", ModelProgress}, "progress notification 4 is 4000/100000 ms at 4000 ms, want 4000/30000 ms", nil},
		{"progress-wrong-elapsed", "capped", func(t *testing.T, res *Result) { res.Calls[0].ProgressNotes[3].Progress++ },
			[]string{"progress-reports-elapsed", ModelProgress}, "4001/30000", nil},
		{"progress-goes-back", "capped", func(t *testing.T, res *Result) {
			n := res.Calls[0].ProgressNotes
			n[4] = n[3]
		}, []string{"progress-reports-elapsed", ModelProgress}, "", nil},
		{"progress-missing", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].ProgressNotes = res.Calls[0].ProgressNotes[1:]
		}, []string{ModelProgress}, "notification 30 of 30 (30000/30000 ms at 30000 ms) was not received", nil},
		{"progress-extra", "capped", func(t *testing.T, res *Result) {
			n := res.Calls[0].ProgressNotes
			res.Calls[0].ProgressNotes = append(n, sim.ProgressNote{AtMs: 30000, Progress: 30000, Total: 30000})
		}, []string{ModelProgress}, "progress notification 31 (30000/30000 ms at 30000 ms) was not called for", nil},
		{"progress-wrong-message", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].ProgressNotes[3].Message = "waiting for agents (4000/30000 ms)"
		}, []string{ModelProgress}, `progress notification 4 is 4000/30000 ms at 4000 ms, want 4000/30000 ms at 4000 ms; its message is "waiting for agents (4000/30000 ms)", want "waiting for agents: 4000 ms of 30000 ms"`, []string{"progress-reports-elapsed"}},
		{"progress-message-without-its-end", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].ProgressNotes[0].Message = "waiting for agents: 1000 ms"
		}, []string{ModelProgress}, `its message is "waiting for agents: 1000 ms", want "waiting for agents: 1000 ms of 30000 ms"`, nil},
		{"progress-message-of-timeout", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].ProgressNotes[29].Message = "waiting for agents: 30000 ms of 100000 ms"
		}, []string{ModelProgress}, `progress notification 30 is 30000/30000 ms at 30000 ms, want 30000/30000 ms at 30000 ms; its message is "waiting for agents: 30000 ms of 100000 ms"`, nil},
		{"panic-kept", "panicky", func(t *testing.T, res *Result) {}, nil, "", []string{ModelReply, ModelRequests}},
		{"panic-without-its-prefix", "panicky", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["bridgeError"] = "kaboom 2" })
		}, []string{ModelReply}, `bridgeError = "kaboom 2", want "bridge panic: kaboom 2"`, nil},
		{"panic-of-the-first-read", "panicky", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["bridgeError"] = "bridge panic: boom" })
		}, []string{ModelReply}, `bridgeError = "bridge panic: boom", want "bridge panic: kaboom 2"`, nil},
		{"panic-of-the-poll-a-list", "panicky", func(t *testing.T, res *Result) {
			// had the poll's bridge call returned its list, the last failure
			// would be the first list's panic
			i := requestsOf(res, 0, "list")[2]
			res.Requests[i].Panic, res.Requests[i].Agents = "", []waittool.Agent{{SessionID: "c", State: "running"}}
		}, []string{ModelReply}, `bridgeError = "bridge panic: kaboom 2", want "bridge panic: boom"`, nil},
		{"chain-passes-other-timeout", "chain", func(t *testing.T, res *Result) {
			res.Calls[1].Args["timeoutMs"] = 30501.0
		}, []string{"chain-terminates"}, "passed timeoutMs 30501", nil},
		{"description-drops-cap", "capped", func(t *testing.T, res *Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "Waits for the agents. Call again with remainingMs.", "")}
		}, []string{"description-states-cap"}, `tool description differs from the text of contract §2 step 10 from character 7: "Waits for the agents. Call again with remainingMs."`, nil},
		{"description-one-word-more", "capped", func(t *testing.T, res *Result) {
			tool, _ := contractDescriptions(ReferenceContract)
			res.Tools = []*mcp.Tool{toolWith(res, strings.Replace(tool, "30 seconds", "30 seconds or so", 1), "")}
		}, []string{"description-states-cap"}, "tool description differs from the text of contract §2 step 10 from character 123", nil},
		{"description-drops-its-last-character", "capped", func(t *testing.T, res *Result) {
			tool, _ := contractDescriptions(ReferenceContract)
			res.Tools = []*mcp.Tool{toolWith(res, strings.TrimSuffix(tool, "."), "")}
		}, []string{"description-states-cap"}, "tool description differs from the text of contract §2 step 10 from character 287", nil},
		{"description-one-sentence-more", "capped", func(t *testing.T, res *Result) {
			tool, _ := contractDescriptions(ReferenceContract)
			res.Tools = []*mcp.Tool{toolWith(res, tool+" Really.", "")}
		}, []string{"description-states-cap"}, "tool description differs from the text of contract §2 step 10 from character 288", nil},
		{"timeout-description-drops-cap", "capped", func(t *testing.T, res *Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "", "Total wait in ms; call again with remainingMs.")}
		}, []string{"description-states-cap"}, "timeoutMs description differs from the text of contract §2 step 10 from character 7", nil},
		{"timeout-description-other-default", "capped", func(t *testing.T, res *Result) {
			_, timeout := contractDescriptions(ReferenceContract)
			res.Tools = []*mcp.Tool{toolWith(res, "", strings.Replace(timeout, "default 30000", "default 60000", 1))}
		}, []string{"description-states-cap"}, "timeoutMs description differs from the text of contract §2 step 10 from character 65", nil},
		{"description-the-contracts-texts", "capped", func(t *testing.T, res *Result) {
			tool, timeout := contractDescriptions(ReferenceContract)
			res.Tools = []*mcp.Tool{toolWith(res, tool, timeout)}
		}, nil, "", []string{"description-states-cap"}},
		{"description-both-differ", "capped", func(t *testing.T, res *Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "Waits 90 s.", "Waits 90 s.")}
		}, []string{"description-states-cap"}, `description-states-cap: tool description differs from the text of contract §2 step 10 from character 7: "Waits 90 s.", want "Waits until the child agents of a run are no longer active, then returns their outputs. One call waits at most 30 seconds (30000 ms), whatever timeoutMs asks. If the wait is cut short, the reply carries remainingMs: call this tool again with timeoutMs set to remainingMs to keep waiting."
description-states-cap: timeoutMs description differs from the text of contract §2 step 10 from character 1: "Waits 90 s.", want "Total time to wait in ms, across calls (1000 to 600000, default 30000). One call waits at most 30 seconds; a reply that was cut short carries remainingMs: call again with timeoutMs set to it."`, nil},
		{"no-tool", "capped", func(t *testing.T, res *Result) { res.Tools = nil },
			[]string{"description-states-cap"}, "tools/list has no", nil},
		// A reply a resumed stream delivered late (WireDelayMs): the tool
		// built it up to that much earlier, so its remainingMs may be up to
		// that much larger, and it may resolve that much after the deadline.
		{"wire-delay-kept", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].WireDelayMs, res.Calls[0].EndMs = 10, 30010
		}, nil, "", []string{"resolves-by-deadline", "remaining-when-spec-says", ModelRequests, ModelReply}},
		{"wire-delay-one-ms-more", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].WireDelayMs, res.Calls[0].EndMs = 10, 30011
		}, []string{"resolves-by-deadline", "remaining-when-spec-says", ModelRequests}, "resolved at 30011 ms, after the deadline 30000 ms (start 0 + capped 30000) + 2 × 0 ms of timer lateness + 10 ms of a resumed stream", nil},
		{"wire-delay-remaining-above", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].WireDelayMs, res.Calls[0].EndMs = 10, 30010
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 70001.0 })
		}, []string{"remaining-when-spec-says"}, "remainingMs = 70001, want 69990 to 70000 (timeoutMs − elapsed, the reply delayed up to 10 ms by a resumed stream)", nil},
		{"wire-delay-remaining-below", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].WireDelayMs, res.Calls[0].EndMs = 10, 30010
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 69989.0 })
		}, []string{"remaining-when-spec-says"}, "remainingMs = 69989, want 69990 to 70000", nil},
		{"wire-delay-remaining-at-the-low-end", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].WireDelayMs, res.Calls[0].EndMs = 10, 30010
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 69990.0 })
		}, nil, "", []string{"remaining-when-spec-says"}},
		{"wire-delay-remaining-missing", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].WireDelayMs, res.Calls[0].EndMs = 10, 30010
			editReply(t, res, 0, func(m map[string]any) { delete(m, "remainingMs") })
		}, []string{"remaining-when-spec-says"}, "remainingMs absent, want at least timeoutMs − elapsed = 69990 (the reply delayed up to 10 ms by a resumed stream)", nil},
		{"wire-delay-remaining-below-minimum", "chain", func(t *testing.T, res *Result) {
			// 500 ms left: remainingMs may be absent, and 1000 (its floor)
			// is more than the tool could have measured
			res.Calls[1].WireDelayMs, res.Calls[1].EndMs = 10, 60010
			editReply(t, res, 1, func(m map[string]any) { m["remainingMs"] = 1000.0 })
		}, []string{"remaining-when-spec-says"}, "remainingMs = 1000, want 1000 to 500", nil},
		{"wire-delay-remaining-absent-below-minimum", "chain", func(t *testing.T, res *Result) {
			res.Calls[1].WireDelayMs, res.Calls[1].EndMs = 10, 60010
		}, nil, "", []string{"remaining-when-spec-says"}},
		{"remaining-present-below-minimum", "chain", func(t *testing.T, res *Result) {
			editReply(t, res, 1, func(m map[string]any) { m["remainingMs"] = 1000.0 })
		}, []string{"remaining-when-spec-says"}, "remainingMs present = true, want false (done false, capped 30000, timeoutMs 30500, elapsed 30000)", []string{"remaining-legal"}},
		{"remaining-uncapped", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["done"] = false; m["remainingMs"] = 25000.0 })
		}, []string{"remaining-when-spec-says"}, "remainingMs present = true, want false (done false, capped 30000, timeoutMs 30000, elapsed 5000)", nil},
		{"remaining-at-minimum-is-legal", "chain", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 1000.0 })
			res.Calls[1].Args["timeoutMs"] = 1000.0
		}, []string{"remaining-when-spec-says"}, "remainingMs = 1000, want timeoutMs − elapsed = 60500 − 30000 = 30500", []string{"remaining-legal"}},
		{"remaining-a-string", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = "70000" })
		}, []string{"remaining-legal"}, "remainingMs = 70000 is not a legal timeoutMs", nil},
		{"default-caller-lost-by-the-transport", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].Lost, res.Calls[0].LostBy, res.Calls[0].StructuredJSON, res.Calls[0].Raw = true, "connection dropped (at 1000 ms)", nil, nil
		}, nil, "", []string{"default-caller-never-loses"}},
		{"later-remaining-from-the-start", "later", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 69000.0 })
		}, []string{"remaining-when-spec-says", ModelReply}, "remainingMs = 69000, want timeoutMs − elapsed = 100000 − 30000 = 70000", nil},
		{"later-resolves-after-its-deadline", "later", func(t *testing.T, res *Result) { res.Calls[0].EndMs = 31001 },
			[]string{"resolves-by-deadline"}, "resolved at 31001 ms, after the deadline 31000 ms (start 1000 + capped 30000)", nil},
		{"later-progress-from-the-start", "later", func(t *testing.T, res *Result) { res.Calls[0].ProgressNotes[0].Progress = 11000 },
			[]string{"progress-reports-elapsed", ModelProgress}, "progress 11000/30000 received at 11000 ms, want 10000/30000", nil},
		{"only-list-at-the-deadline-read-in-time", "nolist", func(t *testing.T, res *Result) {
			// the one list ends exactly at the deadline: it was read in time,
			// whatever the reply says
			r := &res.Requests[requestsOf(res, 0, "list")[0]]
			r.CompletedMs, r.Err = 30000, ""
		}, []string{"agents-unavailable-exact"}, "agentsUnavailable = true, but a list was read in time = true", nil},
		{"read-in-the-slip-of-a-late-poll", "capped", func(t *testing.T, res *Result) {
			// the last poll woke 50 ms late: its deadline moves by 50 ms
			lists := requestsOf(res, 0, "list")
			late := int64(50)
			res.Requests[lists[len(lists)-1]].WakeLateMs = &late
			r := &res.Requests[requestsOf(res, 0, "read")[0]]
			r.IssuedMs, r.CompletedMs = 30050, 30050
		}, nil, "", []string{"read-predicted-in-time"}},
		{"read-past-the-slip-of-a-late-poll", "capped", func(t *testing.T, res *Result) {
			lists := requestsOf(res, 0, "list")
			late := int64(50)
			res.Requests[lists[len(lists)-1]].WakeLateMs = &late
			r := &res.Requests[requestsOf(res, 0, "read")[0]]
			r.IssuedMs, r.CompletedMs = 30051, 30051
		}, []string{"read-predicted-in-time"}, "read #32 issued at 30051 ms with cost 0 ms: predicted to end at 30051 ms, after the deadline 30000 ms + slip 50 ms", nil},
		{"first-list-stamp-gives-no-slip", "done", func(t *testing.T, res *Result) {
			late := int64(100)
			res.Requests[requestsOf(res, 0, "list")[0]].WakeLateMs = &late
			res.Requests[requestsOf(res, 0, "read")[0]].IssuedMs = 30001
		}, []string{"read-predicted-in-time"}, "read #2 issued at 30001 ms with cost 0 ms: predicted to end at 30001 ms, after the deadline 30000 ms + slip 0 ms", nil},
		{"read-stamp-gives-no-slip", "noread", func(t *testing.T, res *Result) {
			// only a poll list follows a sleep: a stamp on a read is not its slip
			late := int64(100)
			r := &res.Requests[requestsOf(res, 0, "read")[0]]
			r.WakeLateMs, r.IssuedMs = &late, 29991
		}, []string{"read-predicted-in-time"}, "predicted to end at 30001 ms, after the deadline 30000 ms + slip 0 ms", nil},
		{"remaining-exactly-the-minimum", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].Args["timeoutMs"] = 31000.0
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 1000.0 })
		}, nil, "", []string{"remaining-when-spec-says", "remaining-legal", ModelReply}},
		{"progress-below-elapsed", "capped", func(t *testing.T, res *Result) { res.Calls[0].ProgressNotes[3].Progress-- },
			[]string{"progress-reports-elapsed", ModelProgress}, "progress 3999/30000 received at 4000 ms, want 4000/30000", nil},
		{"progress-again", "capped", func(t *testing.T, res *Result) {
			n := res.Calls[0].ProgressNotes
			res.Calls[0].ProgressNotes = append(n[:4:4], n[3:]...)
		}, []string{"progress-reports-elapsed"}, "progress 4000/30000 received at 4000 ms, want 4000/30000", nil},
		// Over HTTP a resumed stream may deliver a notification late (its
		// progress then below the elapsed ms) and a reopened one again.
		{"http-progress-late", "http", func(t *testing.T, res *Result) { res.Calls[0].ProgressNotes[1].AtMs += 7 },
			nil, "", []string{"progress-reports-elapsed", ModelProgress}},
		{"http-progress-again", "http", func(t *testing.T, res *Result) {
			n := res.Calls[0].ProgressNotes
			res.Calls[0].ProgressNotes = append(n[:2:2], n[1:]...)
		}, nil, "", []string{"progress-reports-elapsed"}},
		{"http-progress-early", "http", func(t *testing.T, res *Result) { res.Calls[0].ProgressNotes[1].Progress++ },
			[]string{"progress-reports-elapsed", ModelProgress}, "progress 10001/30000 received at 10000 ms, want 10000/30000", nil},
		{"http-progress-goes-back", "http", func(t *testing.T, res *Result) {
			n := res.Calls[0].ProgressNotes
			n[1].Progress, n[2].Progress = n[2].Progress, n[1].Progress
		}, []string{"progress-reports-elapsed"}, "progress 10000/30000 received at 15000 ms", nil},
		{"agent-exactly-at-budget", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) {
				m["outputs"].([]any)[0].(map[string]any)["messages"] = []any{strings.Repeat("x", 50), strings.Repeat("y", 100)}
			})
		}, []string{ModelReply}, "", []string{"outputs-within-budget"}},
		{"total-exactly-at-budget", "done", func(t *testing.T, res *Result) {
			res.Calls[0].Args["maxTotalChars"] = 202.0 // a: 2 + 100, b: 100
		}, nil, "", []string{"outputs-within-budget", ModelReply}},
		{"total-one-over-budget", "done", func(t *testing.T, res *Result) {
			res.Calls[0].Args["maxTotalChars"] = 201.0
		}, []string{"outputs-within-budget"}, "A#1: outputs hold 202 chars, more than maxTotalChars 201", nil},
		{"late-wake-too-late-resolves", "lateread", func(t *testing.T, res *Result) {
			// the model goes on from the latest wake the world allows
			res.Requests[requestsOf(res, 0, "read")[0]].CompletedMs = 30100
			res.Calls[0].EndMs = 30006
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = []any{}; m["outputsUnavailable"] = true })
		}, []string{ModelRequests}, "resolved at 30006 ms, want 30005 ms", nil},
		{"wire-delay-model-resolves", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].WireDelayMs, res.Calls[0].EndMs = 10, 30011
		}, []string{ModelRequests}, "resolved at 30011 ms, want 30000 ms, or up to 10 ms later over a resumed stream", nil},
		{"uncapped-early-reply-has-no-remaining", "slow", func(t *testing.T, res *Result) {
			// timeoutMs 30000 is not capped: an early reply carries no remainingMs
			res.Calls[0].Args["timeoutMs"] = 30000.0
			editReply(t, res, 0, func(m map[string]any) { delete(m, "remainingMs") })
		}, nil, "", []string{ModelReply, "remaining-when-spec-says"}},
		{"http-progress-dropped", "http", func(t *testing.T, res *Result) {
			res.Calls[0].ProgressNotes = slices.Delete(res.Calls[0].ProgressNotes, 1, 2)
		}, nil, "", []string{ModelProgress}},
		{"http-progress-before-its-instant", "http", func(t *testing.T, res *Result) { res.Calls[0].ProgressNotes[1].AtMs-- },
			[]string{ModelProgress}, "progress notification 2 (10000/30000 ms at 9999 ms) was not called for, or came out of order", nil},
		{"http-progress-wrong-total", "http", func(t *testing.T, res *Result) { res.Calls[0].ProgressNotes[2].Total = 100000 },
			[]string{ModelProgress}, "progress notification 3 (15000/100000 ms at 15000 ms) was not called for, or came out of order", nil},
		{"http-progress-wrong-message", "http", func(t *testing.T, res *Result) {
			res.Calls[0].ProgressNotes[1].Message = "waiting for agents: 10000 ms of 100000 ms"
		}, []string{ModelProgress}, `progress notification 2 (10000/30000 ms at 10000 ms) was not called for, or came out of order (its message "waiting for agents: 10000 ms of 100000 ms")`, []string{"progress-reports-elapsed"}},
		{"http-progress-out-of-order", "http", func(t *testing.T, res *Result) {
			n := res.Calls[0].ProgressNotes
			n[1], n[2] = n[2], n[1]
			n[2].AtMs = n[1].AtMs
		}, []string{ModelProgress}, "progress notification 3 (10000/30000 ms at 15000 ms) was not called for, or came out of order", nil},
		{"http-progress-one-extra", "http", func(t *testing.T, res *Result) {
			n := res.Calls[0].ProgressNotes
			res.Calls[0].ProgressNotes = append(n, sim.ProgressNote{AtMs: 30000, Progress: 30000, Total: 30000})
		}, []string{ModelProgress}, "was not called for, or came out of order", nil},
		{"wire-delay-uncapped-early-reply", "slow", func(t *testing.T, res *Result) {
			// an uncapped call's reply carries no remainingMs, delayed or not
			res.Calls[0].Args["timeoutMs"] = 30000.0
			res.Calls[0].WireDelayMs = 5
			editReply(t, res, 0, func(m map[string]any) { delete(m, "remainingMs") })
		}, nil, "", []string{"remaining-when-spec-says"}},
		{"wire-delay-remaining-missing-at-the-floor", "capped", func(t *testing.T, res *Result) {
			res.Calls[0].Args["timeoutMs"] = 31000.0
			res.Calls[0].WireDelayMs = 5
			editReply(t, res, 0, func(m map[string]any) { delete(m, "remainingMs") })
		}, []string{"remaining-when-spec-says"}, "remainingMs absent, want at least timeoutMs − elapsed = 1000", nil},
		{"edge-read-dropped", "edge", func(t *testing.T, res *Result) {
			// a read that ends at the deadline instant is in time (contract §2 step 3)
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = []any{}; m["outputsUnavailable"] = true })
		}, []string{ModelReply, "outputs-unavailable-exact"}, "outputsUnavailable = true, want absent", nil},
		{"model-resolves-late-over-memory", "slow", func(t *testing.T, res *Result) { res.Calls[0].EndMs++ },
			[]string{ModelRequests}, "resolved at 20751 ms, want 20750 ms (", nil},
		// The model, field by field.
		{"model-agent-state", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["agents"].([]any)[1].(map[string]any)["state"] = "failed" })
		}, []string{ModelReply}, "agents = ", nil},
		{"model-agents-order", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { a := m["agents"].([]any); a[0], a[1] = a[1], a[0] })
		}, []string{ModelReply}, "entry 1 is b, want a", nil},
		{"model-outputs-order", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { o := m["outputs"].([]any); o[0], o[1] = o[1], o[0] })
		}, []string{ModelReply}, "entry 1 is b, want a", nil},
		{"model-message-cut-short", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[1].(map[string]any)
				o["messages"] = []any{strings.Repeat("日", 99)}
			})
		}, []string{ModelReply}, "message 1 of b has 99 characters, want 100", nil},
		{"model-oldest-kept", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[0].(map[string]any)
				o["messages"] = []any{"m1", "m2"}
			})
		}, []string{ModelReply}, "message 1 of a", nil},
		{"model-output-dropped", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = m["outputs"].([]any)[:1] })
		}, []string{ModelReply}, "1 entries, want 2", nil},
		{"model-messages-dropped", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["outputs"].([]any)[0].(map[string]any)["messages"] = []any{"m2"} })
		}, []string{ModelReply}, "a has 1 messages, want 2", nil},
		{"model-truncated-missing", "done", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "truncated") })
		}, []string{ModelReply}, "truncated absent, want true", nil},
		{"model-truncated-wrongly", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["truncated"] = true })
		}, []string{ModelReply}, "truncated = true, want absent", nil},
		{"model-bridge-error-missing", "noread", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "bridgeError") })
		}, []string{ModelReply}, `bridgeError absent, want "first"`, nil},
		{"model-bridge-error-other", "noread", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["bridgeError"] = "second" })
		}, []string{ModelReply}, `bridgeError = "second", want "first"`, nil},
		{"model-ok-false", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["ok"] = false })
		}, []string{ModelReply}, "ok = false, want true", nil},
		{"model-unknown-field", "capped", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["waited"] = 1.0 })
		}, []string{ModelReply}, "unknown field waited", nil},
		{"model-no-bridge-ok", "nobridge", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["ok"] = true })
		}, []string{ModelReply}, "ok = true, want false", nil},
		{"model-no-bridge-error", "nobridge", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "error") })
		}, []string{ModelReply}, "error absent", nil},
		{"model-extra-request", "noread", func(t *testing.T, res *Result) {
			r := res.Requests[requestsOf(res, 0, "read")[0]]
			r.ID = len(res.Requests) + 1
			res.Requests = append(res.Requests, r)
		}, []string{ModelRequests}, "was not called for", nil},
		{"model-missing-request", "slow", func(t *testing.T, res *Result) {
			res.Requests = slices.Delete(res.Requests, len(res.Requests)-1, len(res.Requests))
		}, []string{ModelRequests}, "no read was issued", nil},
		{"model-poll-moved", "slow", func(t *testing.T, res *Result) {
			r := &res.Requests[requestsOf(res, 0, "list")[1]]
			r.IssuedMs++
			r.CompletedMs++
		}, []string{ModelRequests}, "the contract calls for a list at 5250 ms", nil},
		{"model-read-other-ids", "done", func(t *testing.T, res *Result) {
			res.Requests[requestsOf(res, 0, "read")[0]].IDs = []string{"a"}
		}, []string{ModelRequests}, "asks for [a]", nil},
		{"model-resolves-early", "slow", func(t *testing.T, res *Result) { res.Calls[0].EndMs-- },
			[]string{ModelRequests}, "want 20750 ms", nil},
		// What the transport may do, and no more (contract §6).
		{"http-replayed-note-not-called-for", "replayed", func(t *testing.T, res *Result) {
			n := res.Call("A", 1).ProgressNotes
			n[len(n)-1].Progress = 999 // a replay carries the very notification
		}, []string{ModelProgress}, "progress notification 2 (999/1000 ms at 13000 ms) was not called for", nil},
		{"http-replayed-note-early", "replayed", func(t *testing.T, res *Result) {
			n := res.Call("A", 1).ProgressNotes
			n[len(n)-1].AtMs = n[0].AtMs // at the instant of the first: no replay
		}, []string{ModelProgress}, "progress notification 2 (1000/1000 ms at 1000 ms) was not called for", nil},
		{"inherits-more-than-any-lateness", "lostcall", func(t *testing.T, res *Result) {
			// B's one sleep ends 10 ms earlier than the floor a lost call's 1 ms gives it
			b := slices.IndexFunc(res.Calls, func(c sim.CallResult) bool { return c.Caller == "B" })
			for _, j := range append(requestsOf(res, b, "list")[1:], requestsOf(res, b, "read")...) {
				res.Requests[j].IssuedMs -= 10
				res.Requests[j].CompletedMs -= 10
			}
			res.Calls[b].EndMs -= 10
		}, []string{ModelRequests}, "request #8 is a list issued at 2971 ms; the contract calls for a list at 3001 ms", nil},
		{"lost-call-after-gives-nothing", "lostcall", func(t *testing.T, res *Result) {
			// the lost call is the tool's later one: B inherits nothing from it
			i := slices.IndexFunc(res.Calls, func(c sim.CallResult) bool { return c.Caller == "A" })
			res.Calls[i].CallID += 10
		}, []string{ModelRequests}, "request #8 is a list issued at 2981 ms; the contract calls for a list at 3001 ms", nil},
		{"resumed-reply-built-outside-the-window", "resumedlate", func(t *testing.T, res *Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 69990.0 })
		}, []string{ModelReply}, "remainingMs = 69990, want 69995", nil},
		{"resumed-reply-without-the-gap", "resumedlate", func(t *testing.T, res *Result) { res.Calls[0].WireDelayMs = 0 },
			[]string{ModelRequests, "resolves-by-deadline"}, "the race timer of list #1 due at 30000 ms woke the call at 31000 ms", nil},
		{"resumed-reply-gap-just-enough", "resumedlate", func(t *testing.T, res *Result) { res.Calls[0].WireDelayMs = 995 },
			nil, "", []string{ModelRequests, "resolves-by-deadline"}},
		{"resumed-reply-gap-too-short", "resumedlate", func(t *testing.T, res *Result) { res.Calls[0].WireDelayMs = 994 },
			[]string{ModelRequests}, "woke the call at 31000 ms", nil},
		{"resumed-late-reply-exact-timers", "resumedlateexact", func(t *testing.T, res *Result) { res.Calls[0].WireDelayMs = 994 },
			[]string{ModelRequests}, "resolved at 31000 ms, want 30005 ms, or up to 994 ms later over a resumed stream", nil},
		{"inherits-nothing-from-an-exact-call", "inherit-lost-race", func(t *testing.T, res *Result) {
			// B's sleep keeps no room for the machine, as if A's 3 ms were not known
			b := slices.IndexFunc(res.Calls, func(c sim.CallResult) bool { return c.Caller == "B" })
			for _, j := range append(requestsOf(res, b, "list")[1:], requestsOf(res, b, "read")...) {
				res.Requests[j].IssuedMs += 20
				if res.Requests[j].CompletedMs >= 0 { // the read is still in flight at the end
					res.Requests[j].CompletedMs += 20
				}
			}
		}, []string{ModelRequests}, "B#1: request #5 is a list issued at 8003 ms; the contract calls for a list at 7983 ms", nil},
		{"inherits-nothing-after-a-lost-race", "inherit-lost-first-list", func(t *testing.T, res *Result) {
			// B's sleep keeps no room for the machine, as if A's race timer
			// had not been measured
			b := slices.IndexFunc(res.Calls, func(c sim.CallResult) bool { return c.Caller == "B" })
			for _, j := range append(requestsOf(res, b, "list")[1:], requestsOf(res, b, "read")...) {
				res.Requests[j].IssuedMs += 40
				res.Requests[j].CompletedMs += 40
			}
			res.Calls[b].EndMs += 40
		}, []string{ModelRequests}, "B#1: request #3 is a list issued at 4040 ms; the contract calls for a list at 4000 ms", nil},
		{"inherits-nothing-after-a-lost-race-jittered", "inheritjitter", func(t *testing.T, res *Result) {
			// B's sleep keeps no room for the machine: as if A, whose race
			// timer woke it late (its reply tells when), had measured nothing
			a := slices.IndexFunc(res.Calls, func(c sim.CallResult) bool { return c.Caller == "A" })
			b := slices.IndexFunc(res.Calls, func(c sim.CallResult) bool { return c.Caller == "B" })
			late := res.Calls[a].EndMs - 1000
			if late <= 0 {
				t.Fatalf("A's race timer woke on time (A resolved at %d ms): the world does not test this", res.Calls[a].EndMs)
			}
			shift := max(late, ReferenceContract.MachineDelayFloorMs)
			for _, j := range append(requestsOf(res, b, "list")[1:], requestsOf(res, b, "read")...) {
				res.Requests[j].IssuedMs += shift
				res.Requests[j].CompletedMs += shift
			}
			res.Calls[b].EndMs += shift
		}, []string{ModelRequests}, "B#1: the poll sleep due at 3980 ms woke the call at 4001 ms", nil},
		{"inherits-after-a-lost-race", "inherit-lost-first-list", func(t *testing.T, res *Result) {}, nil, "", []string{ModelRequests, ModelReply}},
		{"inherits-a-figure-stored-after-its-start", "inherit-at-start", func(t *testing.T, res *Result) {
			// B's sleep keeps A's 40 ms, stored after B started
			b := slices.IndexFunc(res.Calls, func(c sim.CallResult) bool { return c.Caller == "B" })
			for _, j := range append(requestsOf(res, b, "list")[1:], requestsOf(res, b, "read")...) {
				res.Requests[j].IssuedMs -= 40
				res.Requests[j].CompletedMs -= 40
			}
			res.Calls[b].EndMs -= 40
		}, []string{ModelRequests}, "B#1: request #4 is a list issued at 4100 ms; the contract calls for a list at 4140 ms", nil},
		{"inherits-from-a-lost-call-what-no-timer-gives", "lostcall30", func(t *testing.T, res *Result) {
			// B's sleep keeps 25 ms: a figure between the 0 and 30 ms a
			// call of this world can measure
			b := slices.IndexFunc(res.Calls, func(c sim.CallResult) bool { return c.Caller == "B" })
			for _, j := range append(requestsOf(res, b, "list")[1:], requestsOf(res, b, "read")...) {
				res.Requests[j].IssuedMs += 5
				res.Requests[j].CompletedMs += 5
			}
			res.Calls[b].EndMs += 5
		}, []string{ModelRequests}, "is a list issued at 3005 ms; the contract calls for a list at", nil},
		{"inherits-from-a-lost-call", "lostcall30", func(t *testing.T, res *Result) {}, nil, "", []string{ModelRequests, ModelReply}},
		{"resume-retry-gap-not-counted", "resumeretry", func(t *testing.T, res *Result) { res.Calls[0].WireDelayMs = 1000 },
			[]string{"resolves-by-deadline", ModelRequests}, "resolved at 33000 ms, after the deadline 30000 ms", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, res := oracleRun(t, tc.world)
			tc.breakIt(t, res)
			ids, msgs := violated(c, res)
			for _, id := range tc.want {
				if !slices.Contains(ids, id) {
					t.Errorf("%s did not fire; got %v:\n%s", id, ids, msgs)
				}
			}
			if !strings.Contains(msgs, tc.mentions) {
				t.Errorf("messages do not mention %q:\n%s", tc.mentions, msgs)
			}
			for _, id := range tc.notWant {
				if slices.Contains(ids, id) {
					t.Errorf("%s fired on a world that keeps it:\n%s", id, msgs)
				}
			}
		})
	}
}

// toolWith returns the tool of res with its description and timeoutMs
// description replaced (an empty string keeps the original).
func toolWith(res *Result, desc, timeoutDesc string) *mcp.Tool {
	var orig *mcp.Tool
	for _, tl := range res.Tools {
		if tl.Name == waittool.ToolName {
			orig = tl
		}
	}
	cp := *orig
	if desc != "" {
		cp.Description = desc
	}
	if timeoutDesc != "" {
		b, _ := json.Marshal(orig.InputSchema)
		var s map[string]any
		_ = json.Unmarshal(b, &s)
		s["properties"].(map[string]any)["timeoutMs"].(map[string]any)["description"] = timeoutDesc
		cp.InputSchema = s
	}
	return &cp
}
