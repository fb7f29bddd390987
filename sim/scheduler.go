package sim

// Scheduler is the timeline a Bridge runs on. The Kernel implements it on
// virtual time; `waitsim serve` implements it on the wall clock, so that one
// model of the reference bridge (contract §3) serves both.
//
// Times are ms since the timeline's origin (virtual 0 for a world). An
// implementation must run scheduled functions one at a time, in (time, order
// of scheduling), and never inside At or Soon themselves: the bridge schedules
// with its own lock held.
type Scheduler interface {
	// NowMs is the current time in ms since the origin.
	NowMs() int64
	// At runs fn at atMs (a time in the past means now); name is for diagnostics.
	At(atMs int64, name string, fn func())
	// Soon runs fn at the current instant, after what is already due then.
	Soon(name string, fn func())
	// Logf records what actor did now (the kernel's trace, a server's log).
	Logf(actor, format string, args ...any)
}

var _ Scheduler = (*Kernel)(nil)

// Logf appends a main-lane trace entry (Trace.Addf): Kernel's Scheduler record.
func (k *Kernel) Logf(actor, format string, args ...any) { k.Trace.Addf(actor, format, args...) }

// NewWorldBridge returns the bridge of world w on timeline s: w's bridge
// script (its latency jitter drawn from w.Seed), the agents present at 0, and
// w's roster changes scheduled at their times (contract §3). Callers are not
// part of it.
func NewWorldBridge(s Scheduler, w World) *Bridge {
	b := NewBridge(s, w.Bridge)
	b.seed = w.Seed
	for _, a := range w.Agents {
		b.roster = append(b.roster, &agentState{ID: a.ID, State: a.State, Messages: append([]string(nil), a.Messages...)})
	}
	for _, c := range w.Changes {
		c := c
		s.At(c.AtMs, "change", func() {
			switch c.Op {
			case OpJoin:
				b.Join(c.ID, c.State, c.Messages)
			case OpLeave:
				b.Leave(c.ID)
			default:
				b.SetState(c.ID, c.State, c.Messages)
			}
		})
	}
	return b
}
