package waitagents

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"
)

// wallGuard ends the test binary with msg and every goroutine's stack
// (exit 3) if the returned stop is not called within seconds of wall time: a
// test whose failure is a loop that never ends fails in seconds, with a
// message, instead of at go test's own timeout.
func wallGuard(msg string, seconds int) (stop func()) {
	t := time.AfterFunc(time.Duration(seconds)*time.Second, func() {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		fmt.Fprintf(os.Stderr, "%s\n%s\n", msg, buf[:n])
		os.Exit(3)
	})
	return func() { t.Stop() }
}

// dieWithParent makes cmd's process die with this one (Linux: a
// parent-death signal; elsewhere nothing), so a test's child never
// outlives it.
func dieWithParent(cmd *exec.Cmd) { setParentDeathSignal(cmd) }
