package timeline

import "testing"

// TestDrawRangeAndSpread: draws stay in 0..bound, depend only on their
// inputs, and cover the range (a constant or a stuck hash would not).
func TestDrawRangeAndSpread(t *testing.T) {
	seen := map[int64]bool{}
	for n := uint64(1); n <= 2000; n++ {
		v := draw(7, streamTimers, n, 4)
		if v < 0 || v > 4 {
			t.Fatalf("draw %d out of 0..4", v)
		}
		if v != draw(7, streamTimers, n, 4) {
			t.Fatal("draw is not a function of its inputs")
		}
		seen[v] = true
	}
	if len(seen) != 5 {
		t.Errorf("2000 draws from 0..4 hit only %v", seen)
	}
	if draw(7, streamTimers, 1, 0) != 0 || draw(7, streamTimers, 1, -3) != 0 {
		t.Error("a bound ≤ 0 must draw 0")
	}
	differ := 0
	for n := uint64(1); n <= 100; n++ {
		if draw(1, streamTimers, n, 1000) != draw(2, streamTimers, n, 1000) {
			differ++
		}
		if draw(1, streamTimers, n, 1000) != draw(1, StreamService, n, 1000) {
			differ++
		}
	}
	if differ < 150 {
		t.Errorf("seeds and streams barely change the draws (%d of 200 differ)", differ)
	}
}
