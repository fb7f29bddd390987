package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// Who tests the tester: each generic invariant fires on records a broken
// tool or transport would leave, and holds at its edge.
func TestGenericInvariantsFire(t *testing.T) {
	limit := func(ms int64) *scenario.Limit { return &scenario.Limit{Ms: ms} }
	reset := true
	c := &scenario.Case{ID: "x", Scenario: scenario.Scenario{Callers: []scenario.CallerSpec{
		{Name: "A", RequestTimeoutMs: limit(60000)},
		{Name: "R", RequestTimeoutMs: limit(5000), Progress: &reset, ResetOnProgress: &reset},
		{Name: "D"},
	}}}
	notes := func(ps ...float64) []sim.ProgressNote {
		var out []sim.ProgressNote
		for i, p := range ps {
			out = append(out, sim.ProgressNote{AtMs: int64(1000 * (i + 1)), Progress: p, Total: 3000})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		calls []sim.CallResult
		stray []sim.StrayProgress
		want  []string // invariant ids, in order
		says  string
	}{
		{"received-at-the-timeout", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 60000}}, nil, nil, ""},
		{"received-after-the-timeout", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 60001}}, nil, []string{ReplyOrNamedLoss}, "past the caller's 60000 ms"},
		{"default-timeout", []sim.CallResult{{Caller: "D", Index: 1, EndMs: 60001}}, nil, []string{ReplyOrNamedLoss}, "60000 ms request timeout"},
		{"reset-by-progress", []sim.CallResult{{Caller: "R", Index: 1, EndMs: 9000, ProgressNotes: []sim.ProgressNote{{AtMs: 4000, Progress: 1, Total: 2}}}}, nil, nil, ""},
		{"reset-at-the-reply-instant", []sim.CallResult{{Caller: "R", Index: 1, EndMs: 9001, ProgressNotes: []sim.ProgressNote{{AtMs: 4000, Progress: 1, Total: 3}, {AtMs: 9001, Progress: 2, Total: 3}}}}, nil, nil, ""},
		{"reset-too-long-ago", []sim.CallResult{{Caller: "R", Index: 1, EndMs: 9001, ProgressNotes: []sim.ProgressNote{{AtMs: 4000, Progress: 1, Total: 2}}}}, nil, []string{ReplyOrNamedLoss}, "5001 ms after 4000 ms"},
		{"an-error-result-late", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 70000, IsError: true}}, nil, nil, ""},
		{"lost-named", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 20000, Lost: true, LostBy: "proxy idle timeout (20000 ms)"}}, nil, nil, ""},
		{"lost-unnamed", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 20000, Lost: true}}, nil, []string{ReplyOrNamedLoss}, "no named cause"},
		{"lost-odd-cause", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 20000, Lost: true, LostBy: "gremlins"}}, nil, []string{ReplyOrNamedLoss}, `"gremlins"`},
		{"progress-grows", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 3000, ProgressNotes: notes(1000, 2000, 2000, 3000)}}, nil, nil, ""},
		{"progress-at-total", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 3000, ProgressNotes: notes(3000)}}, nil, nil, ""},
		{"progress-above-total", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 3000, ProgressNotes: notes(3001)}}, nil, []string{ProgressBounded}, "above its total"},
		{"progress-shrinks", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 3000, ProgressNotes: notes(2000, 1000)}}, nil, []string{ProgressBounded}, "must grow"},
		{"progress-stands", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 3000, ProgressNotes: []sim.ProgressNote{{AtMs: 1, Progress: 5, Total: 9}, {AtMs: 2, Progress: 5, Total: 8}}}}, nil, []string{ProgressBounded}, "must grow"},
		{"no-total", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 3000, ProgressNotes: []sim.ProgressNote{{AtMs: 1, Progress: 5}, {AtMs: 2, Progress: 9}}}}, nil, nil, ""},
		{"stray", []sim.CallResult{{Caller: "A", Index: 1, EndMs: 3000}}, []sim.StrayProgress{{Caller: "A", AtMs: 5, Token: "B/1"}}, []string{ProgressNeedsToken}, "B/1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &sim.Result{Calls: tc.calls, StrayProgress: tc.stray}
			var sums []results.CallSummary
			for _, cr := range tc.calls {
				sums = append(sums, results.CallSummary{Caller: cr.Caller, Index: cr.Index, StartMs: cr.StartMs, EndMs: cr.EndMs, Lost: cr.Lost, LostBy: cr.LostBy, IsError: cr.IsError})
			}
			vs := GenericInvariants(c, res, sums)
			var ids, msgs []string
			for _, v := range vs {
				ids = append(ids, v.Invariant)
				msgs = append(msgs, v.Message)
			}
			if !slices.Equal(ids, tc.want) || (tc.says != "" && !strings.Contains(strings.Join(msgs, "\n"), tc.says)) {
				t.Errorf("got %q: %q; want %q saying %q", ids, msgs, tc.want, tc.says)
			}
		})
	}
}
