package verdict

import "testing"

// TestShareOf: a shard's share of a campaign, counted without a loop, is
// the count of the mutants Shard.Has gives it, for every small campaign and
// shard; a total a forged file gives (9e18) is answered at once.
func TestShareOf(t *testing.T) {
	for total := -1; total <= 60; total++ {
		for n := 0; n <= 7; n++ {
			for k := 1; k <= max(n, 1); k++ {
				s := Shard{K: k, N: n}
				want := 0
				for i := 0; i < total; i++ {
					if s.Has(i) {
						want++
					}
				}
				if got := shareOf(total, s); got != want {
					t.Fatalf("shareOf(%d, %d/%d) = %d, want %d", total, k, n, got, want)
				}
			}
		}
	}
	if got := shareOf(9_000_000_000_000_000_000, Shard{K: 1, N: 2}); got != 4_500_000_000_000_000_000 {
		t.Errorf("a huge total: %d", got)
	}
}
