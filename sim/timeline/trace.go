package timeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Entry is one line of a trace: what Actor did at virtual time AtMs (ms), during
// kernel step Step.
type Entry struct {
	AtMs    int64  `json:"atMs"`
	Step    uint64 `json:"step"`
	Actor   string `json:"actor"`
	Text    string `json:"text"`
	side    bool   // a side lane entry (see Trace)
	byActor bool   // ordered by actor within its instant and step (see Trace)
	n       uint64 // order: global on the main lane, per actor on a side lane
}

// Trace is the ordered record of a world run: the unit of determinism.
//
// Within one kernel step, the work set off by the step's action is one causal
// chain (tool, bridge, caller call and reply), recorded in the order it
// happens: the main lane. The one thing that runs beside it is a caller
// receiving a progress notification; those entries go to a side lane, placed
// after the step's main lane and ordered by actor, so the goroutine scheduler
// can never reorder a trace. Entries are ordered by (virtual time, step, lane,
// order).
//
// When the kernel follows the bubble's clock (a world's ClockBubble), the
// tools' own timers due at one instant wake their goroutines at once, beside
// each other: entries of one instant and step are then ordered by actor, and
// each actor's in the order it made them.
type Trace struct {
	k       *Kernel
	mu      sync.Mutex
	entries []Entry
	counts  map[string]uint64
	byActor bool
	full    bool // MaxTraceEntries reached: the world was failed
}

// Addf appends a main-lane entry for actor at the current virtual time.
func (tr *Trace) Addf(actor, format string, args ...any) { tr.add(false, actor, format, args...) }

// SideAddf appends a side-lane entry (see Trace) for actor.
func (tr *Trace) SideAddf(actor, format string, args ...any) { tr.add(true, actor, format, args...) }

func (tr *Trace) add(side bool, actor, format string, args ...any) {
	tr.mu.Lock()
	if len(tr.entries) >= MaxTraceEntries {
		first := !tr.full
		tr.full = true
		tr.mu.Unlock()
		if first {
			tr.k.fail(fmt.Errorf("%w (%d entries, each kept in memory until the case ends: make the case do less virtual work, "+
				"with fewer callers, calls or polls, or less virtual time); it filled", ErrTraceFull, MaxTraceEntries))
		}
		return
	}
	defer tr.mu.Unlock()
	if tr.counts == nil {
		tr.counts = map[string]uint64{}
	}
	key := ""
	if side || tr.byActor {
		key = actor
	}
	tr.counts[key]++
	tr.entries = append(tr.entries, Entry{
		AtMs: tr.k.NowMs(), Step: tr.k.Step(), Actor: OneLine(actor),
		Text: OneLine(fmt.Sprintf(format, args...)), side: side, byActor: tr.byActor, n: tr.counts[key],
	})
}

// OneLine is s as one line of a timeline: a line break, a control
// character, a Unicode format character (a bidi override, a zero-width
// one) and a byte that is not UTF-8 written as an escape (\n, \x1b,
// \u202e, a tab as \t), so that no text a tool returns (its error message,
// say) can start a line of its own, move the cursor or reorder what a
// terminal, a log or a report shows, and each such character is named.
func OneLine(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\n':
			b.WriteString("\\n")
		case r == '\r':
			b.WriteString("\\r")
		case r == '\t':
			b.WriteString("\\t")
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Entries returns the entries in trace order.
func (tr *Trace) Entries() []Entry {
	tr.mu.Lock()
	out := append([]Entry(nil), tr.entries...)
	tr.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.AtMs != b.AtMs {
			return a.AtMs < b.AtMs
		}
		if a.Step != b.Step {
			return a.Step < b.Step
		}
		if a.side != b.side {
			return !a.side
		}
		if (a.side || a.byActor) && a.Actor != b.Actor {
			return a.Actor < b.Actor
		}
		return a.n < b.n
	})
	return out
}

// String renders the trace as a timeline, one entry a line:
// "<virtual ms> <actor> <text>".
func (tr *Trace) String() string { return FormatEntries(tr.Entries()) }

// FormatEntries renders entries as Trace.String does.
func FormatEntries(es []Entry) string {
	var b strings.Builder
	n := 0
	for _, e := range es {
		n += 32 + len(e.Actor) + len(e.Text)
	}
	b.Grow(n)
	for _, e := range es {
		fmt.Fprintf(&b, "%9d ms  %-10s %s\n", e.AtMs, e.Actor, e.Text)
	}
	return b.String()
}

// Hash is the hex SHA-256 of String: equal hashes mean identical traces.
func (tr *Trace) Hash() string { return HashTimeline(tr.String()) }

// HashTimeline is the hex SHA-256 of a rendered timeline (FormatEntries):
// HashTimeline(tr.String()) == tr.Hash().
func HashTimeline(timeline string) string {
	h := sha256.New()
	_, _ = io.WriteString(h, timeline)
	return hex.EncodeToString(h.Sum(nil))
}
