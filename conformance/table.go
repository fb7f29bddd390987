package conformance

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// PrintTable writes the "simulation vs real" table: one row per client,
// transport and proxy leg, then each disagreeing call with its mismatches.
func PrintTable(w io.Writer, rep *Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tTRANSPORT\tPROXY\tRUNS\tCALLS\tDISAGREE\tLOST OUTPUTS\tMAX |REAL−SIM| (ms)")
	for _, p := range rep.Profiles {
		proxy := p.Proxy
		if proxy == "" {
			proxy = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%.1f\n", p.Client, p.Transport, proxy, p.Runs, p.Calls, p.Disagreements, p.LostOutputs, p.MaxAbsDiffMs)
	}
	tw.Flush()
	for _, e := range rep.Results {
		where := fmt.Sprintf("%s %s %s", e.Case, e.Client, e.Transport)
		if e.Proxy != nil {
			where += " via " + e.Proxy.Label()
		}
		if e.Error != "" {
			fmt.Fprintf(w, "%s run %d: %s\n", where, e.Run, e.Error)
		}
		for _, c := range e.Calls {
			if len(c.Mismatches) > 0 {
				fmt.Fprintf(w, "%s run %d, %s#%d: %s\n", where, e.Run, c.Caller, c.Index, strings.Join(c.Mismatches, "; "))
			}
		}
	}
	if n := rep.TiesClientFirst + rep.TiesProxyFirst; n > 0 {
		fmt.Fprintf(w, "ties of the client's timeout and the proxy's: %d, the client's first in %d (the simulation's order), the proxy's in %d\n",
			n, rep.TiesClientFirst, rep.TiesProxyFirst)
	}
	verdict := "every call agrees with the simulation"
	if !rep.Agree {
		verdict = fmt.Sprintf("%d of %d calls disagree with the simulation", rep.Disagreements, rep.Calls)
	}
	fmt.Fprintf(w, "%s (%d runs; %s; largest |real − simulated| %.1f ms; %d real replies lost their outputs; %.0f s)\n",
		verdict, rep.Runs, rep.ToleranceText(), rep.MaxAbsDiffMs, rep.LostOutputs, rep.WallMs/1000)
}

// ToleranceText says how the tolerance was set, e.g. "tolerance max(150 ms
// — 500 ms for the TypeScript client behind a proxy —, 4 × a run's largest
// stall), late by its start lag more; largest stall 12.3 ms, largest start
// lag 40.5 ms".
func (rep *Report) ToleranceText() string {
	return fmt.Sprintf("tolerance max(%.0f ms — %d ms for the TypeScript client behind a proxy —, %.0f × a run's largest stall), late by its start lag more; largest stall %.1f ms, largest start lag %.1f ms",
		rep.ToleranceMs, ProxiedTSToleranceMs, rep.StallFactor, rep.MaxStallMs, rep.MaxStartLagMs)
}
