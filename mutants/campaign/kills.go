package campaign

import (
	"cmp"
	"slices"
	"sync"
)

// Kills is kill first's memory within a campaign: how many mutants each
// case (by go test name) or each generator world (by index) killed first.
// A mutant's run tries the likeliest killers first; which ones it tries
// first never changes its verdict. Safe for concurrent use; the zero value
// is empty.
type Kills[K cmp.Ordered] struct {
	mu sync.Mutex
	n  map[K]int
}

// Add counts one kill by k.
func (k *Kills[K]) Add(key K) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.n == nil {
		k.n = map[K]int{}
	}
	k.n[key]++
}

// Order returns base reordered: more kills first, ties in base's order.
func (k *Kills[K]) Order(base []K) []K {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := slices.Clone(base)
	slices.SortStableFunc(out, func(a, b K) int { return k.n[b] - k.n[a] })
	return out
}

// Top lists the keys that killed: more kills first, ties by key.
func (k *Kills[K]) Top() []K {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]K, 0, len(k.n))
	for key := range k.n {
		out = append(out, key)
	}
	slices.SortFunc(out, func(a, b K) int {
		if k.n[a] != k.n[b] {
			return k.n[b] - k.n[a]
		}
		return cmp.Compare(a, b)
	})
	return out
}
