package mutants

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress reports mutants as they finish: on a terminal one line rewritten
// in place ("[12/80] 15% ETA 1m05s  killed no-cap"), elsewhere (CI logs) one
// plain line per mutant.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	total int
	n     int
	start time.Time
}

func newProgress(w io.Writer, tty bool, total int) *progress {
	return &progress{w: w, tty: tty, total: total, start: time.Now()}
}

func (p *progress) done(r MutantResult) {
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
	if r.Cached {
		how = "cached"
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K[%d/%d] %3d%% ETA %s  %s %s", p.n, p.total, p.n*100/max(1, p.total), eta, r.Status, r.ID)
		return
	}
	by := ""
	if len(r.KilledBy) > 0 {
		by = " by " + strings.Join(first(r.KilledBy, 3), ", ")
	}
	fmt.Fprintf(p.w, "[%d/%d] %-23s %s (%s)%s\n", p.n, p.total, r.Status, r.ID, how, by)
}

func (p *progress) finish() {
	if p.w != nil && p.tty && p.n > 0 {
		fmt.Fprintln(p.w)
	}
}
