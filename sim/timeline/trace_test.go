package timeline

import (
	"errors"
	"testing"
	"testing/synctest"
)

// TestTraceFull: a world that adds one entry past MaxTraceEntries ends with
// ErrTraceFull at its next step, and the trace holds no more than the
// bound; a world that stays at the bound runs to its end.
func TestTraceFull(t *testing.T) {
	for _, c := range []struct {
		adds int
		full bool
	}{{MaxTraceEntries, false}, {MaxTraceEntries + 1, true}} {
		synctest.Test(t, func(t *testing.T) {
			k := NewKernel(10_000)
			done := false
			k.At(0, "fill", func() {
				for i := 0; i < c.adds; i++ {
					k.Trace.Addf("actor", "entry %d", i)
				}
			})
			k.At(1, "end", func() { done = true })
			err := k.Run(func() bool { return done })
			if full := errors.Is(err, ErrTraceFull); full != c.full || (!c.full && err != nil) {
				t.Errorf("%d entries added: Run returned %v, want ErrTraceFull %t", c.adds, err, c.full)
			}
			if n := len(k.Trace.Entries()); n != MaxTraceEntries {
				t.Errorf("%d entries added: the trace holds %d, want %d", c.adds, n, MaxTraceEntries)
			}
		})
	}
}

// TestOneLine: what a tool returns cannot break a timeline's lines or
// reach a terminal as control: line breaks, control characters, Unicode
// format characters (bidi overrides) and bytes that are not UTF-8 are
// escaped, a tab too; printable text and other scripts stay as they are.
func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, wörld ✓":             "plain text, wörld ✓",
		"tab\there":                       `tab\there`,
		"boom\x1b[31mRED\r\nPASS  forged": `boom\x1b[31mRED\r\nPASS  forged`,
		"bell\a del\x7f":                  `bell\x07 del\x7f`,
		"rtl\u202eevil\u200b":             `rtl\u202eevil\u200b`,
		"bad \xff\xfe utf8":               `bad \xff\xfe utf8`,
		"c1 \u0085 next line":             `c1 \u0085 next line`,
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTraceEntriesOneLine: every entry a world records is one line
// (OneLine), whatever text went into it.
func TestTraceEntriesOneLine(t *testing.T) {
	k := NewKernel(1000)
	k.Trace.Addf("caller:a\n", "call 1: error result: %s", "boom\x1b[31m\r\nPASS")
	e := k.Trace.Entries()[0]
	if e.Text != `call 1: error result: boom\x1b[31m\r\nPASS` || e.Actor != `caller:a\n` {
		t.Errorf("entry %q by %q, want it on one line, escaped", e.Text, e.Actor)
	}
}
