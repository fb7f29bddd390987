package timeline

// Scheduler is the timeline a Bridge runs on. The Kernel implements it on
// virtual time; WallScheduler on the wall clock (`waitsim serve`), so that
// one model of the reference bridge (contract §3) serves both.
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
