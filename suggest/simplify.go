package suggest

import (
	"maps"
	"slices"

	"github.com/waitsim/waitsim/scenario"
)

// simplify lists the worlds one step simpler than w, the largest steps
// first: no HTTP transport, a caller fewer, a roster change fewer, exact
// timers, an instant bridge, a bridge step fewer, an agent fewer, fewer or
// shorter messages, plainer bridge steps, fewer caller knobs and arguments.
// Each candidate is a fresh copy (w is never changed); some may not load
// (a change naming a removed agent): the search drops those.
func simplify(w scenario.Scenario) []scenario.Scenario {
	var out []scenario.Scenario
	add := func(edit func(c *scenario.Scenario)) {
		c := clone(w)
		edit(&c)
		out = append(out, c)
	}
	if w.Transport != nil {
		add(func(c *scenario.Scenario) { c.Transport = nil })
	}
	for i := range w.Callers {
		if len(w.Callers) > 1 {
			add(func(c *scenario.Scenario) { c.Callers = slices.Delete(c.Callers, i, i+1) })
		}
	}
	for i := range w.Changes {
		add(func(c *scenario.Scenario) { c.Changes = slices.Delete(c.Changes, i, i+1) })
	}
	if w.Timers != nil {
		add(func(c *scenario.Scenario) { c.Timers = nil })
	}
	if w.Seed != 0 {
		add(func(c *scenario.Scenario) { c.Seed = 0 })
	}
	if b := w.Bridge; b != nil {
		add(func(c *scenario.Scenario) { c.Bridge = nil })
		for i := range b.List {
			add(func(c *scenario.Scenario) { c.Bridge.List = slices.Delete(c.Bridge.List, i, i+1) })
		}
		for i := range b.Read {
			add(func(c *scenario.Scenario) { c.Bridge.Read = slices.Delete(c.Bridge.Read, i, i+1) })
		}
		for i := range b.Congestion {
			add(func(c *scenario.Scenario) { c.Bridge.Congestion = slices.Delete(c.Bridge.Congestion, i, i+1) })
		}
		if b.JitterMs != 0 {
			add(func(c *scenario.Scenario) { c.Bridge.JitterMs = 0 })
		}
		if b.TimeoutMs != nil {
			add(func(c *scenario.Scenario) { c.Bridge.TimeoutMs = nil })
		}
		if b.CacheMs != nil {
			add(func(c *scenario.Scenario) { c.Bridge.CacheMs = nil })
		}
	}
	for i := range w.Agents {
		if len(w.Agents) > 1 {
			add(func(c *scenario.Scenario) { c.Agents = slices.Delete(c.Agents, i, i+1) })
		}
	}
	msgs := func(get func(c *scenario.Scenario) *[]string, ms []string) {
		if len(ms) > 0 {
			add(func(c *scenario.Scenario) { *get(c) = nil })
		}
		if len(ms) > 3 { // halves first: an agent may have a hundred messages
			add(func(c *scenario.Scenario) { *get(c) = slices.Clone((*get(c))[:len(ms)/2]) })
			add(func(c *scenario.Scenario) { *get(c) = slices.Clone((*get(c))[len(ms)/2:]) })
		}
		if len(ms) > 1 {
			for j := range ms {
				add(func(c *scenario.Scenario) { *get(c) = slices.Delete(*get(c), j, j+1) })
			}
		}
		for j, m := range ms {
			if r := []rune(m); len(r) > 1 {
				add(func(c *scenario.Scenario) { (*get(c))[j] = string(r[:len(r)/2]) })
			}
		}
	}
	for i, a := range w.Agents {
		msgs(func(c *scenario.Scenario) *[]string { return &c.Agents[i].Messages }, a.Messages)
	}
	for i, ch := range w.Changes {
		msgs(func(c *scenario.Scenario) *[]string { return &c.Changes[i].Messages }, ch.Messages)
	}
	if b := w.Bridge; b != nil {
		for i, st := range b.Read {
			if st.Outputs != nil {
				add(func(c *scenario.Scenario) { c.Bridge.Read[i].Outputs = nil })
				for j, o := range st.Outputs {
					add(func(c *scenario.Scenario) {
						c.Bridge.Read[i].Outputs = slices.Delete(c.Bridge.Read[i].Outputs, j, j+1)
					})
					msgs(func(c *scenario.Scenario) *[]string { return &c.Bridge.Read[i].Outputs[j].Messages }, o.Messages)
				}
			}
		}
		steps := func(get func(c *scenario.Scenario) []scenario.Step, ss []scenario.Step) {
			for i, st := range ss {
				if st.Error != "" {
					add(func(c *scenario.Scenario) { get(c)[i].Error = "" })
				}
				if st.Reject {
					add(func(c *scenario.Scenario) { get(c)[i].Reject = false })
				}
				if st.Stall {
					add(func(c *scenario.Scenario) { get(c)[i].Stall = false })
				}
				if st.LatencyMs != 0 {
					add(func(c *scenario.Scenario) { get(c)[i].LatencyMs = 0 })
				}
			}
		}
		steps(func(c *scenario.Scenario) []scenario.Step { return c.Bridge.List }, b.List)
		steps(func(c *scenario.Scenario) []scenario.Step { return c.Bridge.Read }, b.Read)
	}
	for i, cl := range w.Callers {
		if cl.Follow {
			add(func(c *scenario.Scenario) { c.Callers[i].Follow = false })
		}
		if cl.Progress != nil {
			add(func(c *scenario.Scenario) { c.Callers[i].Progress = nil })
		}
		if cl.Profile != "" {
			add(func(c *scenario.Scenario) { c.Callers[i].Profile = "" })
		}
		if cl.OnTransportFailure != "" {
			add(func(c *scenario.Scenario) { c.Callers[i].OnTransportFailure = "" })
		}
		if cl.StartMs != 0 {
			add(func(c *scenario.Scenario) { c.Callers[i].StartMs = 0 })
		}
		for _, k := range slices.Sorted(maps.Keys(cl.Args)) {
			add(func(c *scenario.Scenario) { delete(c.Callers[i].Args, k) })
		}
	}
	for i, a := range w.Agents {
		if a.State != "running" {
			add(func(c *scenario.Scenario) { c.Agents[i].State = "running" })
		}
	}
	return out
}

// clone is a deep copy of w, as far as simplify edits it.
func clone(w scenario.Scenario) scenario.Scenario {
	c := w
	if w.Transport != nil {
		t := *w.Transport
		c.Transport = &t
	}
	if w.Timers != nil {
		t := *w.Timers
		c.Timers = &t
	}
	c.Callers = slices.Clone(w.Callers)
	for i := range c.Callers {
		c.Callers[i].Args = maps.Clone(w.Callers[i].Args)
	}
	c.Changes = slices.Clone(w.Changes)
	for i := range c.Changes {
		c.Changes[i].Messages = slices.Clone(w.Changes[i].Messages)
	}
	c.Agents = slices.Clone(w.Agents)
	for i := range c.Agents {
		c.Agents[i].Messages = slices.Clone(w.Agents[i].Messages)
	}
	if w.Bridge != nil {
		b := *w.Bridge
		b.List = slices.Clone(w.Bridge.List)
		b.Read = slices.Clone(w.Bridge.Read)
		for i := range b.Read {
			b.Read[i].Outputs = slices.Clone(w.Bridge.Read[i].Outputs)
			for j := range b.Read[i].Outputs {
				b.Read[i].Outputs[j].Messages = slices.Clone(w.Bridge.Read[i].Outputs[j].Messages)
			}
		}
		b.Congestion = slices.Clone(w.Bridge.Congestion)
		c.Bridge = &b
	}
	c.Expect = nil
	return c
}
