package text

import (
	"fmt"
	"html"
	"strings"
)

// Short abbreviates a commit to 12 hex digits, keeping a "-dirty" suffix
// (a run made from a modified work tree must say so).
func Short(commit string) string {
	if commit == "" {
		return "unknown"
	}
	sha, dirty := strings.CutSuffix(commit, "-dirty")
	if len(sha) > 12 {
		sha = sha[:12]
	}
	if dirty {
		sha += "-dirty"
	}
	return sha
}

// Code renders s as an inline code span, whatever backticks it holds.
func Code(s string) string {
	s = OneLine(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdSpecial are the characters that can open Markdown or HTML inside a
// line of text (CommonMark with GitHub's extensions): a backslash escape
// (\), a code span (`), emphasis (* _) and strikethrough (~), a link or an
// image ([ ]), raw HTML or an autolink (< >), an entity reference (&), a
// table cell's end (|) and math ($). CommonMark lets any ASCII punctuation
// be escaped with a backslash, which then stands for itself.
const mdSpecial = "\\`*_~[]<>&|$"

// Cell makes s, a text from a scenario, a catalog entry or a result file
// (protects, intent, a failure message, a gate), safe anywhere in a line of
// Markdown — a table cell, a list item, a heading: one line, and every
// character that could open HTML, a link, an image, emphasis or code, or
// end a table cell, backslash-escaped, so that it reads as what s says and
// does nothing else.
func Cell(s string) string {
	s = OneLine(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(mdSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codeCell is Code(s) for a table cell: a | ends a cell even inside a code
// span, unless escaped (GitHub's tables drop the backslash).
func CodeCell(s string) string { return strings.ReplaceAll(Code(s), "|", `\|`) }

// OneLine joins the words of s with single spaces: one line, whatever
// blanks and line breaks s holds.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// HTML escapes s for HTML text and attributes, and drops control characters
// that XML does not allow.
func HTML(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0xFFFE || r == 0xFFFF {
			return -1
		}
		return r
	}, s)
	return html.EscapeString(s)
}

// Count is "n thing" or "n things".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
