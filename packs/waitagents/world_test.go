package waitagents

import (
	"testing"

	"github.com/waitsim/waitsim/sim"
)

func TestInstantBridgeCapped(t *testing.T) {
	w := World{
		Name:    "instant",
		Agents:  []AgentSpec{{ID: "c", State: "running"}},
		Callers: []sim.CallerSpec{{Name: "A", Args: map[string]any{"timeoutMs": 600000, "pollIntervalMs": 1000}}},
	}
	res := RunWorld(t, w)
	t.Log("\n" + res.Timeline)
	if res.Err != "" {
		t.Fatal(res.Err)
	}
	c := res.Call("A", 1)
	if c == nil || ReplyOf(c) == nil {
		t.Fatalf("no reply: %+v", c)
	}
	if c.EndMs != 30000 || ReplyOf(c).RemainingMs == nil || *ReplyOf(c).RemainingMs != 570000 {
		t.Fatalf("got end %d reply %+v", c.EndMs, c.Raw)
	}
}
