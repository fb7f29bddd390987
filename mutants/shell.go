package mutants

import "strings"

// Commands printed for a person to paste into a shell are made of words
// quoted here, so that no value in them (a -run pattern from a flag, a case
// id from a scenario file) can end its quoting and run a command of its
// own.

// shellSafe reports whether r needs no quoting in any POSIX shell, in any
// position but a command's first word: letters, digits and - _ . / = : , + @ %.
func shellSafe(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)
}

// ShellQuote returns s as one word of a POSIX shell command line: unchanged
// when it is not empty and every character is one no shell treats
// specially (letters, digits and - _ . / = : , + @ %), else between single
// quotes, inside which a shell treats nothing specially, each single quote
// of s written as these four characters (end the quotes, an escaped quote,
// quote again):
//
//	'\''
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !shellSafe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellCommand joins words into one command line for a person to paste,
// each word ShellQuote'd (the first one quoted too when it holds '=', which
// would make it an assignment).
func ShellCommand(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = ShellQuote(w)
		if i == 0 && q[i] == w && strings.Contains(w, "=") {
			q[i] = "'" + w + "'"
		}
	}
	return strings.Join(q, " ")
}
