package check

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// findCall returns the summary and sim result of caller's index-th call.
func findCall(res *sim.Result, sums []results.CallSummary, caller string, index int) (*results.CallSummary, *sim.CallResult) {
	for i := range sums {
		if sums[i].Caller == caller && sums[i].Index == index {
			return &sums[i], res.Call(caller, index)
		}
	}
	return nil, nil
}

// Expectations returns one message per expectation of case c that did not
// hold in its run res, whose calls sums summarizes.
func Expectations(c *scenario.Case, res *sim.Result, sums []results.CallSummary) []string {
	var fails []string
	for _, e := range c.Scenario.Expect {
		caller := e.Caller
		if caller == "" {
			caller = c.Scenario.Callers[0].Name
		}
		index := e.Call
		if index == 0 {
			index = 1
		}
		who := fmt.Sprintf("%s#%d", caller, index)
		fail := func(format string, args ...any) {
			fails = append(fails, who+": "+fmt.Sprintf(format, args...))
		}
		if e.Calls != nil {
			n := 0
			for _, s := range sums {
				if s.Caller == caller {
					n++
				}
			}
			if n != *e.Calls {
				fail("made %d calls, want %d", n, *e.Calls)
			}
		}
		s, cr := findCall(res, sums, caller, index)
		if s == nil {
			// An expectation that only counts the calls needs no call to look at.
			if only := (scenario.Expect{Caller: e.Caller, Calls: e.Calls}); !reflect.DeepEqual(e, only) {
				fail("no such call was made")
			}
			continue
		}
		if e.StartsAtMs != nil && s.StartMs != *e.StartsAtMs {
			fail("started at %d ms, want %d ms", s.StartMs, *e.StartsAtMs)
		}
		if e.ResolvesAtMs != nil && s.EndMs != *e.ResolvesAtMs {
			fail("resolved at %d ms, want %d ms", s.EndMs, *e.ResolvesAtMs)
		}
		if e.ResolvesByMs != nil && s.EndMs > *e.ResolvesByMs {
			fail("resolved at %d ms, want by %d ms", s.EndMs, *e.ResolvesByMs)
		}
		if e.Received != nil && s.Lost == *e.Received {
			if s.Lost {
				fail("reply LOST at %d ms, want received", s.EndMs)
			} else {
				fail("reply received at %d ms, want lost", s.EndMs)
			}
		}
		if e.LostBy != "" && (!s.Lost || !strings.Contains(s.LostBy, e.LostBy)) {
			fail("lost by %q, want a loss by %q", s.LostBy, e.LostBy)
		}
		if e.Rejected != nil && s.IsError != *e.Rejected {
			fail("error result = %v, want %v (%s)", s.IsError, *e.Rejected, cr.ErrorText+cr.RPCError)
		}
		if e.ErrorMentions != "" && !strings.Contains(cr.ErrorText+cr.RPCError, e.ErrorMentions) {
			fail("error %q does not mention %q", cr.ErrorText+cr.RPCError, e.ErrorMentions)
		}
		for _, n := range []struct {
			name      string
			want      *int
			got       int
			needsCall bool
		}{{"lists", e.Lists, s.Lists, true}, {"reads", e.Reads, s.Reads, true}, {"stranded", e.Stranded, s.Stranded, true}, {"progress", e.Progress, cr.Progress, false}} {
			if n.want != nil && n.got != *n.want {
				fail("%s = %d, want %d", n.name, n.got, *n.want)
			}
		}
		if e.ReplyFields != nil {
			fails = append(fails, checkReplyFields(who, e.ReplyFields, s)...)
		}
		if e.Reply != nil {
			fails = append(fails, checkReply(who, e.Reply, s)...)
		}
	}
	return fails
}

// checkReplyFields checks an expectation's replyFields against the
// reply's structured content, field by field in name order: "absent" and
// "present" as they say, any other value equal as JSON (json.Marshal of
// both: numbers by value, map keys sorted).
func checkReplyFields(who string, want map[string]any, s *results.CallSummary) []string {
	if s.Reply == nil {
		return []string{fmt.Sprintf("%s: %s, want one with replyFields", who, noReply(s, "no structured reply"))}
	}
	var fails []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		got, ok := s.Reply[name]
		w := want[name]
		switch {
		case w == "absent" && ok:
			fails = append(fails, fmt.Sprintf("%s: replyFields.%s = %s, want absent", who, name, results.JSONText(got)))
		case w == "present" && !ok:
			fails = append(fails, fmt.Sprintf("%s: replyFields.%s absent, want present", who, name))
		case w == "absent" || w == "present":
		case !ok:
			fails = append(fails, fmt.Sprintf("%s: replyFields.%s absent, want %s", who, name, results.JSONText(w)))
		case results.JSONText(got) != results.JSONText(w):
			fails = append(fails, fmt.Sprintf("%s: replyFields.%s = %s, want %s", who, name, results.JSONText(got), results.JSONText(w)))
		}
	}
	return fails
}

// noReply says why call s has no reply to check: lost, an error result,
// or none (what none is called).
func noReply(s *results.CallSummary, none string) string {
	switch {
	case s.Lost:
		return "reply lost"
	case s.IsError:
		return "error result"
	}
	return none
}

func checkReply(who string, r *scenario.ReplyExpect, s *results.CallSummary) []string {
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, who+": "+fmt.Sprintf(format, args...)) }
	if s.Reply == nil {
		return []string{fmt.Sprintf("%s: %s, want a reply", who, noReply(s, "no reply"))}
	}
	for _, f := range []struct {
		name string
		want *scenario.Want
	}{{"ok", r.OK}, {"done", r.Done}, {"remainingMs", r.RemainingMs}, {"agentsUnavailable", r.AgentsUnavailable},
		{"outputsUnavailable", r.OutputsUnavailable}, {"bridgeError", r.BridgeError}, {"truncated", r.Truncated}, {"error", r.Error}} {
		if f.want == nil {
			continue
		}
		got, ok := s.Reply[f.name]
		switch {
		case f.want.Absent && ok:
			fail("%s = %v, want absent", f.name, jsonText(got))
		case f.want.Present && !ok:
			fail("%s absent, want present", f.name)
		case f.want.Absent || f.want.Present:
		case !ok:
			fail("%s absent, want %v", f.name, f.want)
		case !sameValue(got, f.want.Value):
			fail("%s = %v, want %v", f.name, jsonText(got), f.want)
		}
	}
	if r.Agents != nil {
		got := agentList(s.Reply, strings.Contains(strings.Join(r.Agents, " "), "="))
		if strings.Join(got, " ") != strings.Join(r.Agents, " ") {
			fail("agents = [%s], want [%s]", strings.Join(got, " "), strings.Join(r.Agents, " "))
		}
	}
	outs, _ := s.Reply["outputs"].([]any)
	if r.Outputs != nil && len(outs) != *r.Outputs {
		fail("outputs for %d agents, want %d", len(outs), *r.Outputs)
	}
	if r.OutputMessages != nil {
		n := 0
		for _, o := range outs {
			m, _ := o.(map[string]any)
			msgs, _ := m["messages"].([]any)
			n += len(msgs)
		}
		if n != *r.OutputMessages {
			fail("outputs hold %d messages, want %d", n, *r.OutputMessages)
		}
	}
	if r.OutputChars != nil {
		if n := outputChars(outs); n != *r.OutputChars {
			fail("outputs hold %d chars, want %d", n, *r.OutputChars)
		}
	}
	return fails
}

// agentList renders a reply's agents as ids, or id=state.
func agentList(reply map[string]any, withState bool) []string {
	as, _ := reply["agents"].([]any)
	out := make([]string, 0, len(as))
	for _, a := range as {
		m, _ := a.(map[string]any)
		s := fmt.Sprint(m["sessionId"])
		if withState {
			s += "=" + fmt.Sprint(m["state"])
		}
		out = append(out, s)
	}
	return out
}

func outputChars(outs []any) int {
	n := 0
	for _, o := range outs {
		m, _ := o.(map[string]any)
		msgs, _ := m["messages"].([]any)
		for _, msg := range msgs {
			n += len([]rune(fmt.Sprint(msg)))
		}
	}
	return n
}

// sameValue compares a JSON-decoded value with a YAML-decoded expectation.
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case int64:
		g, ok := got.(float64)
		return ok && g == float64(w)
	default:
		return fmt.Sprint(got) == fmt.Sprint(want) && fmt.Sprintf("%T", got) == fmt.Sprintf("%T", want)
	}
}

func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}
