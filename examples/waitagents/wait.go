package waitagents

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// activeStates are the lifecycle states of an agent that is still at work;
// every other state is terminal (contract §2, agent states).
var activeStates = map[string]bool{
	"":            true,
	"created":     true,
	"prompt_sent": true,
	"running":     true,
	"waiting":     true,
}

func anyActive(agents []Agent) bool {
	for _, a := range agents {
		if activeStates[a.State] {
			return true
		}
	}
	return false
}

// outcome is how one read of the bridge went.
type outcome int

const (
	notIssued outcome = iota // step 4 did not allow it
	lost                     // the deadline came first
	failed                   // it ended in time with an error
	succeeded                // it ended in time with a result
)

// call is the state of one call of the tool. Times are from the time package;
// durations are time.Duration and are turned into whole ms only for the reply
// and for progress.
type call struct {
	ctx     context.Context
	bridge  Bridge
	session *mcp.ServerSession
	token   any

	startedAt time.Time
	capped    time.Duration
	deadline  time.Time

	// cost is the longest bridge time of any read of this call (step 2).
	cost time.Duration
	// anchor is the instant the latest sleep was due (startedAt before the
	// first), spent the bridge time of the reads issued since (step 12).
	anchor time.Time
	spent  time.Duration
	// late is the largest machine delay this call measured; inherited the
	// previous call's own figure (step 12).
	late, inherited time.Duration

	lastProgress int64 // the last progress sent, in ms; -1 before the first
	bridgeErr    *string
}

// wait runs steps 1 to 9 of the contract. It returns an error only when the
// caller went away (the handler's context is done).
func (t *tool) wait(ctx context.Context, session *mcp.ServerSession, token any, in input) (reply, error) {
	// Step 1: the deadline comes first, before any read.
	startedAt := time.Now()
	cappedMs := min(in.TimeoutMs, t.capMs)
	c := &call{
		ctx:          ctx,
		bridge:       t.bridge,
		session:      session,
		token:        token,
		startedAt:    startedAt,
		capped:       time.Duration(cappedMs) * time.Millisecond,
		anchor:       startedAt,
		lastProgress: -1,
	}
	c.deadline = startedAt.Add(c.capped)
	t.mu.Lock()
	c.inherited = t.lastLate
	t.mu.Unlock()

	runID := in.RunID
	var scope map[string]bool
	if in.SessionIDs != nil {
		scope = make(map[string]bool, len(in.SessionIDs))
		for _, id := range in.SessionIDs {
			scope[id] = true
		}
	}
	list := func(ctx context.Context) ([]Agent, error) { return c.bridge.ListAgents(ctx, runID) }

	// Step 5: the first list, always issued (cost is still 0).
	var agents []Agent // the last good scoped list
	known := false     // some list succeeded in time
	firstFailed := false
	got, oc, err := raceRead(c, list)
	if err != nil {
		return reply{}, err
	}
	switch oc {
	case succeeded:
		agents, known = scoped(got, scope), true
	case failed:
		firstFailed = true
	}

	// Step 6: polling.
	for (known && anyActive(agents)) || (!known && firstFailed) {
		now := time.Now()
		room := c.deadline.Sub(now) - 2*c.cost - c.machine()
		if room <= 0 {
			break
		}
		if err := c.sleep(now, min(time.Duration(in.PollIntervalMs)*time.Millisecond, room)); err != nil {
			return reply{}, err
		}
		c.notifyProgress()
		got, oc, err := raceRead(c, list)
		if err != nil {
			return reply{}, err
		}
		if oc == succeeded {
			agents, known = scoped(got, scope), true
		} else if oc != failed {
			break // lost the race or not issued: the last good list is kept
		}
	}

	// Step 8: the final read, only when a list is known.
	out := reply{OK: true, Agents: []Agent{}, Outputs: []AgentOutput{}}
	if known {
		out.Agents = agents
		ids := make([]string, len(agents))
		for i, a := range agents {
			ids[i] = a.SessionID
		}
		read := func(ctx context.Context) ([]AgentOutput, error) {
			return c.bridge.ReadOutputs(ctx, runID, ids)
		}
		got, oc, err := raceRead(c, read)
		if err != nil {
			return reply{}, err
		}
		switch oc {
		case succeeded:
			out.Outputs, out.Truncated = cutOutputs(agents, got, in)
		case lost, notIssued:
			out.OutputsUnavailable = true
		}
	} else {
		out.AgentsUnavailable = true
	}

	// Step 9: the reply, measured now.
	now := time.Now()
	out.Done = known && !anyActive(agents)
	out.BridgeError = c.bridgeErr
	// Rounded to the nearest ms: a race timer runs sameInstantGrace past its
	// limit, so a call chained on a reply starts that much into a ms, and
	// whole ms cut off below would report 1 ms too little elapsed.
	elapsedMs := int(now.Sub(c.startedAt).Round(time.Millisecond).Milliseconds())
	if remaining := in.TimeoutMs - elapsedMs; !out.Done && cappedMs < in.TimeoutMs && remaining >= minTimeoutMs {
		out.RemainingMs = remaining
	}

	t.mu.Lock()
	t.lastLate = c.late
	t.mu.Unlock()
	return out, nil
}

// scoped filters a list to the scope (nil: no scope), keeping the bridge's
// order (step 7). The result is never nil.
func scoped(list []Agent, scope map[string]bool) []Agent {
	out := make([]Agent, 0, len(list))
	for _, a := range list {
		if scope == nil || scope[a.SessionID] {
			out = append(out, Agent{SessionID: a.SessionID, State: a.State})
		}
	}
	return out
}

// machine is the room kept for the machine's delay (step 12).
func (c *call) machine() time.Duration {
	m := max(c.late, c.inherited)
	if m > 0 {
		m = max(m, machineDelayFloorMs*time.Millisecond)
	}
	return m
}

// slip is the machine's delay since the anchor: the time that neither the
// plan nor the bridge accounts for (step 12).
func (c *call) slip(now time.Time) time.Duration {
	return max(now.Sub(c.anchor)-c.spent, 0)
}

func (c *call) noteLate(d time.Duration) {
	if d > c.late {
		c.late = d
	}
}

// charge records the bridge time of one read that ended or lost the race.
func (c *call) charge(d time.Duration) {
	d = max(d, 0)
	c.cost = max(c.cost, d)
	c.spent += d
}

// sleep sleeps d from now, the instant d was computed at, and moves the
// anchor to the instant the sleep was due. It returns the context's error if
// the caller goes away first.
func (c *call) sleep(now time.Time, d time.Duration) error {
	due := now.Add(d)
	timer := time.NewTimer(time.Until(due))
	select {
	case <-timer.C:
	case <-c.ctx.Done():
		timer.Stop()
		return c.ctx.Err()
	}
	c.noteLate(time.Since(due))
	c.anchor, c.spent = due, 0
	return nil
}

// notifyProgress sends one progress notification if the request carries a
// token and progress grew (steps 11 and 12). A failure to send is ignored.
func (c *call) notifyProgress() {
	if c.token == nil || c.session == nil {
		return
	}
	cappedMs := c.capped.Milliseconds()
	p := min(time.Since(c.startedAt).Round(time.Millisecond).Milliseconds(), cappedMs)
	if p <= c.lastProgress {
		return
	}
	c.lastProgress = p
	_ = c.session.NotifyProgress(c.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: c.token,
		Progress:      float64(p),
		Total:         float64(cappedMs),
		Message:       fmt.Sprintf("waiting for agents: %d ms of %d ms", p, cappedMs),
	})
}

// sameInstantGrace is how long after a race's limit its timer is due: the
// smallest step of time, so that a result ready exactly at the limit wins the
// race deterministically, also in a testing/synctest bubble where timers and
// the bridge's own wake-ups at one instant run in no fixed order.
const sameInstantGrace = time.Nanosecond

// readResult is what a read's goroutine hands over.
type readResult[T any] struct {
	val T
	err error
	end time.Time // when the bridge call returned
}

// raceRead issues one read if step 4 allows it and races it against the
// deadline (steps 2, 3, 4 and 12). A read that loses the race is abandoned:
// its goroutine delivers into a buffered channel nobody reads again. The
// error is non-nil only when the caller went away.
func raceRead[T any](c *call, fn func(context.Context) (T, error)) (T, outcome, error) {
	var zero T
	issue := time.Now()
	slip := c.slip(issue)
	c.noteLate(slip)
	// Step 4 (with step 12's slip): issue only if predicted to end in time.
	if issue.Add(c.cost).After(c.deadline.Add(slip)) {
		return zero, notIssued, nil
	}

	begins := make(chan time.Time, 1)
	results := make(chan readResult[T], 1)
	go func() {
		begins <- time.Now()
		var r readResult[T]
		func() {
			defer func() {
				if p := recover(); p != nil {
					r.val, r.err = zero, fmt.Errorf("bridge panic: %v", p)
				}
			}()
			r.val, r.err = fn(c.ctx)
		}()
		r.end = time.Now()
		results <- r
	}()

	var begin time.Time
	select {
	case begin = <-begins:
	case <-c.ctx.Done():
		return zero, notIssued, c.ctx.Err()
	}
	c.noteLate(begin.Sub(issue))
	// The race's limit is fixed when the bridge call begins: a goroutine that
	// waited for a CPU has cost the bridge nothing.
	limit := c.deadline.Add(c.slip(begin))

	take := func(r readResult[T]) (T, outcome, error) {
		c.charge(r.end.Sub(begin))
		if r.err != nil {
			msg := r.err.Error()
			c.bridgeErr = &msg
			return zero, failed, nil
		}
		return r.val, succeeded, nil
	}

	// Same-instant rule: the race's timer is due one nanosecond after the
	// limit. Time moves past the limit only once every goroutine is blocked,
	// so a result produced at the limit instant is in hand before the timer
	// fires, whatever order the scheduler runs that instant's goroutines in.
	due := limit.Add(sameInstantGrace)
	timer := time.NewTimer(time.Until(due))
	defer timer.Stop()
	select {
	case r := <-results:
		return take(r)
	case <-timer.C:
		c.noteLate(time.Since(due))
		// A result already there when the timer wakes, late or not, is taken.
		select {
		case r := <-results:
			return take(r)
		default:
		}
		c.charge(limit.Sub(begin))
		return zero, lost, nil
	case <-c.ctx.Done():
		return zero, lost, c.ctx.Err()
	}
}
