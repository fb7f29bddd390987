package waitagents

import (
	"strings"
	"testing"

	"github.com/waitsim/waitsim/check"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/waittool"
)

// TestModelOutputs: the budgets of contract §2 step 8 as the README decides
// them, each at and around its edge.
func TestModelOutputs(t *testing.T) {
	in := modelInput{perAgentMsgs: 2, perMsg: 50, perAgentChars: 100, total: 1000}
	agents := []waittool.Agent{{SessionID: "a"}, {SessionID: "b"}}
	out := func(id string, msgs ...string) waittool.AgentOutput {
		return waittool.AgentOutput{SessionID: id, Messages: msgs}
	}
	x := func(n int) string { return strings.Repeat("x", n) }
	e := func(n int) string { return strings.Repeat("é", n) }
	cases := []struct {
		name string
		in   modelInput
		read []waittool.AgentOutput
		want string
		cut  bool
	}{
		{"nothing read", in, nil, `[]`, false},
		{"fits exactly", in, []waittool.AgentOutput{out("a", x(50), x(50))}, `[{"messages":["` + x(50) + `","` + x(50) + `"],"sessionId":"a"}]`, false},
		{"message one over", in, []waittool.AgentOutput{out("a", e(51))}, `[{"messages":["` + e(50) + `"],"sessionId":"a"}]`, true},
		{"most recent kept", in, []waittool.AgentOutput{out("a", "1", "2", "3")}, `[{"messages":["2","3"],"sessionId":"a"}]`, true},
		{"exactly the count", in, []waittool.AgentOutput{out("a", "1", "2")}, `[{"messages":["1","2"],"sessionId":"a"}]`, false},
		{"agent budget cuts the second", modelInput{perAgentMsgs: 3, perMsg: 60, perAgentChars: 100, total: 1000},
			[]waittool.AgentOutput{out("a", x(60), x(60), x(1))}, `[{"messages":["` + x(60) + `","` + x(40) + `"],"sessionId":"a"}]`, true},
		{"agent budget exactly used", modelInput{perAgentMsgs: 3, perMsg: 60, perAgentChars: 100, total: 1000},
			[]waittool.AgentOutput{out("a", x(60), x(40))}, `[{"messages":["` + x(60) + `","` + x(40) + `"],"sessionId":"a"}]`, false},
		{"empty message after the budget is dropped", modelInput{perAgentMsgs: 3, perMsg: 100, perAgentChars: 100, total: 1000},
			[]waittool.AgentOutput{out("a", x(100), "")}, `[{"messages":["` + x(100) + `"],"sessionId":"a"}]`, true},
		{"total shared", modelInput{perAgentMsgs: 3, perMsg: 100, perAgentChars: 100, total: 150},
			[]waittool.AgentOutput{out("a", x(100)), out("b", x(100))}, `[{"messages":["` + x(100) + `"],"sessionId":"a"},{"messages":["` + x(50) + `"],"sessionId":"b"}]`, true},
		{"total used up", modelInput{perAgentMsgs: 3, perMsg: 100, perAgentChars: 100, total: 100},
			[]waittool.AgentOutput{out("a", x(100)), out("b", "y")}, `[{"messages":["` + x(100) + `"],"sessionId":"a"},{"messages":[],"sessionId":"b"}]`, true},
		{"list order, unasked and duplicate ids", in,
			[]waittool.AgentOutput{out("z", "z"), out("b", "b1"), out("a", "a1"), out("b", "b2")},
			`[{"messages":["a1"],"sessionId":"a"},{"messages":["b1"],"sessionId":"b"}]`, false},
		{"agent without output has no entry", in, []waittool.AgentOutput{out("b")}, `[{"messages":[],"sessionId":"b"}]`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := modelOutputs(tc.read, agents, tc.in)
			if s := asJSON(got); s != tc.want || cut != tc.cut {
				t.Errorf("got %s (cut %v), want %s (cut %v)", s, cut, tc.want, tc.cut)
			}
		})
	}
}

func TestPrefixChars(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int64
		want string
	}{{"", 0, ""}, {"", 3, ""}, {"abc", 0, ""}, {"abc", 2, "ab"}, {"abc", 3, "abc"}, {"abc", 4, "abc"}, {"日本🙂x", 3, "日本🙂"}, {"日本🙂x", 1, "日"}} {
		if got := prefixChars(tc.s, tc.n); got != tc.want {
			t.Errorf("prefixChars(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestModelMessages(t *testing.T) {
	m := &model{}
	if got := m.story(); got != "at the start of the call" {
		t.Errorf("story() = %q", got)
	}
	m.why = []string{"a", "b", "c"}
	if got := m.story(); got != "after a, b, c" {
		t.Errorf("story() = %q", got)
	}
	m.why = append(m.why, "d")
	if got := m.story(); got != "after 4 reads, the last: b, c, d" {
		t.Errorf("story() = %q", got)
	}
	if got := clip(strings.Repeat("x", 300)); got != strings.Repeat("x", 300) {
		t.Errorf("clip of 300 bytes changed it")
	}
	if got := clip(strings.Repeat("x", 301)); got != strings.Repeat("x", 300)+"…(301 bytes)" {
		t.Errorf("clip(301 bytes) = %q", got)
	}
	for _, tc := range []struct {
		field     string
		got, want any
		say       string
	}{
		{"done", true, false, ""},
		{"agents", []any{1}, []any{1, 2}, ": 1 entries, want 2"},
		{"agents", []any{map[string]any{"sessionId": "a"}}, []any{map[string]any{"sessionId": "b"}}, ": entry 1 is a, want b"},
		{"outputs", []any{map[string]any{"sessionId": "a", "messages": []any{"x"}}}, []any{map[string]any{"sessionId": "a", "messages": []any{}}}, ": a has 1 messages, want 0"},
		{"outputs", []any{map[string]any{"sessionId": "a", "messages": []any{"xé"}}}, []any{map[string]any{"sessionId": "a", "messages": []any{"x"}}}, ": message 1 of a has 2 characters, want 1"},
		{"agents", []any{map[string]any{"sessionId": "a", "state": "x"}}, []any{map[string]any{"sessionId": "a", "state": "y"}}, ": entry 1 (a) differs"},
		{"agents", []any{1, 2}, []any{1, 2}, ""},
	} {
		if got := firstDifference(tc.field, tc.got, tc.want); got != tc.say {
			t.Errorf("firstDifference(%s, %v, %v) = %q, want %q", tc.field, tc.got, tc.want, got, tc.say)
		}
	}
}

// TestChainBound: a followed chain that reaches the default bound of calls
// with remainingMs still in its last reply never ended; one bounded by its
// own maxCalls stopped by design.
func TestChainBound(t *testing.T) {
	chain := func(n int, lastHasMore bool) []results.CallSummary {
		var sums []results.CallSummary
		for i := 1; i <= n; i++ {
			rem := float64(600000 - 1000*i)
			reply := map[string]any{"remainingMs": rem}
			if i == n && !lastHasMore {
				reply = map[string]any{}
			}
			sums = append(sums, results.CallSummary{Caller: "A", Index: i, TimeoutMs: int64(600000 - 1000*(i-1)), Reply: reply})
		}
		return sums
	}
	c := &scenario.Case{Scenario: scenario.Scenario{Callers: []scenario.CallerSpec{{Name: "A", Follow: true}}}}
	fired := func(sums []results.CallSummary) bool { return len(checkChains(c, sums)) > 0 }
	if !fired(chain(50, true)) {
		t.Error("50 calls, the last with remainingMs: chain-terminates did not fire")
	}
	if fired(chain(49, true)) {
		t.Error("49 calls: chain-terminates fired")
	}
	if fired(chain(50, false)) {
		t.Error("50 calls, the last without remainingMs: chain-terminates fired")
	}
	c.Scenario.Callers[0].MaxCalls = 50
	if fired(chain(50, true)) {
		t.Error("a chain bounded by its own maxCalls: chain-terminates fired")
	}
}

// TestExpectNoSuchCall: an expectation on a call that was not made fails,
// unless it only counts the caller's calls; errorMentions is checked.
func TestExpectNoSuchCall(t *testing.T) {
	c, res := oracleRun(t, "capped")
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
		got := strings.Join(check.Expectations(c, res.Result, Reference().Check(c, res).Calls), "\n")
		if got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestChainRetry: a retry after a transport failure passes what is left of
// the lost call's budget, and that must shrink (contract §4).
func TestChainRetry(t *testing.T) {
	c := &scenario.Case{Scenario: scenario.Scenario{Callers: []scenario.CallerSpec{{Name: "A", Follow: true, OnTransportFailure: "retry"}}}}
	lost := func(start, end, timeout int64) results.CallSummary {
		return results.CallSummary{Caller: "A", Index: 1, StartMs: start, EndMs: end, TimeoutMs: timeout, Lost: true, LostBy: "connection dropped"}
	}
	next := func(timeout int64) results.CallSummary {
		return results.CallSummary{Caller: "A", Index: 2, StartMs: 9000, EndMs: 20000, TimeoutMs: timeout, Reply: map[string]any{}}
	}
	for _, tc := range []struct {
		name string
		sums []results.CallSummary
		want string
	}{
		{"what is left", []results.CallSummary{lost(5000, 9000, 60000), next(56000)}, ""},
		{"the whole budget again", []results.CallSummary{lost(5000, 9000, 60000), next(60000)},
			"A#2 retried with timeoutMs 60000 after a call with timeoutMs 60000 lost after 4000 ms"},
		{"counted from the end", []results.CallSummary{lost(5000, 9000, 60000), next(51000)},
			"A#2 retried with timeoutMs 51000 after a call with timeoutMs 60000 lost after 4000 ms"},
		{"lost at once, the same budget", []results.CallSummary{lost(5000, 5000, 60000), next(60000)},
			"A#2 retried with timeoutMs 60000 after a call with timeoutMs 60000 lost after 0 ms"},
	} {
		var msgs []string
		for _, v := range checkChains(c, tc.sums) {
			msgs = append(msgs, v.Invariant+": "+v.Message)
		}
		want := ""
		if tc.want != "" {
			want = "chain-terminates: " + tc.want
		}
		if got := strings.Join(msgs, "\n"); got != want {
			t.Errorf("%s: got %q, want %q", tc.name, got, want)
		}
	}
	// Lost by the caller's own timeout: no retry; the chain stops there
	// (a next call would have to follow a remainingMs it never got).
	sums := []results.CallSummary{lost(5000, 9000, 60000), next(56000)}
	sums[0].LostBy = "request timeout"
	if vs := checkChains(c, sums); len(vs) != 1 || !strings.Contains(vs[0].Message, "A#2 passed timeoutMs 56000 after remainingMs <nil>") {
		t.Errorf("a call after a lost one that was not retried: %v", vs)
	}
}
