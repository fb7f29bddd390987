package text

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/waitsim/waitsim/results"
)

// A result file records, for each case, the command line that re-runs it
// (results.CaseResult.Repro). A person pastes what a report prints into a
// shell, so a report never prints that text as it is: a line written by a
// waitsim that quoted a case id badly, or by anyone who edited the file,
// could run anything. PasteLine reads the recorded line as a shell would,
// and prints it only when it is one plain command: then quoted again word
// by word, so that pasted it gives the command exactly the words it reads
// as, and nothing else happens.

// PasteLine returns the command of line, a command line recorded for a
// person to paste, quoted again word by word (results.Command), when
// line is one plain command: words separated by blanks, each made of
// characters no shell treats specially, single-quoted text, double-quoted
// text without $, ` or !, and backslash-escaped characters; and every
// character of every word printable. Otherwise ok is false and why says
// what line holds instead (a ; outside quotes, an unclosed quote, a control
// character).
func PasteLine(line string) (cmd, why string, ok bool) {
	words, why := shellWords(line)
	if why != "" {
		return "", why, false
	}
	for _, w := range words {
		for _, r := range w {
			if !unicode.IsPrint(r) {
				return "", fmt.Sprintf("the unprintable character %U", r), false
			}
		}
	}
	return results.Command(words...), "", true
}

// plainChar reports whether r needs no quoting in a POSIX shell (as
// results.ShellQuote leaves it): letters, digits and - _ . / = : , + @ %.
func plainChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)
}

// shellWords splits line into the words a POSIX shell reads it as, when it
// is one plain command (see PasteLine); else why says what stops it.
func shellWords(line string) (words []string, why string) {
	rs := []rune(line)
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			end()
		case r == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, "a ' that is never closed"
			}
			cur.WriteString(string(rs[i+1 : j]))
			i, inWord = j, true
		case r == '"':
			j := i + 1
			for ; ; j++ {
				if j == len(rs) {
					return nil, `a " that is never closed`
				}
				c := rs[j]
				if c == '"' {
					break
				}
				if c == '\\' && j+1 < len(rs) && strings.ContainsRune("$`\"\\", rs[j+1]) {
					cur.WriteRune(rs[j+1])
					j++
					continue
				}
				if c == '$' || c == '`' || c == '!' || c == '\\' && j+1 < len(rs) && rs[j+1] == '\n' {
					return nil, fmt.Sprintf("%q inside double quotes", c)
				}
				cur.WriteRune(c)
			}
			i, inWord = j, true
		case r == '\\':
			if i+1 == len(rs) || rs[i+1] == '\n' {
				return nil, "a backslash at the end of a line"
			}
			cur.WriteRune(rs[i+1])
			i, inWord = i+1, true
		case plainChar(r):
			cur.WriteRune(r)
			inWord = true
		default:
			return nil, fmt.Sprintf("%q outside quotes", r)
		}
	}
	end()
	if len(words) == 0 {
		return nil, "no command"
	}
	return words, ""
}
