package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bomb is a hostile scenario file and the problem its refusal must name.
type bomb struct {
	name string
	src  func() []byte
	want string // a substring of the one problem
}

func bombs() []bomb {
	head := "# protects: nothing, a bomb\nname: b\n"
	return []bomb{
		// The two files, at their measured sizes.
		{"nested-100000", func() []byte {
			return []byte(head + "bridge: {list: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}\n")
		}, "file: is 200053 bytes, more than the limit"},
		{"zeros-5000000", func() []byte {
			return []byte(head + "bridge:\n  list: [" + strings.Repeat("0,", 5000000-1) + "0]\n")
		}, "file: is 10000054 bytes, more than the limit"},
		// Under the size limit, over the others.
		{"nested-20000", func() []byte {
			return []byte(head + "bridge: {list: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}\n")
		}, "nested more than 32 levels"},
		{"zeros-50000", func() []byte {
			return []byte(head + "bridge:\n  list: [" + strings.Repeat("0,", 50000) + "0]\n")
		}, "more than 1000 entries"},
		{"block-zeros-10000", func() []byte {
			return []byte(head + "bridge:\n  list:\n" + strings.Repeat("    - 0\n", 10000))
		}, "more than 1000 entries"},
		{"indent-200", func() []byte {
			var b strings.Builder
			b.WriteString(head)
			for i := 0; i < 200; i++ {
				fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", i), i)
			}
			return []byte(b.String())
		}, "nested more than 32 levels"},
		{"dashes-5000", func() []byte {
			return []byte(head + "agents: " + "\n  " + strings.Repeat("- ", 5000) + "x\n")
		}, "nested more than 32 levels"},
		{"keys-5000", func() []byte {
			var b strings.Builder
			b.WriteString(head + "expect:\n")
			for i := 0; i < 5000; i++ {
				fmt.Fprintf(&b, "  k%d: 0\n", i)
			}
			return []byte(b.String())
		}, "more than 1000 entries"},
		{"many-lists", func() []byte {
			var b strings.Builder
			b.WriteString(head)
			for i := 0; i < 20; i++ {
				fmt.Fprintf(&b, "l%d: [%s0]\n", i, strings.Repeat("0,", 900))
			}
			return []byte(b.String())
		}, "more than 10000 values"},
		// Line breaks the YAML parser counts and a line-based scan did not
		// (issue 20 item 2): CR-only and CRLF files, and a quote inside a
		// plain scalar that a byte scan took for the start of a quoted one.
		{"cr-block-zeros-10000", func() []byte {
			return []byte(strings.ReplaceAll(head+"bridge:\n  list:\n"+strings.Repeat("    - 0\n", 10000), "\n", "\r"))
		}, "more than 1000 entries"},
		{"crlf-block-zeros-10000", func() []byte {
			return []byte(strings.ReplaceAll(head+"bridge:\n  list:\n"+strings.Repeat("    - 0\n", 10000), "\n", "\r\n"))
		}, "more than 1000 entries"},
		{"cr-indent-200", func() []byte {
			var b strings.Builder
			b.WriteString(head)
			for i := 0; i < 200; i++ {
				fmt.Fprintf(&b, "%sk%d:\r", strings.Repeat(" ", i), i)
			}
			return []byte(b.String())
		}, "nested more than 32 levels"},
		{"quote-in-plain-scalar", func() []byte {
			return []byte(head + "description: a 'b\nbridge:\n  list:\n" + strings.Repeat("    - 0\n", 10000))
		}, "more than 1000 entries"},
		// The measured CR-only file: a matrix of 1000 cases of a file of
		// 10,300 messages (114 KB; `waitsim run` took 25 s and 646 MB).
		{"cr-matrix-times-values", func() []byte {
			var b strings.Builder
			b.WriteString("# protects: x\rname: cr\rmatrix:\r  p:\r")
			for i := 0; i < 1000; i++ {
				fmt.Fprintf(&b, "    - %d\r", 1000+i)
			}
			b.WriteString("agents:\r  - id: a\r    state: completed\r    messages:\r" + strings.Repeat("      - x\r", 10300))
			b.WriteString("callers:\r  - name: A\r    args: {timeoutMs: \"${p}\"}\r")
			return []byte(b.String())
		}, "more than 1000 entries"},
		{"matrix-times-values", func() []byte {
			var b strings.Builder
			b.WriteString(head + "matrix:\n  p: [" + strings.Repeat("1,", 999) + "1]\n")
			for i := 0; i < 20; i++ {
				fmt.Fprintf(&b, "l%d: [%s0]\n", i, strings.Repeat("0,", 400))
			}
			return []byte(b.String())
		}, "(1 + cases) × values"},
	}
}

var posRE = regexp.MustCompile(`^\S+\.yaml:\d+:\d+: \S+: `)

// TestBombsRefused (issue 11 item 7): every memory or time bomb is refused
// with one problem naming file:line:column, within 100 MB of allocation
// (before: 75 s and 23.5 GB for 100,000 nested brackets, 34–83 s and 5 GB for
// 5 million zeros). The allocation bound stands for the work, which is what
// grew with the bomb; the time is logged here and measured by
// BenchmarkRefuseBombs, not asserted (a wall-clock bound failed at 1.2 s on a
// loaded machine).
func TestBombsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, b := range bombs() {
		t.Run(b.name, func(t *testing.T) {
			file := filepath.Join(dir, b.name+".yaml")
			if err := os.WriteFile(file, b.src(), 0o644); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			start := time.Now()
			cases, problems := loadFileRef(file)
			el := time.Since(start)
			runtime.ReadMemStats(&m1)
			alloc := m1.TotalAlloc - m0.TotalAlloc
			t.Logf("refused in %v, %d KB allocated: %v", el.Round(time.Microsecond), alloc>>10, problems)
			if len(cases) != 0 || len(problems) != 1 {
				t.Fatalf("%d cases, %d problems, want none and one: %q", len(cases), len(problems), problems)
			}
			if !posRE.MatchString(problems[0]) || !strings.Contains(problems[0], b.want) {
				t.Errorf("problem %q: want file:line:column: field: and %q", problems[0], b.want)
			}
			if alloc > 100<<20 {
				t.Errorf("%d MB allocated to refuse it, want under 100", alloc>>20)
			}
		})
	}
}

// TestLimitsAllowTheTable: every table file is far inside the limits.
func TestLimitsAllowTheTable(t *testing.T) {
	files, err := Expand([]string{"../scenarios/table"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := checkLimits(src); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Quotes, comments and block scalars do not count as structure.
	ok := "# protects: x [[[[\nname: \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"\nnote: |\n  [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n  - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\nx: 'it''s [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[' # [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
	if _, err := checkLimits([]byte(ok)); err != nil {
		t.Errorf("brackets in quotes, comments or a block scalar counted: %v", err)
	}
}

// BenchmarkRefuseBombs: the cost of refusing each bomb (ns and bytes per
// refusal).
func BenchmarkRefuseBombs(b *testing.B) {
	dir := b.TempDir()
	for _, bm := range bombs() {
		file := filepath.Join(dir, bm.name+".yaml")
		if err := os.WriteFile(file, bm.src(), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, p := loadFileRef(file); len(p) != 1 {
					b.Fatal(p)
				}
			}
		})
	}
}

// loadSrc writes src to a file and loads it.
func loadSrc(t *testing.T, src string) (string, []Case, []string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, problems := loadFileRef(file)
	return file, cases, problems
}

// TestEveryArgsProblem (issue 11 item 11): every argument that breaks the
// tool's input schema is reported at once, in document order.
func TestEveryArgsProblem(t *testing.T) {
	file, _, problems := loadSrc(t, "# protects: x\nname: a\ncallers:\n  - name: A\n    args: {timeoutMs: \"30000\", pollIntervalMs: 1.5, sessionIds: [], nonsense: true}\n")
	want := []string{":5:23: callers[0].args.timeoutMs:", ":5:48: callers[0].args.pollIntervalMs:", ":5:65: callers[0].args.sessionIds:", ":5:79: callers[0].args.nonsense:"}
	if len(problems) != len(want) {
		t.Fatalf("%d problems, want %d: %q", len(problems), len(want), problems)
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], file+w) {
			t.Errorf("problem %d: %q, want %s…", i+1, problems[i], w)
		}
	}
	// Valid args and invalidArgs still go as before.
	if _, cases, p := loadSrc(t, "# protects: x\nname: a\ncallers:\n  - name: A\n    args: {timeoutMs: 30000}\n"); len(p) != 0 || len(cases) != 1 {
		t.Errorf("valid args: %q", p)
	}
	if _, _, p := loadSrc(t, "# protects: x\nname: a\ncallers:\n  - name: A\n    invalidArgs: true\n    args: {timeoutMs: 1.5, x: 1}\n"); len(p) != 0 {
		t.Errorf("invalidArgs: %q", p)
	}
}

// TestNumbersOneRule (issue 11 item 12): an integer is written in decimal
// digits, everywhere in the file; every other spelling is refused with its
// position, however YAML would read it.
func TestNumbersOneRule(t *testing.T) {
	for _, v := range []string{"0x10", "1_000", "010", "0o20", "+16", "0b101"} {
		file, cases, problems := loadSrc(t, "# protects: x\nname: a\nbridge:\n  list: ["+v+"]\ncallers:\n  - name: A\n    args: {timeoutMs: 30000}\n")
		if len(cases) != 0 || len(problems) != 1 || !strings.HasPrefix(problems[0], file+":4:10: ") || !strings.Contains(problems[0], "integer "+v+": write integers as plain decimal digits") {
			t.Errorf("%s: %d cases, problems %q", v, len(cases), problems)
		}
	}
	for _, v := range []string{"16", "0", "1000"} {
		if _, cases, problems := loadSrc(t, "# protects: x\nname: a\nbridge:\n  list: ["+v+"]\ncallers:\n  - name: A\n    args: {timeoutMs: 30000}\n"); len(cases) != 1 || len(problems) != 0 {
			t.Errorf("%s refused: %q", v, problems)
		}
	}
}

// TestProblemIsOneLine (issue 11 item 15): a newline inside a matrix value
// is escaped in a problem, never pasted raw (which counted as extra problems);
// a tab the parser stops at is named.
func TestProblemIsOneLine(t *testing.T) {
	_, _, problems := loadSrc(t, "# protects: x\nname: nl\nmatrix:\n  tm: [\"1\\n2\"]\ncallers:\n  - name: A\n    args: {timeoutMs: \"${tm}\"}\n")
	if len(problems) != 1 {
		t.Fatalf("%d problems, want 1: %q", len(problems), problems)
	}
	if strings.ContainsAny(problems[0], "\n\r") || !strings.Contains(problems[0], `1\n2`) {
		t.Errorf("problem %q: want the newline escaped", problems[0])
	}
	// A tab where YAML allows none is named, on the path that stops at
	// the parse too.
	file, _, problems := loadSrc(t, "# protects: x\nname: a\ncallers:\n\t- name: A\n")
	if want := file + `:4:1: yaml: found a tab ('\t') that cannot start any token: indent with spaces, YAML allows no tab there`; len(problems) != 1 || problems[0] != want {
		t.Errorf("a tab: %q, want %q", problems, want)
	}
}
