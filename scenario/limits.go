package scenario

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// Limits of a scenario file, checked on its bytes before the YAML parser
// sees them (issue 11 item 7): a parser's time and memory grow with the
// nesting depth and the number of values, so a small hostile file could
// take minutes and gigabytes. Every table file is far inside them (the
// largest is under 3 KB, 6 levels deep). A file over a limit is refused
// with file:line:column of the first place it goes over. README.md
// ("Limits") and schema.json state the same numbers.
const (
	// MaxFileBytes is the size of a scenario file, in bytes.
	MaxFileBytes = 128 << 10
	// MaxDepth is how deeply collections may nest: indentation levels,
	// "- " entries and flow [ ] and { } together.
	MaxDepth = 32
	// MaxEntries is the number of entries of one list or mapping.
	MaxEntries = 1000
	// MaxValues is the number of values (list and mapping entries) of a
	// whole file.
	MaxValues = 10000
	// MaxLoadWork bounds the work of loading one file: the file is parsed
	// once, and each scenario then checked once per matrix case, so
	// (1 + cases) × values of the file, summed over its scenarios, may not
	// exceed it.
	MaxLoadWork = 1500000
)

// LimitsText states the limits for people (README.md, schema.json).
var LimitsText = fmt.Sprintf("at most %d bytes a file, %d levels of nesting, %d entries a list or mapping, %d values a file, and (1 + matrix cases) × values ≤ %d",
	MaxFileBytes, MaxDepth, MaxEntries, MaxValues, MaxLoadWork)

// checkLimits scans src without parsing it and returns a *posError at the
// first place it exceeds MaxFileBytes, MaxDepth, MaxEntries or MaxValues,
// and otherwise the number of values it counted (for MaxLoadWork). It is
// a conservative reading of YAML's structure: it follows quotes, comments,
// block scalars and flow collections, and counts one value per block line
// and per flow entry; it may over-count (never under-count) nesting.
func checkLimits(src []byte) (values int, err error) {
	if len(src) > MaxFileBytes {
		return 0, &posError{line: 1, col: 1, field: "file", msg: fmt.Sprintf("is %d bytes, more than the limit of %d (docs/scenarios.md: Limits)", len(src), MaxFileBytes)}
	}
	type flow struct{ entries int }
	type block struct{ indent, entries int }
	var flows []flow
	var blocks []block
	quote := byte(0)   // the open quote of a scalar spanning lines, or 0
	scalarIndent := -1 // inside a block scalar (| or >) opened on a line of this indent
	over := func(line, col int, field, format string, args ...any) (int, error) {
		return 0, &posError{line: line, col: col, field: field, msg: fmt.Sprintf(format, args...) + " (docs/scenarios.md: Limits)"}
	}
	lines := bytes.Split(src, []byte("\n"))
	for ln, l := range lines {
		line := ln + 1
		l = bytes.TrimRight(l, "\r")
		indent := 0
		for indent < len(l) && l[indent] == ' ' {
			indent++
		}
		rest := l[indent:]
		if quote == 0 && scalarIndent >= 0 {
			if len(bytes.TrimSpace(rest)) == 0 || indent > scalarIndent {
				continue // the block scalar's text
			}
			scalarIndent = -1
		}
		start := 0
		depth := len(flows)
		if quote == 0 && len(flows) == 0 {
			if len(rest) == 0 || rest[0] == '#' || rest[0] == '\t' && len(bytes.TrimSpace(rest)) == 0 {
				continue
			}
			if bytes.HasPrefix(rest, []byte("---")) || bytes.HasPrefix(rest, []byte("...")) {
				continue
			}
			for len(blocks) > 0 && blocks[len(blocks)-1].indent > indent {
				blocks = blocks[:len(blocks)-1]
			}
			if n := len(blocks); n > 0 && blocks[n-1].indent == indent {
				blocks[n-1].entries++
				if blocks[n-1].entries > MaxEntries {
					return over(line, indent+1, "yaml", "more than %d entries in one list or mapping", MaxEntries)
				}
			} else {
				blocks = append(blocks, block{indent: indent, entries: 1})
			}
			depth = len(blocks)
			// "- - x": each dash opens a level on the same line.
			for start < len(rest) && rest[start] == '-' && (start+1 == len(rest) || rest[start+1] == ' ') {
				depth++
				start++
				for start < len(rest) && rest[start] == ' ' {
					start++
				}
			}
			if depth > MaxDepth {
				return over(line, indent+start+1, "yaml", "nested more than %d levels deep", MaxDepth)
			}
			values++
			if values > MaxValues {
				return over(line, indent+1, "yaml", "more than %d values in one file", MaxValues)
			}
		}
		prev := byte(' ')
	scan:
		for i := start; i < len(rest); i++ {
			c := rest[i]
			col := indent + i + 1
			if quote != 0 {
				switch {
				case quote == '"' && c == '\\':
					i++
				case c == quote && quote == '\'' && i+1 < len(rest) && rest[i+1] == '\'':
					i++
				case c == quote:
					quote = 0
				}
				prev = c
				continue
			}
			switch c {
			case '#':
				if prev == ' ' || prev == '\t' {
					break scan
				}
			case '"', '\'':
				if prev == ' ' || prev == '\t' || prev == '[' || prev == '{' || prev == ',' || prev == ':' {
					quote = c
				}
			case '[', '{':
				flows = append(flows, flow{})
				if len(blocks)+len(flows) > MaxDepth || depth+1 > MaxDepth {
					return over(line, col, "yaml", "nested more than %d levels deep", MaxDepth)
				}
				depth++
			case ']', '}':
				if len(flows) > 0 {
					flows = flows[:len(flows)-1]
					depth--
				}
			case ',':
				if n := len(flows); n > 0 {
					flows[n-1].entries++
					if flows[n-1].entries+1 > MaxEntries {
						return over(line, col, "yaml", "more than %d entries in one list or mapping", MaxEntries)
					}
					values++
					if values > MaxValues {
						return over(line, col, "yaml", "more than %d values in one file", MaxValues)
					}
				}
			}
			prev = c
		}
		if quote == 0 && len(flows) == 0 {
			// A block scalar indicator ends the line: | or >, with
			// optional chomping and indentation indicators.
			t := bytes.TrimRight(stripComment(rest), " \t")
			for len(t) > 0 && (t[len(t)-1] == '-' || t[len(t)-1] == '+' || t[len(t)-1] >= '1' && t[len(t)-1] <= '9') {
				t = t[:len(t)-1]
			}
			if len(t) > 0 && (t[len(t)-1] == '|' || t[len(t)-1] == '>') && (len(t) == 1 || t[len(t)-2] == ' ') {
				scalarIndent = indent
			}
		}
	}
	return values, nil
}

// stripComment cuts a " #" comment off a line (outside quotes, roughly:
// only used to find a block scalar indicator at the end of a line).
func stripComment(l []byte) []byte {
	if i := bytes.Index(l, []byte(" #")); i >= 0 && !bytes.ContainsAny(l[:i], `"'`) {
		return l[:i]
	}
	return l
}

// readLimited reads file, refusing one larger than MaxFileBytes without
// reading more than that.
func readLimited(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		size := int64(len(b))
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		return nil, &posError{line: 1, col: 1, field: "file", msg: fmt.Sprintf("is %d bytes, more than the limit of %d (docs/scenarios.md: Limits)", size, MaxFileBytes)}
	}
	return b, nil
}

// notUTF8 finds the first byte of src that is not valid UTF-8 and returns
// its line and column (1-based; the column counts characters) and the byte;
// bad is false when src is valid UTF-8.
func notUTF8(src []byte) (line, col int, b byte, bad bool) {
	if utf8.Valid(src) {
		return 0, 0, 0, false
	}
	i := 0 // src holds a bad byte (Valid said so): the loop stops there
	for {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	return bytes.Count(src[:i], []byte("\n")) + 1, utf8.RuneCount(src[start:i]) + 1, src[i], true
}
