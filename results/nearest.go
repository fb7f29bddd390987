package results

import "strings"

// Nearest is the one name of names within two edits of key (letters
// compared without case: a swapped pair, a missing or extra letter, a
// capital), or "" when there is none or more than one at the least
// distance: the "did you mean" of a problem about an unknown name. A name
// whose length differs from key's by more than two is never compared, so
// a long key costs no more than its length.
func Nearest(key string, names []string) string {
	best, at, ties := "", 3, 0
	k := []rune(strings.ToLower(key))
	for _, n := range names {
		m := []rune(strings.ToLower(n))
		if len(k)-len(m) > 2 || len(m)-len(k) > 2 {
			continue
		}
		switch d := editDistance(k, m); {
		case d < at:
			best, at, ties = n, d, 1
		case d == at:
			ties++
		}
	}
	if ties != 1 {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance of x and y:
// insertions, deletions, substitutions and swaps of two neighbours.
func editDistance(x, y []rune) int {
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
