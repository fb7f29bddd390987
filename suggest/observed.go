package suggest

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
)

// Observed is what case c showed, written as the expectations a person
// would write for it (the table's format, contract §2 step 9 for the reply):
// for every call, in order, when it resolved, whether it was received (and
// what lost it), whether it was rejected, how many lists and reads it
// issued and left stranded, how many calls its caller made in all (on the
// caller's first call), and every reply field — ok, done, remainingMs,
// agentsUnavailable, outputsUnavailable, bridgeError, truncated, error, each
// a value or absent; agents as id=state; how many outputs, messages and
// characters.
func Observed(c results.CaseResult) []scenario.Expect {
	calls := map[string]int{}
	for _, s := range c.Calls {
		calls[s.Caller]++
	}
	var out []scenario.Expect
	for _, s := range c.Calls {
		e := scenario.Expect{Caller: s.Caller, Call: s.Index}
		e.StartsAtMs = ptr(s.StartMs)
		e.ResolvesAtMs = ptr(s.EndMs)
		e.Received = ptr(!s.Lost)
		if s.Lost {
			e.LostBy = lossCause(s.LostBy)
		}
		e.Rejected = ptr(s.IsError)
		e.Lists, e.Reads, e.Stranded = ptr(s.Lists), ptr(s.Reads), ptr(s.Stranded)
		if s.Index == 1 {
			e.Calls = ptr(calls[s.Caller])
		}
		if s.Reply != nil {
			e.Reply = replyOf(s.Reply)
		}
		out = append(out, e)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// lossCause is the cause of a loss without its figures: "proxy idle
// timeout (60000 ms)" → "proxy idle timeout".
func lossCause(s string) string {
	if i := strings.Index(s, " ("); i > 0 {
		return s[:i]
	}
	return s
}

// replyOf is a reply (as received, JSON-decoded) as a ReplyExpect.
func replyOf(r map[string]any) *scenario.ReplyExpect {
	field := func(name string) *scenario.Want {
		v, ok := r[name]
		if !ok {
			return &scenario.Want{Absent: true}
		}
		switch x := v.(type) {
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1e15 {
				return &scenario.Want{Value: int64(x)}
			}
		case bool, string:
			return &scenario.Want{Value: x}
		}
		return &scenario.Want{Present: true}
	}
	re := &scenario.ReplyExpect{OK: field("ok"), Done: field("done"), RemainingMs: field("remainingMs"),
		AgentsUnavailable: field("agentsUnavailable"), OutputsUnavailable: field("outputsUnavailable"),
		BridgeError: field("bridgeError"), Truncated: field("truncated"), Error: field("error")}
	as, _ := r["agents"].([]any)
	for _, a := range as {
		m, _ := a.(map[string]any)
		re.Agents = append(re.Agents, fmt.Sprintf("%v=%v", m["sessionId"], m["state"]))
	}
	outs, _ := r["outputs"].([]any)
	msgs, chars := 0, 0
	for _, o := range outs {
		m, _ := o.(map[string]any)
		ms, _ := m["messages"].([]any)
		msgs += len(ms)
		for _, x := range ms {
			chars += len([]rune(fmt.Sprint(x)))
		}
	}
	re.Outputs, re.OutputMessages, re.OutputChars = ptr(len(outs)), ptr(msgs), ptr(chars)
	return re
}

// prune keeps of head's expectations h what a person would write: every
// call's resolve time, its reply's fields that hold a value and how many
// outputs it carries, whether it was received; the rest (counts, fields
// absent, messages and characters) only where the mutant's m differ. The
// caller and call are left out of a world with one caller's one call.
func prune(h, m []scenario.Expect) []scenario.Expect {
	out := pruneCalls(h, m)
	if len(out) == 1 && out[0].Call == 1 {
		out[0].Caller, out[0].Call = "", 0
	}
	return out
}

// pruneReply keeps of head's reply h the fields with a value, the number of
// outputs, and whatever differs from the mutant's m (nil: no reply).
func pruneReply(h, m *scenario.ReplyExpect) *scenario.ReplyExpect {
	if h == nil {
		return nil
	}
	if m == nil {
		m = &scenario.ReplyExpect{}
	}
	keep := func(a, b *scenario.Want) *scenario.Want {
		if a == nil || (a.Absent && b != nil && *b == *a) {
			return nil
		}
		return a
	}
	keepN := func(a, b *int) *int {
		if a == nil || (*a == 0 && same(a, b)) {
			return nil
		}
		return a
	}
	return &scenario.ReplyExpect{OK: keep(h.OK, m.OK), Done: keep(h.Done, m.Done), RemainingMs: keep(h.RemainingMs, m.RemainingMs),
		AgentsUnavailable: keep(h.AgentsUnavailable, m.AgentsUnavailable), OutputsUnavailable: keep(h.OutputsUnavailable, m.OutputsUnavailable),
		BridgeError: keep(h.BridgeError, m.BridgeError), Truncated: keep(h.Truncated, m.Truncated), Error: keep(h.Error, m.Error),
		Agents: h.Agents, Outputs: h.Outputs, OutputMessages: keepN(h.OutputMessages, m.OutputMessages), OutputChars: keepN(h.OutputChars, m.OutputChars)}
}

func pruneCalls(h, m []scenario.Expect) []scenario.Expect {
	find := func(e scenario.Expect) *scenario.Expect {
		for i := range m {
			if m[i].Caller == e.Caller && m[i].Call == e.Call {
				return &m[i]
			}
		}
		return nil
	}
	var out []scenario.Expect
	for _, e := range h {
		o := find(e)
		var mr *scenario.ReplyExpect
		if o != nil {
			mr = o.Reply
		}
		k := scenario.Expect{Caller: e.Caller, Call: e.Call, ResolvesAtMs: e.ResolvesAtMs, Reply: pruneReply(e.Reply, mr)}
		if !*e.Received {
			k.Received, k.LostBy = e.Received, e.LostBy
		}
		if *e.Rejected {
			k.Rejected = e.Rejected
		}
		if o == nil || !same(o.Received, e.Received) || o.LostBy != e.LostBy {
			k.Received, k.LostBy = e.Received, e.LostBy
		}
		if o == nil || !same(o.Rejected, e.Rejected) {
			k.Rejected = e.Rejected
		}
		if o == nil || !same(o.StartsAtMs, e.StartsAtMs) {
			k.StartsAtMs = e.StartsAtMs
		}
		if o == nil || !same(o.Lists, e.Lists) {
			k.Lists = e.Lists
		}
		if o == nil || !same(o.Reads, e.Reads) {
			k.Reads = e.Reads
		}
		if o == nil || !same(o.Stranded, e.Stranded) {
			k.Stranded = e.Stranded
		}
		if e.Calls != nil && (o == nil || !same(o.Calls, e.Calls)) {
			k.Calls = e.Calls
		}
		out = append(out, k)
	}
	return out
}

func same[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// describe says, in one line, the first way the mutant's expectations m
// differ from head's h.
func describe(h, m []scenario.Expect) string {
	for i, e := range h {
		who := fmt.Sprintf("%s#%d", e.Caller, e.Call)
		if i >= len(m) || m[i].Caller != e.Caller || m[i].Call != e.Call {
			return who + ": the mutant makes other calls"
		}
		a, _ := json.Marshal(e)
		b, _ := json.Marshal(m[i])
		if string(a) == string(b) {
			continue
		}
		var ha, mb map[string]any
		_ = json.Unmarshal(a, &ha)
		_ = json.Unmarshal(b, &mb)
		for _, k := range []string{"resolvesAtMs", "received", "lostBy", "rejected", "lists", "reads", "stranded", "calls", "startsAtMs"} {
			if fmt.Sprint(ha[k]) != fmt.Sprint(mb[k]) {
				return fmt.Sprintf("%s: %s is %v on head, %v on the mutant", who, k, ha[k], mb[k])
			}
		}
		hr, _ := ha["reply"].(map[string]any)
		mr, _ := mb["reply"].(map[string]any)
		for _, k := range []string{"done", "remainingMs", "agentsUnavailable", "outputsUnavailable", "bridgeError", "truncated", "ok", "error", "agents", "outputs", "outputMessages", "outputChars"} {
			if fmt.Sprint(hr[k]) != fmt.Sprint(mr[k]) {
				return fmt.Sprintf("%s: reply %s is %v on head, %v on the mutant", who, k, show(hr[k]), show(mr[k]))
			}
		}
		return who + ": the reply differs"
	}
	if len(m) > len(h) {
		return "the mutant makes more calls"
	}
	return "the outcome differs"
}

// show is a JSON-decoded Want as a person reads it.
func show(v any) string {
	if m, ok := v.(map[string]any); ok {
		switch {
		case m["Absent"] == true:
			return "absent"
		case m["Present"] == true:
			return "present"
		}
		return fmt.Sprint(m["Value"])
	}
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(v)
}
