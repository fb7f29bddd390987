package scenario

import "github.com/waitsim/waitsim/sim"

// Sim turns the YAML form into sim's; nil stays nil.
func (t *TransportSpec) Sim() *sim.TransportSpec {
	if t == nil {
		return nil
	}
	return &sim.TransportSpec{Mode: sim.TransportMode(t.Mode), Protocol: t.Protocol, EventStore: t.EventStore,
		IdleTimeoutMs: t.IdleTimeoutMs, WriteTimeoutMs: t.WriteTimeoutMs, DropAtMs: append([]int64(nil), t.DropAtMs...)}
}

// Sim turns a YAML caller into sim's: the profile's knobs first, then every
// knob the file sets (contract §4).
func (cl CallerSpec) Sim() sim.CallerSpec {
	cs := sim.CallerSpec{Name: cl.Name, Tool: cl.Tool, StartMs: cl.StartMs, Follow: cl.Follow, MaxCalls: cl.MaxCalls,
		Args: map[string]any{}, Transport: cl.Transport.Sim(), Profile: cl.Profile,
		OnTransportFailure: sim.FailureAction(cl.OnTransportFailure)}
	if p, ok := sim.Profiles[cl.Profile]; ok {
		cs.RequestTimeoutMs, cs.Progress, cs.ResetOnProgress, cs.Client = p.RequestTimeoutMs, p.Progress, p.ResetOnProgress, p.Client
	}
	if cl.Progress != nil {
		cs.Progress = *cl.Progress
	}
	if cl.ResetOnProgress != nil {
		cs.ResetOnProgress = *cl.ResetOnProgress
	}
	if t := cl.RequestTimeoutMs; t != nil {
		cs.RequestTimeoutMs = t.Ms
		if t.None {
			cs.RequestTimeoutMs = -1
		}
	}
	for k, v := range cl.Args {
		cs.Args[k] = jsonValue(v)
	}
	return cs
}

// DefaultTimeout reports whether a caller's profile (if any) keeps the
// default 60000 ms request timeout.
func (cl CallerSpec) DefaultTimeout() bool {
	p, ok := sim.Profiles[cl.Profile]
	return !ok || p.RequestTimeoutMs == sim.DefaultRequestTimeoutMs
}

// World is the generic part of case c's world: its name, callers (Sim),
// transport, horizon and seed. The pack that runs c sets the rest (the
// tool, its clock, its rules).
func (c *Case) World() sim.World {
	sc := c.Scenario
	w := sim.World{Name: c.ID, HorizonMs: sc.HorizonMs, Seed: uint64(sc.Seed), Transport: sc.Transport.Sim()}
	for _, cl := range sc.Callers {
		w.Callers = append(w.Callers, cl.Sim())
	}
	return w
}

// Caller returns the caller of c named name, and whether there is one.
func (c *Case) Caller(name string) (CallerSpec, bool) {
	for _, cl := range c.Scenario.Callers {
		if cl.Name == name {
			return cl, true
		}
	}
	return CallerSpec{}, false
}
