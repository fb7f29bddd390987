package campaign

import (
	"slices"
	"testing"
)

// TestKills: Order puts the keys with more kills first and keeps base's
// order among ties; Top lists the keys that killed, most kills first, ties
// by key.
func TestKills(t *testing.T) {
	var k Kills[int]
	if got := k.Top(); len(got) != 0 {
		t.Fatalf("empty: %v", got)
	}
	for _, w := range []int{7, 3, 7, 12, 3, 7} {
		k.Add(w)
	}
	k.Add(2)
	if got, want := k.Top(), []int{7, 3, 2, 12}; !slices.Equal(got, want) {
		t.Errorf("Top = %v, want %v", got, want)
	}
	if got, want := k.Order([]int{1, 12, 2, 3, 7, 5}), []int{7, 3, 12, 2, 1, 5}; !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
	var c Kills[string]
	c.Add("T/b")
	if got, want := c.Order([]string{"T/c", "T/a", "T/b"}), []string{"T/b", "T/c", "T/a"}; !slices.Equal(got, want) {
		t.Errorf("Order = %q, want %q", got, want)
	}
}
