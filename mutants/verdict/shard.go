package verdict

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part K of N (1 ≤ K ≤ N) of a campaign split for CI matrix
// jobs. Mutants, sorted by id, go round-robin to the shards; the baseline
// and the sanity mutant run in every shard. The zero Shard is the whole.
type Shard struct{ K, N int }

// ParseShard parses "k/n".
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return Shard{}, fmt.Errorf("--shard %q: want k/n with 1 ≤ k ≤ n", s)
	}
	return Shard{K: k, N: n}, nil
}

// Has reports whether the i-th mutant (0-based, in id order) is in the shard.
func (s Shard) Has(i int) bool { return s.N <= 1 || i%s.N == s.K-1 }

// String is "k/n", or "" for the whole campaign.
func (s Shard) String() string {
	if s.N <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}
