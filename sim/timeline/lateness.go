package timeline

import "time"

// TimerScript makes the tool's timers fire late, as real timers do (contract
// §2 step 12): a timer due at t fires at t + LateMs + j, with j drawn from
// 0..JitterMs (inclusive) by the world's Seed. Times in ms; the zero value is
// the exact clock. Caller timeouts and sim events stay exact: they belong to
// the world, whose timeline the kernel keeps.
type TimerScript struct {
	LateMs   int64 `json:"lateMs,omitempty"`
	JitterMs int64 `json:"jitterMs,omitempty"`
}

// Lateness returns the lateness of the n-th tool timer (n from 1) for seed:
// LateMs plus a draw from 0..JitterMs that depends only on (seed, n).
func (ts TimerScript) Lateness(seed, n uint64) time.Duration {
	return time.Duration(ts.LateMs+draw(seed, streamTimers, n, ts.JitterMs)) * time.Millisecond
}

// Streams keep the draws of different knobs independent for one seed.
const (
	streamTimers uint64 = 1
	// StreamService is the stream of a world's simulated service (the
	// wait_agents pack's bridge latencies) for Draw.
	StreamService uint64 = 2
)

// Draw returns a number from 0..bound (inclusive) that depends only on
// (seed, stream, n): a world's simulated services draw their jitter with it,
// so that the same seed gives the same trace. bound ≤ 0 gives 0.
func Draw(seed, stream, n uint64, bound int64) int64 { return draw(seed, stream, n, bound) }

// draw returns a number from 0..bound (inclusive) that depends only on
// (seed, stream, n): a splitmix64 hash, so that a world's draws do not depend
// on the order in which its goroutines ask. bound ≤ 0 gives 0.
func draw(seed, stream, n uint64, bound int64) int64 {
	if bound <= 0 {
		return 0
	}
	x := seed ^ stream*0x9e3779b97f4a7c15 ^ n*0xbf58476d1ce4e5b9
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return int64(x % uint64(bound+1))
}
