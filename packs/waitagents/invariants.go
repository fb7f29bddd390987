package waitagents

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/check"
	"github.com/waitsim/waitsim/packs/waitagents/bridge"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/waittool"
)

// Invariants lists the contract's invariants, in the order they are checked
// (after check.Invariants, the generic ones).
var Invariants = []check.Invariant{
	{ID: "resolves-by-deadline", Rule: "A reply resolves no later than the call's start plus min(timeoutMs, 30000) ms, plus, when the world makes the tool's timers late, twice the largest lateness it gave (a late last sleep and a late race timer; contract §2 steps 1 and 12)."},
	{ID: "default-caller-never-loses", Rule: "A caller with the default 60 s request timeout never loses a reply (contract §4)."},
	{ID: "read-predicted-in-time", Rule: "No bridge read is issued unless now + cost ≤ deadline + slip, cost being the longest read of the call so far and slip the lateness of the call's latest sleep, 0 with exact timers (contract §2 steps 2, 4 and 12)."},
	{ID: "poll-leaves-reserve", Rule: "No poll starts without room for itself and the final read: its list is issued at a time t with t + 2·cost ≤ deadline + slip (contract §2 steps 6 and 12)."},
	{ID: "remaining-when-spec-says", Rule: "remainingMs is present exactly when the reply is not done, the call was capped and timeoutMs minus the elapsed time is ≥ 1000, and then equals timeoutMs minus the elapsed time measured at resolution (contract §2 step 9)."},
	{ID: "remaining-legal", Rule: "remainingMs, when present, is a legal timeoutMs: an integer from 1000 to 600000 (contract §2 step 9)."},
	{ID: "done-needs-terminal-list", Rule: "done is never true unless a list of the call was read in time and every scoped agent in it is terminal (contract §2 step 9)."},
	{ID: "agents-unavailable-exact", Rule: "agentsUnavailable is set, with agents [], exactly when no list of the call was read in time (contract §2 step 9)."},
	{ID: "outputs-unavailable-exact", Rule: "outputsUnavailable is set exactly when a list was read in time but no output read of the call ended by the deadline (contract §2 step 9)."},
	{ID: "agents-in-scope", Rule: "Every agent and output in a reply is inside the call's sessionIds scope (contract §2 step 7)."},
	{ID: "outputs-within-budget", Rule: "Outputs respect maxMessagesPerAgent, maxCharsPerMessage, maxCharsPerAgent and maxTotalChars (contract §2 step 8)."},
	{ID: "progress-reports-elapsed", Rule: "Each progress notification carries total = the call's capped ms and progress = the elapsed ms of the call (over HTTP at most that, a resumed stream delivering it late, and one a reopened stream delivers again counts once), or total when a late timer took it past the cap; progress grows and never exceeds total (contract §2 steps 11 and 12)."},
	{ID: "chain-terminates", Rule: "Following remainingMs terminates: each next call passes the last remainingMs, which shrinks (a retry after a transport failure: what is left of the lost call's budget), and the chain ends before the default bound of 50 calls (contract §2 step 9)."},
	{ID: "bridge-errors-are-fields", Rule: "A valid call never gets an error result or a protocol error: bridge errors are reply fields (contract §2 step 9)."},
	{ID: "transport-keeps-replies", Rule: "With the contract's 30 s cap, the transport loses no reply unless the world cuts sooner than 60 s: behind a proxy idle timeout of none or at least 60000 ms, with no drop and no server write timeout below 60000 ms, the transport cuts no call's response, in every mode and under every profile (contract §6). (A session the SDK's client gives up after cuts of its standalone stream is not counted here: see transport-session-fails.)"},
	{ID: ModelRequests, Rule: "The call issues exactly the bridge reads the contract calls for, each at the instant it calls for it, and its reply resolves when the model says; a late tool timer may move an instant by at most the world's lateness (by exactly it when the world's timers are late by a fixed amount, and then the machine delay a call hands to the next is known exactly), and a resumed stream may deliver the reply later by its gap (the reference model, contract §2 steps 1–8 and 12, §6)."},
	{ID: ModelReply, Rule: "Every reply field equals what the reference model computes from the world's records: ok, error, done, agents with states, outputs (the exact messages kept), truncated, bridgeError, remainingMs, agentsUnavailable, outputsUnavailable (contract §2 steps 7–9)."},
	{ID: ModelProgress, Rule: "With a progress token, the caller receives one notification per poll whose elapsed ms grew, progress = elapsed ms at the poll (at most total), total = capped ms and the message \"waiting for agents: E ms of C ms\" (E the progress, C the total), and none without a token; over HTTP those the transport carries, in order and none early, one a reopened stream delivers again counting once (contract §2 steps 11 and 12, §6)."},
	{ID: "description-states-cap", Rule: "The tool description and the timeoutMs description are word for word the texts contract §2 step 10 gives, which state the 30-second cap, remainingMs and the call-again instruction, in no other unit (contract §2 step 10)."},
}

// callView is what the invariants know of one call, from the caller's side
// and the bridge's records (never from the tool's own account).
type callView struct {
	sum      results.CallSummary
	cr       *sim.CallResult
	spec     scenario.CallerSpec
	capped   int64
	deadline int64
	late     bool             // over HTTP a notification may arrive late (a resumed stream replays it)
	maxLate  int64            // the largest lateness the world gave a tool timer (ms)
	exact    bool             // every tool timer fired exactly maxLate late (no jitter)
	reqs     []bridge.Request // this call's list/read requests, in issue order
	noBridge bool             // the world registers the tool without a bridge
	rep      *waittool.Reply  // the reply, decoded
	c        Contract         // the contract's figures the tool follows
}

// checkInvariants returns every violation of the contract's invariants in
// case c's run res (the generic ones are check's).
func (p *Pack) checkInvariants(c *scenario.Case, res *Result, sums []results.CallSummary) []results.Violation {
	k := p.contract()
	var vs []results.Violation
	add := func(id, format string, args ...any) {
		vs = append(vs, results.Violation{Invariant: id, Message: fmt.Sprintf(format, args...)})
	}
	specs := map[string]scenario.CallerSpec{}
	for _, cs := range c.Scenario.Callers {
		specs[cs.Name] = cs
	}
	var views []callView
	// walked: what each call hands its next one (contract §2 step 12);
	// unknown: the tool's ids of the calls whose figure the records do not
	// tell (their reply did not come back, or the wire delayed it).
	var walked []lateAt
	var unknown []uint64
	for i := range sums {
		s := sums[i]
		cr := res.Call(s.Caller, s.Index)
		spec := specs[s.Caller]
		who := fmt.Sprintf("%s#%d", s.Caller, s.Index)
		if s.Lost && s.LostBy == sim.LostByTimeout && s.CutBy == "" && spec.RequestTimeoutMs == nil && spec.DefaultTimeout() && c.Scenario.CapMs == 0 && k.CapMs <= ReferenceContract.CapMs {
			add("default-caller-never-loses", "%s: reply lost at %d ms by a caller with the default 60000 ms timeout", who, s.EndMs)
		}
		if msg := p.transportLoss(c, s); msg != "" {
			add("transport-keeps-replies", "%s: %s", who, msg)
		}
		if s.IsError && !spec.InvalidArgs {
			add("bridge-errors-are-fields", "%s: error result: %s", who, cr.ErrorText+cr.RPCError)
		}
		rep := ReplyOf(cr)
		if s.IsError || s.Lost || rep == nil {
			if s.CallID != 0 {
				unknown = append(unknown, s.CallID)
			}
			continue
		}
		timeout := s.TimeoutMs
		v := callView{sum: s, cr: cr, spec: spec, capped: min(timeout, p.capOf(c)), late: s.Wire != nil && s.Wire.Mode != string(sim.ModeMemory), noBridge: c.Scenario.NoBridge, rep: rep, c: k}
		v.deadline = s.StartMs + v.capped
		v.maxLate = res.MaxTimerLateMs
		v.exact = c.Scenario.Timers == nil || c.Scenario.Timers.JitterMs == 0
		for _, r := range res.Requests {
			if r.CallID == s.CallID && s.CallID != 0 && r.Op != "hold" {
				v.reqs = append(v.reqs, r)
			}
		}
		views = append(views, v)
	}
	for _, v := range views {
		vs = append(vs, checkCall(v)...)
		mvs, late, open := checkModel(v, walked, slices.ContainsFunc(unknown, func(id uint64) bool { return id < v.sum.CallID }))
		vs = append(vs, mvs...)
		walked = append(walked, lateAt{endMs: v.sum.EndMs, late: late})
		// A reply the wire delayed was built before it resolved: when, the
		// records do not tell, so which later call inherits from it is open.
		if open || v.sum.WireDelayMs > 0 {
			unknown = append(unknown, v.sum.CallID)
		}
	}
	vs = append(vs, checkChains(c, sums)...)
	vs = append(vs, checkDescriptions(res.Result, k)...)
	return vs
}

func checkCall(v callView) []results.Violation {
	var vs []results.Violation
	who := fmt.Sprintf("%s#%d", v.sum.Caller, v.sum.Index)
	add := func(id, format string, args ...any) {
		vs = append(vs, results.Violation{Invariant: id, Message: who + ": " + fmt.Sprintf(format, args...)})
	}
	reply := v.sum.Reply
	rep := v.rep
	if v.noBridge {
		return nil // the tool has no bridge: it answers at once (the model checks the reply)
	}
	elapsed := v.sum.EndMs - v.sum.StartMs
	if by := v.deadline + 2*v.maxLate + v.sum.WireDelayMs; v.sum.EndMs > by {
		add("resolves-by-deadline", "resolved at %d ms, after the deadline %d ms (start %d + capped %d) + 2 × %d ms of timer lateness + %d ms of a resumed stream", v.sum.EndMs, v.deadline, v.sum.StartMs, v.capped, v.maxLate, v.sum.WireDelayMs)
	}

	// Cost as the tool must have measured it: each earlier read's duration, a
	// read that lost the race counting until the deadline. slip is the
	// lateness of the call's latest sleep, read from the world's stamp on the
	// poll lists issued when a tool timer woke the call (a call's first read
	// follows no sleep; a read issued when a race timer woke the call keeps
	// the slip of the sleep before, as the tool does). A read that ends by deadline + slip is in time; one
	// that ends later but before the race timer, itself late by up to
	// maxLate, fired may be taken too: then either verdict is right.
	var cost, slip int64
	// in time: for sure / possibly (the window of a late race timer)
	var listedSure, listedMaybe, readSure, readMaybe bool
	firstList := true
	for i, r := range v.reqs {
		if i > 0 && r.Op == "list" && r.WakeLateMs != nil {
			slip = *r.WakeLateMs
		}
		limit := v.deadline + slip
		if r.IssuedMs+cost > limit {
			add("read-predicted-in-time", "%s #%d issued at %d ms with cost %d ms: predicted to end at %d ms, after the deadline %d ms + slip %d ms", r.Op, r.ID, r.IssuedMs, cost, r.IssuedMs+cost, v.deadline, slip)
		}
		if r.Op == "list" {
			if !firstList && r.IssuedMs+2*cost > limit {
				add("poll-leaves-reserve", "poll list #%d issued at %d ms with cost %d ms leaves no room for the final read: %d + 2·%d > deadline %d + slip %d", r.ID, r.IssuedMs, cost, r.IssuedMs, cost, v.deadline, slip)
			}
			firstList = false
		}
		end := r.CompletedMs
		sure := end >= 0 && end <= limit
		maybe := sure || end >= 0 && end <= limit+v.maxLate
		if !sure {
			end = max(limit, r.IssuedMs)
		}
		cost = max(cost, end-r.IssuedMs)
		if r.Op == "list" && r.Err == "" && r.Panic == "" {
			listedSure, listedMaybe = listedSure || sure, listedMaybe || maybe
		}
		if r.Op == "read" {
			readSure, readMaybe = readSure || sure, readMaybe || maybe
		}
	}
	// Where lateness leaves a verdict open, the reply's own account of it is
	// taken: agentsUnavailable says whether a list was read in time.
	listedInTime := listedSure || listedMaybe && !rep.AgentsUnavailable
	readEnded := readSure || readMaybe && !rep.OutputsUnavailable

	done := rep.Done
	if done && !listedInTime {
		add("done-needs-terminal-list", "done is true but no list of the call was read in time")
	}
	if done {
		for _, a := range rep.Agents {
			if waittool.Active(a.State) {
				add("done-needs-terminal-list", "done is true but agent %s is %q", a.SessionID, a.State)
			}
		}
	}
	if rep.AgentsUnavailable == listedInTime {
		add("agents-unavailable-exact", "agentsUnavailable = %v, but a list was read in time = %v", rep.AgentsUnavailable, listedInTime)
	}
	if !listedInTime && len(rep.Agents) != 0 {
		add("agents-unavailable-exact", "no list was read in time, yet the reply lists %d agents", len(rep.Agents))
	}
	wantOU := listedInTime && !readEnded
	if rep.OutputsUnavailable != wantOU {
		add("outputs-unavailable-exact", "outputsUnavailable = %v, want %v (list read in time %v, output read ended by the deadline %v)", rep.OutputsUnavailable, wantOU, listedInTime, readEnded)
	}

	_, present := reply["remainingMs"]
	wantRem := v.sum.TimeoutMs - elapsed
	wantPresent := !done && v.capped < v.sum.TimeoutMs && wantRem >= v.c.MinTimeoutMs
	// A reply that came over a resumed stream was built up to WireDelayMs
	// before the caller got it: the tool's elapsed time lies in that window,
	// so its remainingMs lies in [wantRem, wantRem + WireDelayMs].
	wd := v.sum.WireDelayMs
	switch {
	case wd > 0 && !done && v.capped < v.sum.TimeoutMs:
		if !present && wantRem >= v.c.MinTimeoutMs {
			add("remaining-when-spec-says", "remainingMs absent, want at least timeoutMs − elapsed = %d (the reply delayed up to %d ms by a resumed stream)", wantRem, wd)
		}
		if r := int64(0); present {
			r = int64(*rep.RemainingMs)
			if r < max(wantRem, v.c.MinTimeoutMs) || r > wantRem+wd {
				add("remaining-when-spec-says", "remainingMs = %d, want %d to %d (timeoutMs − elapsed, the reply delayed up to %d ms by a resumed stream)", r, max(wantRem, v.c.MinTimeoutMs), wantRem+wd, wd)
			}
		}
	case present != wantPresent:
		add("remaining-when-spec-says", "remainingMs present = %v, want %v (done %v, capped %d, timeoutMs %d, elapsed %d)", present, wantPresent, done, v.capped, v.sum.TimeoutMs, elapsed)
	case present && int64(*rep.RemainingMs) != wantRem:
		add("remaining-when-spec-says", "remainingMs = %d, want timeoutMs − elapsed = %d − %d = %d", *rep.RemainingMs, v.sum.TimeoutMs, elapsed, wantRem)
	}
	if present {
		f, ok := reply["remainingMs"].(float64)
		if !ok || f != float64(int64(f)) || f < float64(v.c.MinTimeoutMs) || f > float64(v.c.MaxTimeoutMs) {
			add("remaining-legal", "remainingMs = %v is not a legal timeoutMs (integer %d..%d)", reply["remainingMs"], v.c.MinTimeoutMs, v.c.MaxTimeoutMs)
		}
	}

	if ids := scopeOf(v.cr.Args); ids != nil {
		for _, a := range rep.Agents {
			if !slices.Contains(ids, a.SessionID) {
				add("agents-in-scope", "agent %s is outside the scope %v", a.SessionID, ids)
			}
		}
		for _, o := range rep.Outputs {
			if !slices.Contains(ids, o.SessionID) {
				add("agents-in-scope", "output of %s is outside the scope %v", o.SessionID, ids)
			}
		}
	}
	listed := map[string]bool{}
	for _, a := range rep.Agents {
		listed[a.SessionID] = true
	}
	for _, o := range rep.Outputs {
		if !listed[o.SessionID] {
			add("agents-in-scope", "output of %s, which is not among the reply's agents", o.SessionID)
		}
	}
	vs = append(vs, checkBudget(who, v.cr.Args, rep)...)
	last := -1.0
	seen := map[float64]bool{}
	for _, n := range v.cr.ProgressNotes {
		if v.late && seen[n.Progress] {
			continue // a stream resumed or reopened over HTTP delivered it again
		}
		seen[n.Progress] = true
		elapsed := float64(min(n.AtMs-v.sum.StartMs, v.capped))
		exact := n.Progress == elapsed || (v.late && n.Progress <= elapsed)
		if n.Total != float64(v.capped) || !exact || n.Progress <= last || n.Progress > n.Total {
			add("progress-reports-elapsed", "progress %.0f/%.0f received at %d ms, want %.0f/%d", n.Progress, n.Total, n.AtMs, elapsed, v.capped)
		}
		last = n.Progress
	}
	return vs
}

func scopeOf(args map[string]any) []string {
	raw, ok := args["sessionIds"].([]any)
	if !ok {
		return nil
	}
	ids := make([]string, len(raw))
	for i, x := range raw {
		ids[i] = fmt.Sprint(x)
	}
	return ids
}

func checkBudget(who string, args map[string]any, rep *waittool.Reply) []results.Violation {
	var vs []results.Violation
	add := func(format string, a ...any) {
		vs = append(vs, results.Violation{Invariant: "outputs-within-budget", Message: who + ": " + fmt.Sprintf(format, a...)})
	}
	perMsgs := intArg(args, "maxMessagesPerAgent", 20)
	perMsg := intArg(args, "maxCharsPerMessage", 4000)
	perAgent := intArg(args, "maxCharsPerAgent", 20000)
	total := intArg(args, "maxTotalChars", 100000)
	var all int64
	for _, o := range rep.Outputs {
		if int64(len(o.Messages)) > perMsgs {
			add("%s has %d messages, more than maxMessagesPerAgent %d", o.SessionID, len(o.Messages), perMsgs)
		}
		var n int64
		for _, m := range o.Messages {
			l := int64(len([]rune(m)))
			if l > perMsg {
				add("a message of %s has %d chars, more than maxCharsPerMessage %d", o.SessionID, l, perMsg)
			}
			n += l
		}
		if n > perAgent {
			add("%s has %d chars, more than maxCharsPerAgent %d", o.SessionID, n, perAgent)
		}
		all += n
	}
	if all > total {
		add("outputs hold %d chars, more than maxTotalChars %d", all, total)
	}
	return vs
}

func checkChains(c *scenario.Case, sums []results.CallSummary) []results.Violation {
	var vs []results.Violation
	for _, spec := range c.Scenario.Callers {
		if !spec.Follow {
			continue
		}
		var chain []results.CallSummary
		for _, s := range sums {
			if s.Caller == spec.Name {
				chain = append(chain, s)
			}
		}
		for i := 1; i < len(chain); i++ {
			prev, cur := chain[i-1], chain[i]
			if retried(spec, prev) {
				// A retry after a transport failure passes what is left of
				// the lost call's budget (contract §4).
				if left := prev.TimeoutMs - (prev.EndMs - prev.StartMs); cur.TimeoutMs != left || cur.TimeoutMs >= prev.TimeoutMs {
					vs = append(vs, results.Violation{Invariant: "chain-terminates", Message: fmt.Sprintf("%s#%d retried with timeoutMs %d after a call with timeoutMs %d lost after %d ms", spec.Name, cur.Index, cur.TimeoutMs, prev.TimeoutMs, prev.EndMs-prev.StartMs)})
				}
				continue
			}
			rem, ok := prev.Reply["remainingMs"].(float64)
			if !ok || int64(rem) != cur.TimeoutMs || cur.TimeoutMs >= prev.TimeoutMs {
				vs = append(vs, results.Violation{Invariant: "chain-terminates", Message: fmt.Sprintf("%s#%d passed timeoutMs %d after remainingMs %v of a call with timeoutMs %d", spec.Name, cur.Index, cur.TimeoutMs, prev.Reply["remainingMs"], prev.TimeoutMs)})
			}
		}
		// A chain bounded by the author's own maxCalls stops by design; the
		// default bound is only a safety net, so reaching it means no end.
		if n := len(chain); spec.MaxCalls == 0 && n >= sim.DefaultMaxCalls {
			if _, more := chain[n-1].Reply["remainingMs"]; more {
				vs = append(vs, results.Violation{Invariant: "chain-terminates", Message: fmt.Sprintf("%s: %d calls and the last still carries remainingMs", spec.Name, n)})
			}
		}
	}
	return vs
}

// contractDescriptions returns the two texts contract §2 step 10 says the
// tool publishes, its description and the description of its timeoutMs
// field, word for word, with k's figures (the cap, the bounds and default of
// timeoutMs): for ReferenceContract they are the contract's texts
// (TestContractTexts reads them from docs/contract.md).
func contractDescriptions(k Contract) (tool, timeout string) {
	secs := strconv.FormatFloat(float64(k.CapMs)/1000, 'f', -1, 64) + " seconds"
	if k.CapMs == 1000 {
		secs = "1 second"
	}
	tool = "Waits until the child agents of a run are no longer active, then returns their outputs. " +
		fmt.Sprintf("One call waits at most %s (%d ms), whatever timeoutMs asks. ", secs, k.CapMs) +
		"If the wait is cut short, the reply carries remainingMs: call this tool again with timeoutMs set to remainingMs to keep waiting."
	timeout = fmt.Sprintf("Total time to wait in ms, across calls (%d to %d, default %d). ", k.MinTimeoutMs, k.MaxTimeoutMs, k.DefaultTimeoutMs) +
		"One call waits at most " + secs + "; a reply that was cut short carries remainingMs: call again with timeoutMs set to it."
	return tool, timeout
}

// checkDescriptions compares the descriptions tools/list gives with the
// contract's texts (contract §2 step 10), exactly.
func checkDescriptions(res *sim.Result, k Contract) []results.Violation {
	var vs []results.Violation
	var tool *mcp.Tool
	for _, t := range res.Tools {
		if t.Name == waittool.ToolName {
			tool = t
		}
	}
	if tool == nil {
		return []results.Violation{{Invariant: "description-states-cap", Message: "tools/list has no " + waittool.ToolName}}
	}
	b, _ := json.Marshal(tool.InputSchema)
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(b, &s)
	wantTool, wantTimeout := contractDescriptions(k)
	for _, d := range []struct{ what, got, want string }{
		{"tool description", tool.Description, wantTool},
		{"timeoutMs description", s.Properties["timeoutMs"].Description, wantTimeout},
	} {
		if d.got != d.want {
			vs = append(vs, results.Violation{Invariant: "description-states-cap", Message: fmt.Sprintf(
				"%s differs from the text of contract §2 step 10 from character %d: %q, want %q", d.what, firstDiff(d.got, d.want)+1, d.got, d.want)})
		}
	}
	return vs
}

// firstDiff is the index, in code points, of the first character where a and
// b differ (the shorter one's length when it is a prefix of the other).
func firstDiff(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	return i
}
