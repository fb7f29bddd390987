package check_test

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/check"
	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
)

// Who tests the tester: every expectation of the format fails on a run that
// breaks it, with its message, and holds on the run that keeps it (at its
// edge, where a comparison could be off by one).

// TestExpectationsFire checks each expectation field against the "capped"
// world (A#1: 0 → 30000 ms, 31 lists, 1 read, 30 progress notifications,
// remainingMs 70000, agents [c=running], outputs c: "hello", "wörld") and
// against records changed the way another run would have them.
func TestExpectationsFire(t *testing.T) {
	i := func(n int) *int { return &n }
	ms := func(n int64) *int64 { return &n }
	b := func(v bool) *bool { return &v }
	w := func(v any) *scenario.Want { return &scenario.Want{Value: v} }
	cases := []struct {
		name string
		e    scenario.Expect
		edit func(s *results.CallSummary)
		want string // the failures, joined by "\n"; "" when it holds
	}{
		{"starts-at", scenario.Expect{StartsAtMs: ms(0)}, nil, ""},
		{"starts-at-wrong", scenario.Expect{StartsAtMs: ms(1)}, nil, "A#1: started at 0 ms, want 1 ms"},
		{"resolves-at", scenario.Expect{ResolvesAtMs: ms(30000)}, nil, ""},
		{"resolves-at-wrong", scenario.Expect{ResolvesAtMs: ms(29999)}, nil, "A#1: resolved at 30000 ms, want 29999 ms"},
		{"resolves-by-the-instant", scenario.Expect{ResolvesByMs: ms(30000)}, nil, ""},
		{"resolves-by-one-ms-early", scenario.Expect{ResolvesByMs: ms(29999)}, nil, "A#1: resolved at 30000 ms, want by 29999 ms"},
		{"received", scenario.Expect{Received: b(true)}, nil, ""},
		{"received-want-lost", scenario.Expect{Received: b(false)}, nil, "A#1: reply received at 30000 ms, want lost"},
		{"lost-want-received", scenario.Expect{Received: b(true)}, func(s *results.CallSummary) { s.Lost, s.LostBy, s.Reply = true, "request timeout", nil },
			"A#1: reply LOST at 30000 ms, want received"},
		{"lost", scenario.Expect{Received: b(false), LostBy: "request timeout"}, func(s *results.CallSummary) { s.Lost, s.LostBy, s.Reply = true, "request timeout (60000 ms)", nil }, ""},
		{"lost-by-other", scenario.Expect{LostBy: "proxy idle timeout"}, func(s *results.CallSummary) { s.Lost, s.LostBy, s.Reply = true, "request timeout (60000 ms)", nil },
			`A#1: lost by "request timeout (60000 ms)", want a loss by "proxy idle timeout"`},
		{"lost-by-but-received", scenario.Expect{LostBy: "request timeout"}, func(s *results.CallSummary) { s.LostBy = "request timeout" },
			`A#1: lost by "request timeout", want a loss by "request timeout"`},
		{"rejected-false", scenario.Expect{Rejected: b(false)}, nil, ""},
		{"rejected-want-true", scenario.Expect{Rejected: b(true)}, nil, "A#1: error result = false, want true ()"},
		{"rejected", scenario.Expect{Rejected: b(true), ErrorMentions: "timeoutMs"}, func(s *results.CallSummary) { s.IsError, s.Reply = true, nil }, ""},
		{"error-mentions-other", scenario.Expect{ErrorMentions: "pollIntervalMs"}, func(s *results.CallSummary) { s.IsError, s.Reply = true, nil },
			`A#1: error "timeoutMs: minimum 1000" does not mention "pollIntervalMs"`},
		{"lists", scenario.Expect{Lists: i(31), Reads: i(1), Stranded: i(0), Progress: i(30)}, nil, ""},
		{"lists-wrong", scenario.Expect{Lists: i(30)}, nil, "A#1: lists = 31, want 30"},
		{"reads-wrong", scenario.Expect{Reads: i(2)}, nil, "A#1: reads = 1, want 2"},
		{"stranded-wrong", scenario.Expect{Stranded: i(1)}, nil, "A#1: stranded = 0, want 1"},
		{"progress-wrong", scenario.Expect{Progress: i(29)}, nil, "A#1: progress = 30, want 29"},
		{"calls", scenario.Expect{Calls: i(1)}, nil, ""},
		{"call-one-by-default", scenario.Expect{Call: 1, Caller: "A", ResolvesAtMs: ms(30000)}, nil, ""},
		// replyFields, for any tool: JSON values, "absent", "present".
		{"reply-fields", scenario.Expect{ReplyFields: map[string]any{"remainingMs": uint64(70000), "done": false, "ok": "present", "error": "absent",
			"agents": []any{map[string]any{"id": "c", "state": "running"}}}}, func(s *results.CallSummary) {
			s.Reply["agents"] = []any{map[string]any{"state": "running", "id": "c"}}
		}, ""},
		{"reply-fields-wrong", scenario.Expect{ReplyFields: map[string]any{"remainingMs": 69999, "done": "absent", "truncated": "present", "bridgeError": "down"}}, nil,
			"A#1: replyFields.bridgeError absent, want \"down\"\nA#1: replyFields.done = false, want absent\nA#1: replyFields.remainingMs = 70000, want 69999\nA#1: replyFields.truncated absent, want present"},
		{"reply-fields-a-string", scenario.Expect{ReplyFields: map[string]any{"remainingMs": "70000"}}, nil, `A#1: replyFields.remainingMs = 70000, want "70000"`},
		{"reply-fields-lost", scenario.Expect{ReplyFields: map[string]any{"done": true}}, func(s *results.CallSummary) { s.Lost, s.Reply = true, nil },
			"A#1: reply lost, want one with replyFields"},
		// Reply fields.
		{"reply", scenario.Expect{Reply: &scenario.ReplyExpect{OK: w(true), Done: w(false), RemainingMs: w(int64(70000)), AgentsUnavailable: &scenario.Want{Absent: true},
			OutputsUnavailable: &scenario.Want{Absent: true}, BridgeError: &scenario.Want{Absent: true}, Truncated: &scenario.Want{Absent: true}, Error: &scenario.Want{Absent: true},
			Agents: []string{"c"}, Outputs: i(1), OutputMessages: i(2), OutputChars: i(10)}}, nil, ""},
		{"reply-present", scenario.Expect{Reply: &scenario.ReplyExpect{RemainingMs: &scenario.Want{Present: true}}}, nil, ""},
		{"reply-states", scenario.Expect{Reply: &scenario.ReplyExpect{Agents: []string{"c=running"}}}, nil, ""},
		{"reply-ok-wrong", scenario.Expect{Reply: &scenario.ReplyExpect{OK: w(false)}}, nil, "A#1: ok = true, want false"},
		{"reply-remaining-wrong", scenario.Expect{Reply: &scenario.ReplyExpect{RemainingMs: w(int64(69999))}}, nil, "A#1: remainingMs = 70000, want 69999"},
		{"reply-remaining-a-string", scenario.Expect{Reply: &scenario.ReplyExpect{RemainingMs: w("70000")}}, nil, `A#1: remainingMs = 70000, want 70000`},
		{"reply-done-absent", scenario.Expect{Reply: &scenario.ReplyExpect{Done: &scenario.Want{Absent: true}}}, nil, "A#1: done = false, want absent"},
		{"reply-error-absent-text", scenario.Expect{Reply: &scenario.ReplyExpect{RemainingMs: &scenario.Want{Absent: true}}}, func(s *results.CallSummary) { s.Reply["remainingMs"] = "x" },
			`A#1: remainingMs = "x", want absent`},
		{"reply-truncated-present", scenario.Expect{Reply: &scenario.ReplyExpect{Truncated: &scenario.Want{Present: true}}}, nil, "A#1: truncated absent, want present"},
		{"reply-bridge-error-missing", scenario.Expect{Reply: &scenario.ReplyExpect{BridgeError: w("down")}}, nil, "A#1: bridgeError absent, want down"},
		{"reply-bridge-error", scenario.Expect{Reply: &scenario.ReplyExpect{BridgeError: w("down")}}, func(s *results.CallSummary) { s.Reply["bridgeError"] = "down" }, ""},
		{"reply-bridge-error-other", scenario.Expect{Reply: &scenario.ReplyExpect{BridgeError: w("down")}}, func(s *results.CallSummary) { s.Reply["bridgeError"] = "up" },
			`A#1: bridgeError = "up", want down`},
		{"reply-agents-wrong", scenario.Expect{Reply: &scenario.ReplyExpect{Agents: []string{"c", "d"}}}, nil, "A#1: agents = [c], want [c d]"},
		{"reply-states-wrong", scenario.Expect{Reply: &scenario.ReplyExpect{Agents: []string{"c=completed"}}}, nil, "A#1: agents = [c=running], want [c=completed]"},
		{"reply-outputs-wrong", scenario.Expect{Reply: &scenario.ReplyExpect{Outputs: i(0)}}, nil, "A#1: outputs for 1 agents, want 0"},
		{"reply-messages-wrong", scenario.Expect{Reply: &scenario.ReplyExpect{OutputMessages: i(3)}}, nil, "A#1: outputs hold 2 messages, want 3"},
		{"reply-chars-wrong", scenario.Expect{Reply: &scenario.ReplyExpect{OutputChars: i(11)}}, nil, "A#1: outputs hold 10 chars, want 11"},
		{"reply-of-a-lost-call", scenario.Expect{Reply: &scenario.ReplyExpect{Done: w(false)}}, func(s *results.CallSummary) { s.Lost, s.Reply = true, nil }, "A#1: reply lost, want a reply"},
		{"reply-of-an-error", scenario.Expect{Reply: &scenario.ReplyExpect{Done: w(false)}}, func(s *results.CallSummary) { s.IsError, s.Reply = true, nil }, "A#1: error result, want a reply"},
		{"reply-of-nothing", scenario.Expect{Reply: &scenario.ReplyExpect{Done: w(false)}}, func(s *results.CallSummary) { s.Reply = nil }, "A#1: no reply, want a reply"},
		{"several-fail-in-order", scenario.Expect{StartsAtMs: ms(1), ResolvesAtMs: ms(1), Lists: i(1)}, nil,
			"A#1: started at 0 ms, want 1 ms\nA#1: resolved at 30000 ms, want 1 ms\nA#1: lists = 31, want 1"},
	}
	c, res := capped(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sums := waitagents.Reference().Check(c, res).Calls
			sums[0].Reply = maps.Clone(sums[0].Reply)
			res.Calls[0].ErrorText = ""
			if tc.edit != nil {
				tc.edit(&sums[0])
				if sums[0].IsError {
					res.Calls[0].ErrorText = "timeoutMs: minimum 1000"
				}
			}
			c.Scenario.Expect = []scenario.Expect{tc.e}
			if got := strings.Join(check.Expectations(c, res.Result, sums), "\n"); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// capped runs the "capped" world of the wait_agents pack's reference tool:
// A#1 polls to the cap with progress; c in scope, d not.
func capped(t *testing.T) (*scenario.Case, *waitagents.Result) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "capped.yaml")
	src := `# protects: a fixture
name: capped
agents:
  - {id: c, state: running, messages: ["hello", "wörld"]}
  - {id: d, state: running}
callers:
  - name: A
    progress: true
    args: {timeoutMs: 100000, sessionIds: [c]}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := waitagents.Reference()
	opts, err := p.LoadOptions()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := scenario.Load([]string{file}, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := &cases[0]
	return c, waitagents.RunWorld(t, p.World(c))
}

// TestExpectNoSuchCall: an expectation on a call that was not made fails,
// unless it only counts the caller's calls; errorMentions is checked.
func TestExpectNoSuchCall(t *testing.T) {
	c, res := capped(t)
	one, two := 1, 2
	for _, tc := range []struct {
		e    scenario.Expect
		want string
	}{
		{scenario.Expect{Call: 2, Calls: &one}, "A#2: no such call was made"},
		{scenario.Expect{Call: 2, Lists: &two}, "A#2: no such call was made"},
		{scenario.Expect{Calls: &one}, ""},
		{scenario.Expect{Calls: &two}, "A#1: made 1 calls, want 2"},
		{scenario.Expect{ErrorMentions: "zzz"}, `A#1: error "" does not mention "zzz"`},
	} {
		c.Scenario.Expect = []scenario.Expect{tc.e}
		got := strings.Join(check.Expectations(c, res.Result, waitagents.Reference().Check(c, res).Calls), "\n")
		if got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.e, got, tc.want)
		}
	}
}
