package scenario

import (
	"errors"
	"fmt"
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

// TestLoadGenerateBounded (issue 20 item 2): what generate: makes waitsim build
// is bounded at load, by messages and by characters summed over a
// scenario's agents. Before: count and chars were bounded only at 10^12
// each, and a 168-byte file crashed `waitsim run` out of memory (a 10^12
// byte allocation).
func TestLoadGenerateBounded(t *testing.T) {
	src := func(gens ...string) string {
		s := "# protects: x\nname: g\nagents:\n"
		for i, g := range gens {
			s += fmt.Sprintf("  - id: a%d\n    state: running\n    generate: %s\n", i, g)
		}
		return s + "callers:\n  - name: A\n    args: {timeoutMs: 30000}\n"
	}
	for _, tc := range []struct {
		name string
		gens []string
		want string // the one problem, after the file name; "" none
	}{
		{"bomb", []string{"{count: 1000000000000, chars: 1000000000000}"}, ":6:15: agents[0].generate: generates 1000000000000 messages"},
		{"at-the-bounds", []string{"{count: 5000, chars: 100}", "{count: 5000, chars: 100}"}, ""},
		{"messages-summed", []string{"{count: 5000, chars: 1}", "{count: 5001, chars: 1}"}, ":9:15: agents[1].generate: generates 10001 messages"},
		{"chars-summed", []string{"{count: 1, chars: 600000}", "{count: 1, chars: 400001}"}, ":9:15: agents[1].generate: generates 1000001 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, cases, problems := loadSrc(t, src(tc.gens...))
			if tc.want == "" {
				if len(problems) != 0 || len(cases) != 1 {
					t.Fatalf("refused: %q", problems)
				}
				return
			}
			if len(cases) != 0 || len(problems) != 1 || !strings.HasPrefix(problems[0], file+tc.want) {
				t.Fatalf("%d cases, problems %q; want one problem %s…", len(cases), problems, tc.want)
			}
		})
	}
}

// TestLoadCallsBounded (issue 20 item 2): the calls a file can make waitsim run
// are bounded at load: each caller counts as the calls it may make (its
// maxCalls, default 50, when it follows or retries; else 1), at most 500 a
// case and 5000 a file. Before: a 11 KB file of 200 followers loaded, and
// `waitsim run` took 33.5 s and 1.3 GB (the issue measured 63 s and 1.5 GB
// for a 16 KB one).
func TestLoadCallsBounded(t *testing.T) {
	callers := func(n int, extra string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "  - {name: c%d, follow: true%s, args: {timeoutMs: 600000}}\n", i, extra)
		}
		return b.String()
	}
	head := "# protects: x\nname: f\nagents: [{id: a, state: running}]\n"
	for _, tc := range []struct {
		name, src string
		want      string
	}{
		{"200-followers", head + "callers:\n" + callers(200, ""), ":5:3: callers: the callers may make 10000 calls in one case"},
		{"10-followers", head + "callers:\n" + callers(10, ""), ""},
		{"11-followers", head + "callers:\n" + callers(11, ""), ":5:3: callers: the callers may make 550 calls in one case"},
		{"and-one-more", head + "callers:\n" + callers(10, "") + "  - {name: z, args: {timeoutMs: 600000}}\n", ":5:3: callers: the callers may make 501 calls in one case"},
		{"maxCalls-lowers-it", head + "callers:\n" + callers(50, ", maxCalls: 10"), ""},
		{"maxCalls-huge", head + "callers:\n" + callers(1, ", maxCalls: 1000000000000"), ":5:3: callers: the callers may make 1000000000000 calls in one case"},
		// 11 cases of 500 calls: 5500 in the file; 10 of them, 5000.
		{"file", head + "description: ${p}\nmatrix:\n  p: [a, b, c, d, e, f, g, h, i, j, k]\ncallers:\n" + callers(10, ""),
			":6:3: matrix: the file's cases may make 5500 calls"},
		{"file-at-the-bound", head + "description: ${p}\nmatrix:\n  p: [a, b, c, d, e, f, g, h, i, j]\ncallers:\n" + callers(10, ""), ""},
		// A second scenario past the file's bound is not reported again.
		{"file-once", "# protects: x\n- name: f\n  agents: [{id: a, state: running}]\n  description: ${p}\n  matrix:\n    p: [a, b, c, d, e, f, g, h, i, j, k]\n  callers:\n" +
			strings.ReplaceAll(callers(10, ""), "  - ", "    - ") + "- name: g\n  callers:\n" + strings.ReplaceAll(callers(10, ""), "  - ", "    - "),
			":6:5: matrix: the file's cases may make 5500 calls"},
		// A caller that retries counts its maxCalls as a follower does.
		{"retries", head + "callers:\n" + strings.ReplaceAll(callers(11, ""), "follow: true", "onTransportFailure: retry"), ":5:3: callers: the callers may make 550 calls in one case"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, cases, problems := loadSrc(t, tc.src)
			if tc.want == "" {
				if len(problems) != 0 || len(cases) == 0 {
					t.Fatalf("refused: %q", problems)
				}
				return
			}
			if len(cases) != 0 || len(problems) != 1 || !strings.HasPrefix(problems[0], file+tc.want) {
				t.Fatalf("%d cases, problems %q; want one problem %s…", len(cases), problems, tc.want)
			}
		})
	}
}

// TestMatrixDuplicateRowsOnce (issue 20 item 2): matrix rows that give one case
// id are one problem, found before any case is built. Before: 1000
// identical rows gave 999 identical problems ("case id … already
// defined"), and `waitsim run` took 4.6 s and 522 MB.
func TestMatrixDuplicateRowsOnce(t *testing.T) {
	rows := "# protects: x\nname: d\nmatrix:\n" + strings.Repeat("  - {t: 30000}\n", 1000) +
		"agents: [{id: a, state: completed}]\ncallers:\n  - name: A\n    args: {timeoutMs: \"${t}\"}\n"
	var file string
	var cases []Case
	var problems []string
	el, alloc := measured(func() { file, cases, problems = loadSrc(t, rows) })
	t.Logf("1000 identical rows: %v, %d KB allocated, %d problems", el.Round(time.Millisecond), alloc>>10, len(problems))
	want := file + `:5:5: matrix[1]: gives case id "d[t=30000]", as matrix[0] does`
	if len(cases) != 0 || len(problems) != 1 || !strings.HasPrefix(problems[0], want) {
		t.Fatalf("%d cases, %d problems (first %q); want one: %s…", len(cases), len(problems), first(problems), want)
	}
	if alloc > 50<<20 {
		t.Errorf("%d MB allocated, want under 50", alloc>>20)
	}
	// Checked once the first case has loaded, before the second is built:
	// the second case's own problem (startMs: x) is never reached.
	src := "# protects: x\nname: d\nmatrix:\n  - {t: 30000, _s: 1}\n  - {t: 30000, _s: x}\nagents: [{id: a, state: completed}]\ncallers:\n  - name: A\n    startMs: \"${_s}\"\n    args: {timeoutMs: \"${t}\"}\n"
	if file, _, problems := loadSrc(t, src); len(problems) != 1 || !strings.HasPrefix(problems[0], file+`:5:5: matrix[1]: gives case id "d[t=30000]", as matrix[0] does`) {
		t.Errorf("rows that differ only in a \"_\" parameter, the second failing on its own: %q", problems)
	}
	// A map matrix: a value twice, and a parameter the id leaves out
	// ("_") with more than one value, each one problem.
	for _, tc := range []struct{ matrix, want string }{
		{"{t: [30000, 40000, 30000]}", `:3:28: matrix.t[2]: the value of matrix.t[0] again (30000, as the case id writes it)`},
		{"{t: [30000, 40000], _n: [1, 2]}", `:4:33: matrix._n: 2 values of a parameter the case id leaves out (its name starts with "_")`},
	} {
		src := "# protects: x\nname: d\ndescription: \"n${_n}\"\nmatrix: " + tc.matrix + "\nagents: [{id: a, state: completed}]\ncallers:\n  - name: A\n    args: {timeoutMs: \"${t}\"}\n"
		if !strings.Contains(tc.matrix, "_n") {
			src = strings.Replace(src, "description: \"n${_n}\"\n", "", 1)
		}
		file, cases, problems := loadSrc(t, src)
		if len(cases) != 0 || len(problems) != 1 || !strings.HasPrefix(problems[0], file+tc.want) {
			t.Errorf("%s: %d cases, problems %q; want one: %s…", tc.matrix, len(cases), problems, tc.want)
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// TestLoadProblemsPerFileBounded (issue 20 item 2): a file lists at most 100
// problems, then says how many more it had.
func TestLoadProblemsPerFileBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("# protects: x\n")
	for i := range 150 {
		fmt.Fprintf(&b, "- name: s%d\n  bogus: 1\n  callers: [{name: A}]\n", i)
	}
	file, _, problems := loadSrc(t, b.String())
	if len(problems) != 101 || !strings.HasPrefix(problems[99], file+":300:3: bogus: unknown field") ||
		problems[100] != file+":0:0: file: and 50 more problems in this file (at most 100 are listed)" {
		t.Fatalf("%d problems, the last two %q", len(problems), problems[max(0, len(problems)-2):])
	}
	// Exactly 100: all listed, nothing counted.
	hundred := strings.Join(strings.SplitAfter(b.String(), "\n")[:1+3*100], "")
	if _, _, problems := loadSrc(t, hundred); len(problems) != 100 || strings.Contains(problems[99], "more problems") {
		t.Fatalf("100 problems: %d, the last %q", len(problems), problems[len(problems)-1])
	}
	// Across files: case ids defined twice count in the file that repeats them.
	dir := t.TempDir()
	src := "# protects: x\nname: d\nmatrix:\n  t: ["
	for i := range 150 {
		src += fmt.Sprintf("%d, ", 1000+i)
	}
	src = strings.TrimSuffix(src, ", ") + "]\nagents: [{id: a, state: completed}]\ncallers:\n  - name: A\n    args: {timeoutMs: \"${t}\"}\n"
	for _, n := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := loadRef([]string{dir})
	var fe *results.FileError
	if !errors.As(err, &fe) || len(fe.Problems) != 101 || fe.Problems[100].Message != "and 50 more problems in this file (at most 100 are listed)" {
		t.Fatalf("two files of one case ids: %v", err)
	}
}

// TestLoadNonRegularFilesRefused (issue 20 item 2): a FIFO, a device or a
// directory given as a scenario file is refused by what it is, at once.
// Before: a FIFO named *.yaml hung `waitsim run DIR` (and Load) until
// something wrote to it, and /dev/zero was "0 bytes, more than the limit".
func TestLoadNonRegularFilesRefused(t *testing.T) {
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

// TestLoadByteOrderMark (issue 20 item 2): a UTF-8 byte order mark opening a
// file is read as YAML reads it, as nothing, and the file loads; a UTF-16
// one is named. Before: the mark glued itself to the first line, and a
// valid file was refused as missing protects (and the mark made its
// comment an unknown field).
func TestLoadByteOrderMark(t *testing.T) {
	_, cases, problems := loadSrc(t, "\ufeff"+okFile)
	if len(problems) != 0 || len(cases) != 1 || cases[0].Protects != "nothing, a fixture" {
		t.Errorf("a UTF-8 BOM: %d cases, %q", len(cases), problems)
	}
	file, _, problems := loadSrc(t, "\xff\xfe#\x00 \x00p\x00")
	if want := file + ":1:1: file: byte 0xff is not UTF-8 text: the file starts with a UTF-16 byte order mark"; len(problems) != 1 || !strings.HasPrefix(problems[0], want) {
		t.Errorf("a UTF-16 BOM: %q, want %s…", problems, want)
	}
}

// TestLoadIntegerOutOfRange (issue 20 item 2): an integer too large for 64
// bits is named as one, wherever it is, not "a string". Before: "want an
// integer; got string".
func TestLoadIntegerOutOfRange(t *testing.T) {
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
