package waitagents

import (
	"fmt"
	"strings"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// retried reports whether the call after s is the caller's retry after a
// transport failure (contract §4).
func retried(spec scenario.CallerSpec, s results.CallSummary) bool {
	return spec.OnTransportFailure == string(sim.FailRetry) && s.Lost && s.LostBy != "" && s.LostBy != sim.LostByTimeout
}

// capOf is the per-call cap in case c: the case's capMs (a replay of an
// earlier version), else the contract's.
func (p *Pack) capOf(c *scenario.Case) int64 {
	if c.Scenario.CapMs > 0 {
		return c.Scenario.CapMs
	}
	return p.contract().CapMs
}

// transportLoss returns why a call lost to the transport breaks
// transport-keeps-replies, or "". The rule holds for a tool whose cap is the
// contract's 30 s or less: its reply (or a byte) always comes within 60 s.
func (p *Pack) transportLoss(c *scenario.Case, s results.CallSummary) string {
	if !s.Lost || s.LostBy == "" || (s.LostBy == sim.LostByTimeout && s.CutBy == "") || strings.HasPrefix(s.LostBy, sim.LostBySession) ||
		p.capOf(c) != p.contract().CapMs || p.contract().CapMs > ReferenceContract.CapMs {
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
