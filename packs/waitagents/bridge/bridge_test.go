package bridge

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/sim/timeline"
)

// TestBridgeAfterShutdown: a read issued after the world ended (a handler
// whose context is cancelled beside the world's, by context.AfterFunc, can
// still issue one) ends at once; before, its goroutine outlived the bubble
// ("deadlock: main bubble goroutine has exited but blocked goroutines
// remain", in about 1 run in 10 of one generated HTTP world).
func TestBridgeAfterShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := timeline.NewKernel(sim.DefaultHorizonMs)
		b := New(k, Script{List: []Step{{Stall: true}}, Read: []Step{{Stall: true}}})
		b.Shutdown()
		if _, err := b.ListAgents(context.Background(), ""); err == nil || err.Error() != "world ended" {
			t.Errorf("list after shutdown: err %v, want world ended", err)
		}
		if _, err := b.ReadOutputs(context.Background(), "", []string{"c"}); err == nil || err.Error() != "world ended" {
			t.Errorf("read after shutdown: err %v, want world ended", err)
		}
	})
}
