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
	if os.Getenv("WAITSIM_WATCHDOG_CHILD") == "1" {
		var mu sync.Mutex
		mu.Lock()
		RunWorld(t, World{Name: "hang", WallTimeout: 300 * time.Millisecond, Agents: runningC,
			WrapBridge: func(b waittool.Bridge) waittool.Bridge { return mutexBridge{b, &mu} },
			Callers:    []sim.CallerSpec{mkCaller("A", nil)}})
		t.Fatal("the world returned; want the watchdog to end the process")
		return
	}
	// The child has its own short test timeout (a broken watchdog then
	// fails here in seconds, not as a hang until go test's own timeout), is
	// killed past a deadline, and dies with this process (wallGuard).
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestWatchdog$", "-test.count=1", "-test.timeout=20s")
	cmd.Env = append(os.Environ(), "WAITSIM_WATCHDOG_CHILD=1")
	dieWithParent(cmd)
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 {
		t.Fatalf("child: err %v, want exit 3\n%s", err, out)
	}
	if !strings.Contains(string(out), `wall-clock watchdog: world "hang" did not reach quiescence`) {
		t.Fatalf("child output lacks the watchdog message:\n%.2000s", out)
	}
}
