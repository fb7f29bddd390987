package limits

import (
	"bytes"
	"unicode/utf8"
)

// scanJSON counts the structure of src by JSON's grammar (RFC 8259): outside
// strings, '[' and '{' open a level and ']' and '}' close one; an entry is
// the first value after an opening bracket or after a ','; a string runs to
// its unescaped closing quote. It returns the number of values (entries of
// arrays and objects), or an *Error where src first goes over a limit of
// k, placed as posOf places it. Malformed JSON is counted as far as it goes
// and left to the parser to refuse. (A results file is tens of MB: the loop
// keeps only an offset, and a place is worked out when there is a refusal.)
func scanJSON(src []byte, k Kind) (int, error) {
	type level struct {
		entries int
		expect  bool // the next value begins an entry
	}
	var levels []level
	values := 0
	over := func(i int, format string, args ...any) error {
		line, col := posOf(src, i)
		return k.over(line, col, format, args...)
	}
	// entry counts a value beginning at i as an entry when one is expected.
	entry := func(i int) error {
		n := len(levels)
		if n == 0 || !levels[n-1].expect {
			return nil
		}
		levels[n-1].expect = false
		levels[n-1].entries++
		if levels[n-1].entries > k.MaxEntries {
			return over(i, "more than %d entries in one list or mapping", k.MaxEntries)
		}
		values++
		if values > k.MaxValues {
			return over(i, "more than %d values in one file", k.MaxValues)
		}
		return nil
	}
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r', ':':
			i++
		case ',':
			if n := len(levels); n > 0 {
				levels[n-1].expect = true
			}
			i++
		case '[', '{':
			if err := entry(i); err != nil {
				return 0, err
			}
			levels = append(levels, level{expect: true})
			if len(levels) > k.MaxDepth {
				return 0, over(i, "nested more than %d levels deep", k.MaxDepth)
			}
			i++
		case ']', '}':
			if n := len(levels); n > 0 {
				levels = levels[:n-1]
			}
			i++
		case '"':
			if err := entry(i); err != nil {
				return 0, err
			}
			// To the closing quote: the first one not escaped.
			i++
			for i < len(src) {
				j := bytes.IndexAny(src[i:], `"\`)
				if j < 0 {
					i = len(src)
					break
				}
				i += j
				if src[i] == '"' {
					i++
					break
				}
				i += 2 // a backslash and the character it escapes
			}
		default: // a number, true, false, null, or what the parser refuses
			if err := entry(i); err != nil {
				return 0, err
			}
			for i < len(src) && !jsonDelim(src[i]) {
				i++
			}
		}
	}
	return values, nil
}

// jsonDelim reports whether c ends a number or a literal.
func jsonDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '[', ']', '{', '}', '"':
		return true
	}
	return false
}

// posOf is the line and column (1-based; lines as SplitLines counts them,
// the column in characters) of the byte at offset i of src.
func posOf(src []byte, i int) (line, col int) {
	lines := SplitLines(string(src[:i]))
	return len(lines), utf8.RuneCountInString(lines[len(lines)-1]) + 1
}
