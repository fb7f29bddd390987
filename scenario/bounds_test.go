package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/waitsim/waitsim/results"
)

// measured runs f and returns its wall time and the bytes it allocated.
func measured(f func()) (time.Duration, uint64) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	f()
	el := time.Since(start)
	runtime.ReadMemStats(&m1)
	return el, m1.TotalAlloc - m0.TotalAlloc
}

// TestNonRegularFilesRefused (issue 20 item 2): a FIFO, a device or a
// directory given as a scenario file is refused by what it is, at once.
// Before: a FIFO named *.yaml hung `waitsim run DIR` (and Load) until
// something wrote to it, and /dev/zero was "0 bytes, more than the limit".
func TestNonRegularFilesRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(okFile), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	type result struct {
		cases []Case
		err   error
	}
	done := make(chan result, 1)
	go func() {
		cases, err := loadRef([]string{dir})
		done <- result{cases, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil { // lets the blocked open return
			f.Close()
		}
		<-done
		t.Fatal("Load of a directory holding a FIFO named *.yaml hung")
	}
	want := fifo + ":1:1: file: is a named pipe (FIFO), not a regular file"
	var fe *results.FileError
	if !errors.As(r.err, &fe) || len(fe.Problems) != 1 || !strings.HasPrefix(fe.Problems[0].String(), want) {
		t.Fatalf("got %d cases, %v; want one problem %s…", len(r.cases), r.err, want)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, problems := loadFileRef("/dev/zero")
		if want := "/dev/zero:1:1: file: is a character device, not a regular file"; len(problems) != 1 || !strings.HasPrefix(problems[0], want) {
			t.Errorf("/dev/zero: %q, want %s…", problems, want)
		}
	}
	_, problems := loadFileRef(dir)
	if want := dir + ":1:1: file: is a directory, not a regular file"; len(problems) != 1 || !strings.HasPrefix(problems[0], want) {
		t.Errorf("a directory: %q, want %s…", problems, want)
	}
}

// TestByteOrderMark (issue 20 item 2): a UTF-8 byte order mark opening a
// file is read as YAML reads it, as nothing, and the file loads; a UTF-16
// one is named. Before: the mark glued itself to the first line, and a
// valid file was refused as missing protects (and the mark made its
// comment an unknown field).
func TestByteOrderMark(t *testing.T) {
	_, cases, problems := loadSrc(t, "\ufeff"+okFile)
	if len(problems) != 0 || len(cases) != 1 || cases[0].Protects != "nothing, a fixture" {
		t.Errorf("a UTF-8 BOM: %d cases, %q", len(cases), problems)
	}
	file, _, problems := loadSrc(t, "\xff\xfe#\x00 \x00p\x00")
	if want := file + ":1:1: file: byte 0xff is not UTF-8 text: the file starts with a UTF-16 byte order mark"; len(problems) != 1 || !strings.HasPrefix(problems[0], want) {
		t.Errorf("a UTF-16 BOM: %q, want %s…", problems, want)
	}
}

// TestIntegerOutOfRange (issue 20 item 2): an integer too large for 64
// bits is named as one, wherever it is, not "a string". Before: "want an
// integer; got string".
func TestIntegerOutOfRange(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"horizonMs: 99999999999999999999999\n", ":3:12: horizonMs: integer 99999999999999999999999 is out of range"},
		{"horizonMs: -99999999999999999999999\n", ":3:12: horizonMs: integer -99999999999999999999999 is out of range"},
		{"bridge: {list: [99999999999999999999999]}\n", ":3:17: bridge.list[0]: integer 99999999999999999999999 is out of range"},
		{"description: ${p}\nmatrix: {p: [18446744073709551616]}\n", ":4:14: matrix.p[0]: integer 18446744073709551616 is out of range"},
	} {
		file, cases, problems := loadSrc(t, "# protects: x\nname: a\n"+tc.src+"callers:\n  - name: A\n    args: {timeoutMs: 30000}\n")
		if len(cases) != 0 || len(problems) != 1 || !strings.HasPrefix(problems[0], file+tc.want) {
			t.Errorf("%q: %d cases, %q; want %s…", tc.src, len(cases), problems, tc.want)
		}
	}
	// In args, the tool's input schema names it (TestLoaderRulesFire,
	// args-beyond-int64).
	// Quoted, it is a string, as before.
	if _, _, problems := loadSrc(t, "# protects: x\nname: a\nhorizonMs: \"99999999999999999999999\"\ncallers:\n  - name: A\n"); len(problems) != 1 || !strings.Contains(problems[0], "want an integer; got string") {
		t.Errorf("quoted: %q", problems)
	}
}
