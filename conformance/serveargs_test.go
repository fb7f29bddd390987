package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/sim"
)

// The servers a run starts follow the case's transport: with
// `transport: {eventStore: true}` every HTTP server keeps an event store
// (--event-store=true), without it none does (--event-store=false: the
// world whose cut streams no client can resume), as the simulation's
// handler does for the same case; stdio has none to keep. Callers whose
// own transports disagree with the case's cannot share one server.
func TestServeArgsFollowTheCase(t *testing.T) {
	withStore := scenario.Case{ID: "s", File: "/f.yaml", Scenario: scenario.Scenario{
		Transport: &scenario.TransportSpec{Mode: "sse", Protocol: "2025-11-25", EventStore: true},
		Callers:   []scenario.CallerSpec{{Name: "A"}}}}
	without := scenario.Case{ID: "n", File: "/f.yaml", Scenario: scenario.Scenario{Callers: []scenario.CallerSpec{{Name: "A"}}}}
	// A case with a transport: runs over its own mode (wireJobs); a plain
	// case over each of the runner's transports.
	wire := func(c scenario.Case, mode sim.TransportMode) job {
		return job{c: c, transport: string(mode), mode: mode, eventStore: c.Scenario.Transport.EventStore}
	}
	plain := func(c scenario.Case, transport string) job { return job{c: c, transport: transport} }
	for _, tc := range []struct {
		j    job
		want []string
	}{
		{wire(withStore, sim.ModeSSE), []string{"serve", "/f.yaml", "--case", "s", "--probe", "--http", "127.0.0.1:0", "--event-store=true"}},
		{wire(withStore, sim.ModeJSON), []string{"serve", "/f.yaml", "--case", "s", "--probe", "--http", "127.0.0.1:0", "--event-store=true", "--json-response"}},
		{wire(withStore, sim.ModeStatelessJSON), []string{"serve", "/f.yaml", "--case", "s", "--probe", "--http", "127.0.0.1:0", "--event-store=false", "--json-response", "--stateless"}},
		{plain(withStore, TransportStdio), []string{"serve", "/f.yaml", "--case", "s", "--probe"}},
		{plain(without, TransportSSE), []string{"serve", "/f.yaml", "--case", "n", "--probe", "--http", "127.0.0.1:0", "--event-store=false"}},
		{plain(without, TransportJSON), []string{"serve", "/f.yaml", "--case", "n", "--probe", "--http", "127.0.0.1:0", "--event-store=false", "--json-response"}},
	} {
		got, err := serveArgs(tc.j)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("case %s over %s: %q, %v; want %q", tc.j.c.ID, tc.j.transport, got, err, tc.want)
		}
	}
	mixed := without
	mixed.Scenario.Callers = []scenario.CallerSpec{{Name: "A"}, {Name: "B", Transport: &scenario.TransportSpec{Mode: "sse", EventStore: true}}}
	if _, err := serveArgs(plain(mixed, TransportSSE)); err == nil || !strings.Contains(err.Error(), "caller B's transport says eventStore: true") {
		t.Errorf("callers that disagree on the event store: %v, want an error naming the caller", err)
	}
	if _, err := Run(t.Context(), Options{Cases: []scenario.Case{mixed}, Sim: map[string]results.CaseResult{mixed.ID: {}}, Clients: []string{"none"}, Transports: []string{TransportStdio}}); err == nil {
		t.Error("Run took a case whose callers disagree on the event store")
	}
}
