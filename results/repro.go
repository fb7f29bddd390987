package results

import (
	"regexp"
	"strconv"
	"strings"
)

// TestName is the name go test gives the subtest named name: white space
// becomes _, and a character that is not printable its Go escape (testing's
// own rewrite), so that -run can match it.
func TestName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case isSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isSpace is testing's own notion of white space in a test name (not
// unicode.IsSpace: it leaves out some of Z and adds U+0085).
func isSpace(r rune) bool {
	if r < 0x2000 {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680:
			return true
		}
		return false
	}
	if r <= 0x200a {
		return true
	}
	switch r {
	case 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return false
}

// RunPattern is the -test.run pattern that selects exactly the subtest
// path given, each element (a test name as given to t.Run) anchored and
// quoted, a / inside one escaped so that go test does not read it as a
// level.
func RunPattern(elems ...string) string {
	parts := make([]string, len(elems))
	for i, e := range elems {
		q := regexp.QuoteMeta(TestName(e))
		parts[i] = "^" + strings.ReplaceAll(q, "/", `\/`) + "$"
	}
	return strings.Join(parts, "/")
}

// ShellQuote quotes s for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else in single quotes, a ' inside
// written '\”. A command built of quoted words can be pasted as it is.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command joins words into one shell command line for a person to paste,
// each word quoted (ShellQuote; the first one quoted too when it holds '=',
// which would make it an assignment), so that no value in them (a -run
// pattern, a case id from a scenario file) can end its quoting and run a
// command of its own.
func Command(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = ShellQuote(w)
		if i == 0 && q[i] == w && strings.Contains(w, "=") {
			q[i] = "'" + w + "'"
		}
	}
	return strings.Join(q, " ")
}
