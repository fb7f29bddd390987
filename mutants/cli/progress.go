package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// Progress reports mutants as they finish: on a terminal one line rewritten
// in place ("[12/80] 15% ETA 1m05s  killed no-cap"), elsewhere (CI logs) one
// plain line per mutant.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	total int
	n     int
	start time.Time
}

// NewProgress reports the total mutants of a campaign to w (nil: nowhere),
// on a terminal when tty (campaign.Config.Progress, TTY).
func NewProgress(w io.Writer, tty bool, total int) *Progress {
	return &Progress{w: w, tty: tty, total: total, start: time.Now()}
}

// Done reports mutant r finished.
func (p *Progress) Done(r verdict.MutantResult) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	eta := "?"
	if el := time.Since(p.start); p.n > 0 {
		eta = (el / time.Duration(p.n) * time.Duration(p.total-p.n)).Round(time.Second).String()
	}
	how := fmt.Sprintf("%.1fs build + run", float64(r.DurationMs)/1000)
	if r.DurationMs < 1000 {
		how = fmt.Sprintf("%d ms build + run", r.DurationMs) // a kill in a few ms read as 0.0s
	}
	if r.Cached {
		how = "cached"
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K[%d/%d] %3d%% ETA %s  %s %s", p.n, p.total, p.n*100/max(1, p.total), eta, r.Status, r.ID)
		return
	}
	fmt.Fprintf(p.w, "[%d/%d] %-23s %s (%s)%s\n", p.n, p.total, r.Status, r.ID, how, killedHow(r))
}

// killedHow ends a killed mutant's log line: " by" its killers, or, when
// the test binary failed outside any test (a panic at init or in a
// package-level var, before any test ran), " by a panic outside any test: "
// and the panic's first line, else " — " and the first line of its detail
// (the binary's exit outside any test, or the mutant whose verdict it
// shares). "" for a mutant that was not killed.
func killedHow(r verdict.MutantResult) string {
	switch {
	case len(r.KilledBy) > 0:
		return " by " + strings.Join(verdict.First(r.KilledBy, 3), ", ")
	case r.Status != verdict.StatusKilled:
		return ""
	}
	for _, l := range strings.Split(r.Detail, "\n") {
		if what, ok := strings.CutPrefix(strings.TrimSpace(l), "panic: "); ok {
			return " by a panic outside any test: " + what
		}
	}
	return " — " + verdict.FirstLine(r.Detail)
}

// Finish ends the report: the terminal's line is left complete.
func (p *Progress) Finish() {
	if p.w != nil && p.tty && p.n > 0 {
		fmt.Fprintln(p.w)
	}
}
