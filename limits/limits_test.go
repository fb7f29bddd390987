package limits

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"pgregory.net/rapid"
)

// stats is what the parser built: the deepest nesting of collections, the
// most entries of one, and the entries of all of them.
type stats struct{ depth, entries, values int }

// parsed parses src as the loaders do and measures the tree.
func parsed(src []byte) (stats, bool) {
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		return stats{}, false
	}
	var s stats
	var walk func(n ast.Node, depth int)
	coll := func(depth, entries int) {
		s.depth = max(s.depth, depth)
		s.entries = max(s.entries, entries)
		s.values += entries
	}
	walk = func(n ast.Node, depth int) {
		switch x := n.(type) {
		case *ast.MappingNode:
			coll(depth+1, len(x.Values))
			for _, kv := range x.Values {
				walk(kv.Key, depth+1)
				walk(kv.Value, depth+1)
			}
		case *ast.MappingValueNode: // a mapping of one pair
			coll(depth+1, 1)
			walk(x.Key, depth+1)
			walk(x.Value, depth+1)
		case *ast.SequenceNode:
			coll(depth+1, len(x.Values))
			for _, v := range x.Values {
				walk(v, depth+1)
			}
		case *ast.TagNode:
			walk(x.Value, depth)
		case *ast.MappingKeyNode:
			walk(x.Value, depth)
		}
	}
	for _, d := range f.Docs {
		if d.Body != nil {
			walk(d.Body, 0)
		}
	}
	return s, true
}

// agrees checks that scanning src counts exactly what the parser builds:
// within limits equal to the tree's it passes, and one less of any of them
// is refused (the scan never under-counts).
func agrees(t interface {
	Fatalf(string, ...any)
	Skip(...any)
}, name string, src []byte) {
	want, ok := parsed(src)
	if !ok {
		t.Skip("not YAML the parser reads")
	}
	k := Kind{Name: "a test file", MaxBytes: 1 << 30, MaxDepth: want.depth, MaxEntries: want.entries, MaxValues: want.values}
	text, err := Check(src, k)
	if err != nil {
		t.Fatalf("%s: %q: refused within the parser's own counts %+v: %v", name, src, want, err)
	}
	if text.Values != want.values {
		t.Fatalf("%s: %q: %d values counted, the parser built %d", name, src, text.Values, want.values)
	}
	for _, less := range []Kind{
		{MaxBytes: 1 << 30, MaxDepth: want.depth - 1, MaxEntries: want.entries, MaxValues: want.values},
		{MaxBytes: 1 << 30, MaxDepth: want.depth, MaxEntries: want.entries - 1, MaxValues: want.values},
		{MaxBytes: 1 << 30, MaxDepth: want.depth, MaxEntries: want.entries, MaxValues: want.values - 1},
	} {
		if less.MaxDepth < 0 || less.MaxEntries < 0 || less.MaxValues < 0 {
			continue
		}
		if _, err := Check(src, less); err == nil {
			t.Fatalf("%s: %q: passed limits %+v below the parser's counts %+v", name, src, less, want)
		}
	}
}

// breaks are the line breaks the YAML parser counts.
var breaks = []string{"\n", "\r\n", "\r"}

// TestYAMLCountsAreTheParsers (issue 20 item 2): on random documents in
// block and flow style, with quotes, comments, block scalars and brackets
// inside scalars, each with LF, CRLF and CR line breaks, the scan counts
// the depth, the entries of the largest collection and all values exactly
// as the parser builds them.
func TestYAMLCountsAreTheParsers(t *testing.T) {
	scalars := []string{"a", "a 'b", "x#y", "c:d", "'[{'", `"}]# x"`, "'it''s'", `"a\"b"`, "1", "-5", "~", "- a", "[", "{"}
	scalar := func(t *rapid.T, flow bool) string {
		s := rapid.SampledFrom(scalars).Draw(t, "scalar")
		quoted := strings.HasPrefix(s, "'") || strings.HasPrefix(s, `"`)
		if !quoted && (flow && strings.ContainsAny(s, "[]{},#:") || strings.ContainsAny(s[:1], "-[{")) {
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		return s
	}
	// value renders a value at indent: a scalar, a flow collection (on the
	// line), or a block one (starting with a line break).
	var value func(t *rapid.T, flow bool, depth int, indent, nl string) string
	value = func(t *rapid.T, flow bool, depth int, indent, nl string) string {
		kind := rapid.IntRange(0, 2).Draw(t, "kind") // scalar, list, mapping
		if depth > 5 {
			kind = 0
		}
		if kind == 0 {
			return scalar(t, flow)
		}
		n := rapid.IntRange(1, 4).Draw(t, "n")
		if flow || rapid.Bool().Draw(t, "flow") {
			parts := make([]string, n)
			for i := range parts {
				parts[i] = value(t, true, depth+1, indent, nl)
				if kind == 2 {
					parts[i] = fmt.Sprintf("k%d: %s", i, parts[i])
				}
			}
			sep := ", "
			if rapid.Bool().Draw(t, "multiline") {
				sep = "," + nl + indent + "  "
			}
			if kind == 2 {
				return "{" + strings.Join(parts, sep) + "}"
			}
			return "[" + strings.Join(parts, sep) + "]"
		}
		var b strings.Builder
		for i := range n {
			child := indent + "  "
			if kind == 1 {
				b.WriteString(nl + indent + "-")
			} else {
				fmt.Fprintf(&b, "%s%sk%d:", nl, indent, i)
			}
			if rapid.IntRange(0, 3).Draw(t, "scalarBlock") == 0 {
				b.WriteString(" |" + nl + child + "[[ - a: b" + nl + child + "{{ 'x: [")
				continue
			}
			v := value(t, false, depth+1, child, nl)
			if strings.HasPrefix(v, nl) && rapid.Bool().Draw(t, "comment") {
				b.WriteString(" # [[ {{ - x: y 'z")
			}
			if !strings.HasPrefix(v, nl) {
				b.WriteString(" ")
			}
			b.WriteString(v)
		}
		return b.String()
	}
	rapid.Check(t, func(t *rapid.T) {
		nl := rapid.SampledFrom(breaks).Draw(t, "break")
		doc := "root:" + value(t, false, 0, "  ", nl) + nl
		agrees(t, fmt.Sprintf("%q", nl), []byte(doc))
	})
}

// TestRepositoryFilesCounted: every YAML file of the repository the loaders
// read (the table, the examples' tables, the catalog, the equivalents, the
// gremlins config), with each kind of line break, is counted exactly as the
// parser builds it.
func TestRepositoryFilesCounted(t *testing.T) {
	var files []string
	for _, pat := range []string{"../scenarios/*/*.yaml", "../examples/*/testdata/waitsim/*.yaml", "../conformance/scenarios/*.yaml",
		"../mutants/catalog/*.yaml", "../mutants/*.yaml", "../.gremlins.yaml"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d files found", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, nl := range breaks {
			src := []byte(strings.ReplaceAll(string(b), "\n", nl))
			agrees(t, f, src)
		}
	}
}

// TestLineBreaksPlaceRefusals: a refusal is placed at the same line and
// column whatever the file's line breaks, and a CR-only file hides nothing.
func TestLineBreaksPlaceRefusals(t *testing.T) {
	k := Kind{Name: "a test file", MaxBytes: 1 << 20, MaxDepth: 4, MaxEntries: 3, MaxValues: 100}
	for _, tc := range []struct{ src, want string }{
		{"a:\n  - 1\n  - 2\n  - 3\n  - 4\n", "5:3: yaml: more than 3 entries in one list or mapping (docs/scenarios.md: Limits)"},
		{"a:\n b:\n  c:\n   d:\n    e: 1\n", "5:5: yaml: nested more than 4 levels deep (docs/scenarios.md: Limits)"},
		{"x: \"é\"\na: [[[[1]]]]\n", "2:7: yaml: nested more than 4 levels deep (docs/scenarios.md: Limits)"},
		{"x: a 'b\na: [1, 2, 3, 4]\n", "2:14: yaml: more than 3 entries in one list or mapping (docs/scenarios.md: Limits)"},
		{"# a comment\na:\n  - 1\n  - 2\n  - 3\n  - 4\n", "6:3: yaml: more than 3 entries in one list or mapping (docs/scenarios.md: Limits)"},
		{"a: &x 1\n", "1:4: yaml: anchors and aliases (&name, *name) are not supported in a test file: an alias can make a small file a huge value (docs/scenarios.md: Limits)"},
	} {
		for _, nl := range breaks {
			_, err := Check([]byte(strings.ReplaceAll(tc.src, "\n", nl)), k)
			if err == nil || err.Error() != tc.want {
				t.Errorf("%q with %q: %v, want %s", tc.src, nl, err, tc.want)
			}
		}
	}
	jk := k
	jk.Format = JSON
	for _, nl := range breaks {
		src := strings.ReplaceAll("{\"a\": \"é,[\\\"\",\n \"b\": [[[[1]]]]}\n", "\n", nl)
		if _, err := Check([]byte(src), jk); err == nil || err.Error() != "2:10: json: nested more than 4 levels deep (docs/scenarios.md: Limits)" {
			t.Errorf("JSON with %q: %v", nl, err)
		}
	}
}

// TestLineBreaksWrittenLF: the text to parse has its line breaks written
// LF, so the parser's lines are the file's (the YAML library counts a CRLF
// after a comment as two lines).
func TestLineBreaksWrittenLF(t *testing.T) {
	text, err := Check([]byte("# c\r\na: 1\rb: 'x\r\n  y'\r\r\n"), Scenario)
	if err != nil || string(text.Src) != "# c\na: 1\nb: 'x\n  y'\n\n" {
		t.Errorf("%q, %v", text.Src, err)
	}
	_, err = parser.ParseBytes(text.Src, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = parser.ParseBytes(lf([]byte("# c\r\nb: [\r\n")), 0)
	if err == nil || !strings.Contains(err.Error(), "[2:4]") {
		t.Errorf("a syntax error after a comment: %v, want it on line 2", err)
	}
}

// TestJSONCounts: the JSON scan counts entries and values as the grammar
// makes them; strings hold no structure.
func TestJSONCounts(t *testing.T) {
	k := Kind{Name: "a test file", Format: JSON, MaxBytes: 1 << 20, MaxDepth: 3, MaxEntries: 3, MaxValues: 7}
	for _, tc := range []struct {
		src    string
		values int
		err    string
	}{
		{`{"a": [1, 2, 3], "b": {"c": "[[[[,,,,"}}`, 6, ""},
		{`[]`, 0, ""},
		{`[{}, [], "x\\"]]]]"]`, 3, ""},
		{`[1, 2, 3, 4]`, 0, "1:11: json: more than 3 entries in one list or mapping"},
		{`[[1, 2], [3, 4], [5, 6]]`, 0, "1:19: json: more than 7 values in one file"},
		{`[[[[1]]]]`, 0, "1:4: json: nested more than 3 levels deep"},
	} {
		text, err := Check([]byte(tc.src), k)
		switch {
		case tc.err == "" && (err != nil || text.Values != tc.values):
			t.Errorf("%s: %d values, %v; want %d", tc.src, text.Values, err, tc.values)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %s", tc.src, err, tc.err)
		}
	}
}

// TestReadRefusesNonRegular: a FIFO, a device and a directory are refused
// by what they are, before anything is read (a FIFO with no writer does not
// block); a missing file is the file system's error.
func TestReadRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for file, what := range map[string]string{fifo: "a named pipe (FIFO)", dir: "a directory", "/dev/zero": "a character device"} {
		_, err := Read(file, Scenario)
		var e *Error
		if want := "1:1: file: is " + what + ", not a regular file: a scenario file is read only from a regular file"; !errors.As(err, &e) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %s…", file, err, want)
		}
	}
	if _, err := Read(filepath.Join(dir, "none.yaml"), Scenario); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, Scenario.MaxBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(big, Scenario); err == nil || err.Error() != "1:1: file: is 131073 bytes, more than the limit of 131072 for a scenario file (docs/scenarios.md: Limits)" {
		t.Errorf("too big: %v", err)
	}
}

// TestByteOrderMark: a UTF-8 byte order mark opening a file is dropped; a
// UTF-16 one is named.
func TestByteOrderMark(t *testing.T) {
	text, err := Check([]byte("\ufeffa: 1\n"), Scenario)
	if err != nil || string(text.Src) != "a: 1\n" || text.Values != 1 {
		t.Errorf("UTF-8 BOM: %q, %v", text.Src, err)
	}
	text, err = Check([]byte("\ufeff{\"a\": 1}"), Params)
	if err != nil || string(text.Src) != `{"a": 1}` {
		t.Errorf("UTF-8 BOM in JSON: %q, %v", text.Src, err)
	}
	for _, src := range []string{"\xff\xfea\x00", "\xfe\xff\x00a"} {
		if _, err := Check([]byte(src), Scenario); err == nil || !strings.Contains(err.Error(), "the file starts with a UTF-16 byte order mark") {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestNotUTF8: the first byte that is not UTF-8, with its line (every line
// break the parser counts) and its column in characters; U+FFFD written as
// text is valid.
func TestNotUTF8(t *testing.T) {
	for _, c := range []struct {
		src       string
		line, col int
		b         byte
		bad       bool
	}{
		{"a: \uFFFD\n", 0, 0, 0, false},
		{"ok\n", 0, 0, 0, false},
		{"\xff", 1, 1, 0xff, true},
		{"a\nbé\xc3", 2, 3, 0xc3, true},
		{"a\n\nxy\x80z\xff", 3, 3, 0x80, true},
		{"a\r\rxy\x80", 3, 3, 0x80, true},
		{"a\r\n\r\nxy\x80", 3, 3, 0x80, true},
	} {
		line, col, b, bad := notUTF8([]byte(c.src))
		if line != c.line || col != c.col || b != c.b || bad != c.bad {
			t.Errorf("%q: %d:%d 0x%02x %v, want %d:%d 0x%02x %v", c.src, line, col, b, bad, c.line, c.col, c.b, c.bad)
		}
	}
}

// TestSplitLines: lines end at LF, CRLF and CR.
func TestSplitLines(t *testing.T) {
	got := SplitLines("a\nb\r\nc\rd\r\r\ne")
	if want := []string{"a", "b", "c", "d", "", "e"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestDocsStateTheLimits: docs/scenarios.md ("Limits") lists every kind of
// file with the numbers it is checked against.
func TestDocsStateTheLimits(t *testing.T) {
	b, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds() {
		size := fmt.Sprintf("%d KiB", k.MaxBytes>>10)
		if k.MaxBytes >= 1<<20 {
			size = fmt.Sprintf("%d MiB", k.MaxBytes>>20)
		}
		row := fmt.Sprintf("| %s | %s | %s | %d | %d | %d |", k.Name, k.Format, size, k.MaxDepth, k.MaxEntries, k.MaxValues)
		if !strings.Contains(string(b), row) {
			t.Errorf("docs/scenarios.md does not hold the row\n%s", row)
		}
	}
}

// readLimited: the whole reader up to the limit whatever the hint says, one
// byte past it for a reader that holds more, and a buffer no larger than the
// limit for a hint above it (a file that grew after its Stat).
func TestReadLimited(t *testing.T) {
	for _, c := range []struct {
		src        string
		hint, max  int64
		want       string
		wantCapMax int
	}{
		{"", 0, 10, "", 11},
		{"abc", 3, 10, "abc", 11},
		{"abcdefghij", 2, 10, "abcdefghij", 0},
		{"abcdefghijk", 11, 10, "abcdefghijk", 0},
		{"abcdefghijklmnop", 3, 10, "abcdefghijk", 0},
		{"abc", 1 << 20, 10, "abc", 11},
		{"abc", -5, 10, "abc", 11},
	} {
		b, err := readLimited(strings.NewReader(c.src), c.hint, c.max)
		if err != nil || string(b) != c.want {
			t.Errorf("%q, hint %d, limit %d: %q, %v; want %q", c.src, c.hint, c.max, b, err, c.want)
		}
		if c.wantCapMax > 0 && cap(b) > c.wantCapMax {
			t.Errorf("%q, hint %d, limit %d: a buffer of %d bytes, want at most %d", c.src, c.hint, c.max, cap(b), c.wantCapMax)
		}
	}
}
