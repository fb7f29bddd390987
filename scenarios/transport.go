package scenarios

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/waittool"
)

// TransportSpec is the YAML form of sim.TransportSpec: the transport between
// a caller and the tool and what sits between them (contract §6). Times in
// virtual ms; 0 means none.
type TransportSpec struct {
	Mode           string  `json:"mode,omitempty" yaml:"mode,omitempty" jsonschema:"memory (default): the SDK's in-memory transport; sse, json, stateless-sse, stateless-json: the SDK's streamable HTTP handler and client over an in-memory network"`
	Protocol       string  `json:"protocol,omitempty" yaml:"protocol,omitempty" jsonschema:"the protocol version the caller asks for: 2025-11-25 or 2026-07-28; default: the SDK's (2026-07-28); a stateful handler answers 2026-07-28 with 2025-11-25"`
	EventStore     bool    `json:"eventStore,omitempty" yaml:"eventStore,omitempty" jsonschema:"give the handler an EventStore: under 2025-11-25 a client resumes a cut SSE stream 1000 ms after the cut"`
	IdleTimeoutMs  int64   `json:"idleTimeoutMs,omitempty" yaml:"idleTimeoutMs,omitempty" jsonschema:"a reverse proxy cuts a response that sent no byte for this long (504 before its headers); 0: no proxy"`
	WriteTimeoutMs int64   `json:"writeTimeoutMs,omitempty" yaml:"writeTimeoutMs,omitempty" jsonschema:"the server's write timeout: a write at or after the request's arrival plus this fails and closes the connection; 0: none"`
	DropAtMs       []int64 `json:"dropAtMs,omitempty" yaml:"dropAtMs,omitempty" jsonschema:"virtual instants at which the caller's connections drop (every open response is cut)"`
}

// Transport modes, protocol versions, client profiles and failure actions a
// scenario may name (enums of the loader and of scenarios/schema.json).
var (
	transportModes     = modeNames()
	protocolVersions   = []string{sim.Protocol20251125, sim.Protocol20260728}
	profileNames       = sim.ProfileNames()
	onTransportFailure = []string{string(sim.FailThrow), string(sim.FailRetry)}
)

func modeNames() []string {
	var out []string
	for _, m := range sim.Modes {
		out = append(out, string(m))
	}
	return out
}

// enumFields maps a field name to the values it may take.
var enumFields = map[string][]string{
	"mode":               transportModes,
	"protocol":           protocolVersions,
	"profile":            profileNames,
	"onTransportFailure": onTransportFailure,
}

// sim turns the YAML form into sim's; nil stays nil.
func (t *TransportSpec) sim() *sim.TransportSpec {
	if t == nil {
		return nil
	}
	return &sim.TransportSpec{Mode: sim.TransportMode(t.Mode), Protocol: t.Protocol, EventStore: t.EventStore,
		IdleTimeoutMs: t.IdleTimeoutMs, WriteTimeoutMs: t.WriteTimeoutMs, DropAtMs: append([]int64(nil), t.DropAtMs...)}
}

// validateTransport checks the transports of sc (the scenario's and each
// caller's) beyond their types: a knob that needs an HTTP mode.
func validateTransport(sc *Scenario, n ast.Node) []error {
	var errs []error
	check := func(t *TransportSpec, path ...any) {
		if err := t.sim().Validate(); err != nil {
			errs = append(errs, nodeErr(locate(n, path...), fieldPath(path), "%v", err))
		}
	}
	check(sc.Transport, "transport")
	for i, c := range sc.Callers {
		check(c.Transport, "callers", i, "transport")
	}
	if sc.CapMs != 0 && sc.CapMs < 1000 {
		errs = append(errs, nodeErr(locate(n, "capMs"), "capMs", "want at least 1000 ms (or leave it out: 30000)"))
	}
	return errs
}

func fieldPath(path []any) string {
	s := ""
	for _, p := range path {
		switch v := p.(type) {
		case string:
			if s != "" {
				s += "."
			}
			s += v
		case int:
			s += fmt.Sprintf("[%d]", v)
		}
	}
	return s
}

// callerSpec turns a YAML caller into sim's: the profile's knobs first, then
// every knob the file sets (contract §4).
func callerSpec(cl CallerSpec) sim.CallerSpec {
	cs := sim.CallerSpec{Name: cl.Name, StartMs: cl.StartMs, Follow: cl.Follow, MaxCalls: cl.MaxCalls,
		Args: map[string]any{}, Transport: cl.Transport.sim(), Profile: cl.Profile,
		OnTransportFailure: sim.FailureAction(cl.OnTransportFailure)}
	if p, ok := sim.Profiles[cl.Profile]; ok {
		cs.RequestTimeoutMs, cs.Progress, cs.ResetOnProgress = p.RequestTimeoutMs, p.Progress, p.ResetOnProgress
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

// WireDims are the dimensions of the survival matrix for one call: the
// tool's cap, whether the caller sent a progress token, the transport mode,
// the proxy's idle timeout (0: none) and the caller's profile ("" when none).
type WireDims struct {
	CapMs     int64  `json:"capMs"`
	Progress  bool   `json:"progress,omitempty"`
	Mode      string `json:"mode"`
	ProxyMs   int64  `json:"proxyMs,omitempty"`
	Profile   string `json:"profile,omitempty"`
	Transport string `json:"transport"` // sim.TransportSpec.Label
}

// capOf is the tool's per-call cap in case c.
func capOf(c *Case) int64 {
	if c.Scenario.CapMs > 0 {
		return c.Scenario.CapMs
	}
	return waittool.CallCapMs
}

// annotateWire fills each call's LostBy and Wire.
func annotateWire(c *Case, calls []CallSummary, res *sim.Result) {
	w := c.World()
	specs := map[string]sim.CallerSpec{}
	for _, cs := range w.Callers {
		specs[cs.Name] = cs
	}
	for i := range calls {
		s := &calls[i]
		if cr := res.Call(s.Caller, s.Index); cr != nil {
			s.LostBy, s.WireDelayMs = cr.LostBy, cr.WireDelayMs
		}
		spec := specs[s.Caller]
		t := spec.Transport
		if t == nil {
			t = w.Transport
		}
		d := &WireDims{CapMs: capOf(c), Progress: spec.Progress || spec.ResetOnProgress, Mode: string(sim.ModeMemory),
			Profile: spec.Profile, Transport: t.Label()}
		if t.HTTP() {
			d.Mode, d.ProxyMs = string(t.Mode), t.IdleTimeoutMs
		}
		s.Wire = d
	}
}

// retried reports whether the call after s is the caller's retry after a
// transport failure (contract §4).
func retried(spec CallerSpec, s CallSummary) bool {
	return spec.OnTransportFailure == string(sim.FailRetry) && s.Lost && s.LostBy != "" && s.LostBy != sim.LostByTimeout
}

// defaultTimeout reports whether a caller's profile (if any) keeps the
// default 60000 ms request timeout.
func defaultTimeout(cl CallerSpec) bool {
	p, ok := sim.Profiles[cl.Profile]
	return !ok || p.RequestTimeoutMs == sim.DefaultRequestTimeoutMs
}

// transportLoss returns why a call lost to the transport breaks
// transport-keeps-replies, or "".
func transportLoss(c *Case, s CallSummary) string {
	if !s.Lost || s.LostBy == "" || s.LostBy == sim.LostByTimeout || strings.HasPrefix(s.LostBy, sim.LostBySession) || capOf(c) != waittool.CallCapMs {
		return ""
	}
	w := c.World()
	var t *sim.TransportSpec
	for _, cs := range w.Callers {
		if cs.Name == s.Caller {
			t = cs.Transport
		}
	}
	if t == nil {
		t = w.Transport
	}
	if t == nil || len(t.DropAtMs) > 0 || (t.IdleTimeoutMs > 0 && t.IdleTimeoutMs < 60000) || (t.WriteTimeoutMs > 0 && t.WriteTimeoutMs < 60000) {
		return ""
	}
	return fmt.Sprintf("lost at %d ms to the transport (%s) over %s", s.EndMs, s.LostBy, t.Label())
}
