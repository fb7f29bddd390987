package timeline

import "testing"

func TestTickStep(t *testing.T) {
	for _, tt := range []struct{ end, step int64 }{{0, 1}, {30000, 5000}, {60000, 5000}, {20750, 2000}, {600000, 50000}} {
		if got := tickStep(tt.end); got != tt.step {
			t.Errorf("tickStep(%d) = %d, want %d", tt.end, got, tt.step)
		}
	}
}
