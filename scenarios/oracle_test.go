package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// nobridge: the tool registered without a bridge.
	"nobridge": `name: nobridge
noBridge: true
callers:
  - name: A
`,
}

// oracleRun runs the named world and returns its case and result.
func oracleRun(t *testing.T, name string) (*Case, *sim.Result) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(file, []byte("# protects: a fixture\n"+oracleWorlds[name]), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := Load([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	c := &cases[0]
	return c, sim.RunWorld(t, c.World())
}

// editReply changes call i's reply as JSON and keeps the typed view in step.
func editReply(t *testing.T, res *sim.Result, i int, edit func(map[string]any)) {
	t.Helper()
	cr := &res.Calls[i]
	edit(cr.Raw)
	b, err := json.Marshal(cr.Raw)
	if err != nil {
		t.Fatal(err)
	}
	var rep waittool.Reply
	if err := json.Unmarshal(b, &rep); err == nil {
		cr.Reply = &rep // else (a value the typed reply cannot hold): the JSON alone is changed
	}
}

// requestsOf returns the indexes in res.Requests of call i's requests of op.
func requestsOf(res *sim.Result, i int, op string) []int {
	var out []int
	for j, r := range res.Requests {
		if r.CallID == res.Calls[i].CallID && r.Op == op {
			out = append(out, j)
		}
	}
	return out
}

// violated returns the ids of the broken invariants, and the messages.
func violated(c *Case, res *sim.Result) ([]string, string) {
	r := Summarize(c, res)
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
	cases := []struct {
		name, world string
		breakIt     func(t *testing.T, res *sim.Result)
		want        []string // invariant ids that must fire
		mentions    string   // a substring of the messages
	}{
		{"resolves-one-ms-late", "capped", func(t *testing.T, res *sim.Result) { res.Calls[0].EndMs++ },
			[]string{"resolves-by-deadline", ModelRequests}, "after the deadline 30000 ms"},
		{"resolves-late-by-the-cap", "nolist", func(t *testing.T, res *sim.Result) { res.Calls[0].EndMs += 29000 },
			[]string{"resolves-by-deadline"}, "59000"},
		{"default-caller-loses", "capped", func(t *testing.T, res *sim.Result) {
			res.Calls[0].Lost, res.Calls[0].Reply, res.Calls[0].Raw = true, nil, nil
		}, []string{"default-caller-never-loses"}, "lost at 30000 ms"},
		{"error-result", "capped", func(t *testing.T, res *sim.Result) {
			res.Calls[0].IsError, res.Calls[0].Reply, res.Calls[0].Raw, res.Calls[0].ErrorText = true, nil, nil, "bridge down"
		}, []string{"bridge-errors-are-fields"}, "bridge down"},
		{"protocol-error", "capped", func(t *testing.T, res *sim.Result) {
			res.Calls[0].RPCError, res.Calls[0].Reply, res.Calls[0].Raw = "connection closed", nil, nil
		}, []string{"bridge-errors-are-fields"}, "connection closed"},
		{"read-issued-too-late", "noread", func(t *testing.T, res *sim.Result) {
			// cost is 10 ms (the failed poll): a read at 29991 ms is predicted to end at 30001 ms
			r := &res.Requests[requestsOf(res, 0, "read")[0]]
			r.IssuedMs = 29991
		}, []string{"read-predicted-in-time", ModelRequests}, "predicted to end"},
		{"poll-without-reserve", "slow", func(t *testing.T, res *sim.Result) {
			lists := requestsOf(res, 0, "list")
			r := &res.Requests[lists[len(lists)-1]]
			r.IssuedMs, r.CompletedMs = 20001, 25001
		}, []string{"poll-leaves-reserve"}, "leaves no room"},
		{"remaining-off-by-one", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 70001.0 })
		}, []string{"remaining-when-spec-says", ModelReply}, "70000"},
		{"remaining-missing", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "remainingMs") })
		}, []string{"remaining-when-spec-says", ModelReply}, "remainingMs absent"},
		{"remaining-when-done", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 25000.0 })
		}, []string{"remaining-when-spec-says", ModelReply}, "want absent"},
		{"remaining-below-minimum", "chain", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 1, func(m map[string]any) { m["remainingMs"] = 500.0 })
		}, []string{"remaining-legal", "remaining-when-spec-says"}, "not a legal timeoutMs"},
		{"remaining-fraction", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 70000.5 })
		}, []string{"remaining-legal"}, "70000.5"},
		{"remaining-above-maximum", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["remainingMs"] = 600001.0 })
		}, []string{"remaining-legal"}, "600001"},
		{"done-while-running", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["done"] = true })
		}, []string{"done-needs-terminal-list", ModelReply}, `agent c is "running"`},
		{"done-without-list", "nolist", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["done"] = true })
		}, []string{"done-needs-terminal-list", ModelReply}, "no list of the call was read in time"},
		{"agents-unavailable-missing", "nolist", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "agentsUnavailable") })
		}, []string{"agents-unavailable-exact", ModelReply}, "agentsUnavailable = false"},
		{"agents-unavailable-wrongly", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["agentsUnavailable"] = true })
		}, []string{"agents-unavailable-exact", ModelReply}, "agentsUnavailable = true"},
		{"agents-without-list", "nolist", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["agents"] = []any{map[string]any{"sessionId": "c", "state": "running"}} })
		}, []string{"agents-unavailable-exact", ModelReply}, "yet the reply lists 1 agents"},
		{"outputs-unavailable-missing", "noread", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "outputsUnavailable") })
		}, []string{"outputs-unavailable-exact", ModelReply}, "want true"},
		{"outputs-unavailable-wrongly", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["outputsUnavailable"] = true })
		}, []string{"outputs-unavailable-exact", ModelReply}, "want false"},
		{"agent-out-of-scope", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) {
				m["agents"] = append(m["agents"].([]any), map[string]any{"sessionId": "d", "state": "running"})
			})
		}, []string{"agents-in-scope", ModelReply}, "agent d is outside the scope"},
		{"output-out-of-scope", "capped", func(t *testing.T, res *sim.Result) {
			res.Calls[0].Args["timeoutMs"] = 30000.0 // an uncapped call: the reply's outputs are read
			editReply(t, res, 0, func(m map[string]any) {
				m["outputs"] = append(m["outputs"].([]any), map[string]any{"sessionId": "d", "messages": []any{}})
			})
		}, []string{"agents-in-scope"}, "output of d is outside the scope"},
		{"output-of-unlisted", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) {
				m["outputs"] = append(m["outputs"].([]any), map[string]any{"sessionId": "z", "messages": []any{}})
			})
		}, []string{"agents-in-scope", ModelReply}, "output of z, which is not among the reply's agents"},
		{"too-many-messages", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[0].(map[string]any)
				o["messages"] = append([]any{"m1"}, o["messages"].([]any)...)
			})
		}, []string{"outputs-within-budget", ModelReply}, "has 3 messages, more than maxMessagesPerAgent 2"},
		{"message-too-long", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[0].(map[string]any)
				o["messages"] = []any{strings.Repeat("é", 101)}
			})
		}, []string{"outputs-within-budget", ModelReply}, "has 101 chars, more than maxCharsPerMessage 100"},
		{"agent-too-long", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[0].(map[string]any)
				o["messages"] = []any{strings.Repeat("x", 51), strings.Repeat("y", 100)}
			})
		}, []string{"outputs-within-budget", ModelReply}, "has 151 chars, more than maxCharsPerAgent 150"},
		{"total-too-long", "done", func(t *testing.T, res *sim.Result) {
			res.Calls[0].Args["maxCharsPerAgent"] = 100000.0
			res.Calls[0].Args["maxCharsPerMessage"] = 100000.0
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[1].(map[string]any)
				o["messages"] = []any{strings.Repeat("日", 999)}
			})
		}, []string{"outputs-within-budget"}, "more than maxTotalChars 1000"},
		{"progress-wrong-total", "capped", func(t *testing.T, res *sim.Result) { res.Calls[0].ProgressNotes[3].Total = 100000 },
			[]string{"progress-reports-elapsed", ModelProgress}, "want 4000/30000"},
		{"progress-wrong-elapsed", "capped", func(t *testing.T, res *sim.Result) { res.Calls[0].ProgressNotes[3].Progress++ },
			[]string{"progress-reports-elapsed", ModelProgress}, "4001/30000"},
		{"progress-goes-back", "capped", func(t *testing.T, res *sim.Result) {
			n := res.Calls[0].ProgressNotes
			n[4] = n[3]
		}, []string{"progress-reports-elapsed", ModelProgress}, ""},
		{"progress-missing", "capped", func(t *testing.T, res *sim.Result) {
			res.Calls[0].ProgressNotes = res.Calls[0].ProgressNotes[1:]
		}, []string{ModelProgress}, "not received"},
		{"progress-extra", "capped", func(t *testing.T, res *sim.Result) {
			n := res.Calls[0].ProgressNotes
			res.Calls[0].ProgressNotes = append(n, sim.ProgressNote{AtMs: 30000, Progress: 30000, Total: 30000})
		}, []string{ModelProgress}, "not called for"},
		{"chain-passes-other-timeout", "chain", func(t *testing.T, res *sim.Result) {
			res.Calls[1].Args["timeoutMs"] = 30501.0
		}, []string{"chain-terminates"}, "passed timeoutMs 30501"},
		{"description-drops-cap", "capped", func(t *testing.T, res *sim.Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "Waits for the agents. Call again with remainingMs.", "")}
		}, []string{"description-states-cap"}, "does not state the 30-second cap"},
		{"description-in-minutes", "capped", func(t *testing.T, res *sim.Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "Waits 30 seconds at most (half a minute); call again with remainingMs.", "")}
		}, []string{"description-states-cap"}, "speaks of minutes"},
		{"description-other-seconds", "capped", func(t *testing.T, res *sim.Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "Waits 30 seconds, or 90 s; call again with remainingMs.", "")}
		}, []string{"description-states-cap"}, "states a cap of 90"},
		{"description-no-remaining", "capped", func(t *testing.T, res *sim.Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "Waits 30 seconds at most; call again.", "")}
		}, []string{"description-states-cap"}, "does not name remainingMs"},
		{"description-no-call-again", "capped", func(t *testing.T, res *sim.Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "Waits 30 seconds at most and sets remainingMs.", "")}
		}, []string{"description-states-cap"}, "does not say to call again"},
		{"timeout-description-drops-cap", "capped", func(t *testing.T, res *sim.Result) {
			res.Tools = []*mcp.Tool{toolWith(res, "", "Total wait in ms; call again with remainingMs.")}
		}, []string{"description-states-cap"}, "timeoutMs description does not state"},
		{"no-tool", "capped", func(t *testing.T, res *sim.Result) { res.Tools = nil },
			[]string{"description-states-cap"}, "tools/list has no"},
		// The model, field by field.
		{"model-agent-state", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["agents"].([]any)[1].(map[string]any)["state"] = "failed" })
		}, []string{ModelReply}, "agents = "},
		{"model-agents-order", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { a := m["agents"].([]any); a[0], a[1] = a[1], a[0] })
		}, []string{ModelReply}, "entry 1 is b, want a"},
		{"model-outputs-order", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { o := m["outputs"].([]any); o[0], o[1] = o[1], o[0] })
		}, []string{ModelReply}, "entry 1 is b, want a"},
		{"model-message-cut-short", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[1].(map[string]any)
				o["messages"] = []any{strings.Repeat("日", 99)}
			})
		}, []string{ModelReply}, "message 1 of b has 99 characters, want 100"},
		{"model-oldest-kept", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) {
				o := m["outputs"].([]any)[0].(map[string]any)
				o["messages"] = []any{"m1", "m2"}
			})
		}, []string{ModelReply}, "message 1 of a"},
		{"model-output-dropped", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["outputs"] = m["outputs"].([]any)[:1] })
		}, []string{ModelReply}, "1 entries, want 2"},
		{"model-messages-dropped", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["outputs"].([]any)[0].(map[string]any)["messages"] = []any{"m2"} })
		}, []string{ModelReply}, "a has 1 messages, want 2"},
		{"model-truncated-missing", "done", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "truncated") })
		}, []string{ModelReply}, "truncated absent, want true"},
		{"model-truncated-wrongly", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["truncated"] = true })
		}, []string{ModelReply}, "truncated = true, want absent"},
		{"model-bridge-error-missing", "noread", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "bridgeError") })
		}, []string{ModelReply}, `bridgeError absent, want "first"`},
		{"model-bridge-error-other", "noread", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["bridgeError"] = "second" })
		}, []string{ModelReply}, `bridgeError = "second", want "first"`},
		{"model-ok-false", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["ok"] = false })
		}, []string{ModelReply}, "ok = false, want true"},
		{"model-unknown-field", "capped", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["waited"] = 1.0 })
		}, []string{ModelReply}, "unknown field waited"},
		{"model-no-bridge-ok", "nobridge", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { m["ok"] = true })
		}, []string{ModelReply}, "ok = true, want false"},
		{"model-no-bridge-error", "nobridge", func(t *testing.T, res *sim.Result) {
			editReply(t, res, 0, func(m map[string]any) { delete(m, "error") })
		}, []string{ModelReply}, "error absent"},
		{"model-extra-request", "noread", func(t *testing.T, res *sim.Result) {
			r := res.Requests[requestsOf(res, 0, "read")[0]]
			r.ID = len(res.Requests) + 1
			res.Requests = append(res.Requests, r)
		}, []string{ModelRequests}, "was not called for"},
		{"model-missing-request", "slow", func(t *testing.T, res *sim.Result) {
			res.Requests = slices.Delete(res.Requests, len(res.Requests)-1, len(res.Requests))
		}, []string{ModelRequests}, "no read was issued"},
		{"model-poll-moved", "slow", func(t *testing.T, res *sim.Result) {
			r := &res.Requests[requestsOf(res, 0, "list")[1]]
			r.IssuedMs++
			r.CompletedMs++
		}, []string{ModelRequests}, "the contract calls for a list at 5250 ms"},
		{"model-read-other-ids", "done", func(t *testing.T, res *sim.Result) {
			res.Requests[requestsOf(res, 0, "read")[0]].IDs = []string{"a"}
		}, []string{ModelRequests}, "asks for [a]"},
		{"model-resolves-early", "slow", func(t *testing.T, res *sim.Result) { res.Calls[0].EndMs-- },
			[]string{ModelRequests}, "want 20750 ms"},
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
		})
	}
}

// toolWith returns the tool of res with its description and timeoutMs
// description replaced (an empty string keeps the original).
func toolWith(res *sim.Result, desc, timeoutDesc string) *mcp.Tool {
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
