package waitagents

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitsim/waitsim/sim"

	"github.com/waitsim/waitsim/waittool"
)

// mutexBridge blocks on a mutex: not a durable block, so the bubble never
// reaches quiescence — a real hang, outside virtual time.
type mutexBridge struct {
	waittool.Bridge
	mu *sync.Mutex
}

func (b mutexBridge) ListAgents(context.Context, string) ([]waittool.Agent, error) {
	b.mu.Lock()
	return nil, nil
}

// TestWatchdog: a world blocked outside the bubble ends the test binary with a
// clear message (exit 3) instead of hanging. The hang runs in a child process.
func TestWatchdog(t *testing.T) {
	if child := os.Getenv("WAITSIM_WATCHDOG_CHILD"); child != "" {
		var mu sync.Mutex
		mu.Lock()
		wall := 300 * time.Millisecond
		if child == "process" {
			// The process's watchdog (results.Params.WatchdogMs), for a
			// world that sets none.
			sim.SetWatchdog(wall)
			wall = 0
		}
		RunWorld(t, World{Name: "hang", WallTimeout: wall, Agents: runningC,
			WrapBridge: func(b waittool.Bridge) waittool.Bridge { return mutexBridge{b, &mu} },
			Callers:    []sim.CallerSpec{mkCaller("A", nil)}})
		t.Fatal("the world returned; want the watchdog to end the process")
		return
	}
	for _, child := range []string{"1", "process"} {
		// The child has its own short test timeout (a broken watchdog then
		// fails here in seconds, not as a hang until go test's own timeout), is
		// killed past a deadline, and dies with this process (wallGuard).
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestWatchdog$", "-test.count=1", "-test.timeout=20s")
		cmd.Env = append(os.Environ(), "WAITSIM_WATCHDOG_CHILD="+child)
		dieWithParent(cmd)
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != sim.WatchdogExit {
			t.Fatalf("child %s: err %v, want exit 3\n%s", child, err, out)
		}
		if !strings.Contains(string(out), `wall-clock watchdog: world "hang" did not reach quiescence within 300ms`) {
			t.Fatalf("child %s: the output lacks the watchdog message at 300ms:\n%.2000s", child, out)
		}
	}
}
