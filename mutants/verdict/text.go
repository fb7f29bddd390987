package verdict

import (
	"fmt"
	"strings"
)

// FirstLine is the first line of s.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// First is xs cut to its first n items, then "… k more" for the rest.
func First(xs []string, n int) []string {
	if len(xs) > n {
		return append(append([]string{}, xs[:n]...), fmt.Sprintf("… %d more", len(xs)-n))
	}
	return xs
}
