package mutants

import (
	"github.com/waitsim/waitsim/mutants/campaign"

	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/waitsim/waitsim/results"
)

// runReport is what one run of the suite's test binary showed.
type runReport struct {
	exit     int           // the binary's exit code (0 pass, 1 fail, 2 panic or -test.timeout)
	timedOut bool          // the runner's timeout fired, or the binary's own -test.timeout
	failed   []string      // leaf tests that failed, in order of failure
	passed   int           // tests (and subtests) that passed
	output   string        // the first failure's output, trimmed
	panic    string        // the first "panic: …" line of the output (what happened), or ""
	wall     time.Duration // wall time of the run
	// costs is the wall time of each leaf test that passed, from its run
	// event to its pass event (test2json's own Elapsed counts in 10 ms).
	costs map[string]time.Duration
}

// runSuite runs the suite's test binary bin through test2json, in the suite
// package's directory (as `go test` does), with the suite's -test.run
// pattern and env added to its environment, killing it after timeout (0: no
// limit). A kill by the parent ctx
// returns ctx's error.
func (r *runner) runSuite(ctx context.Context, bin string, timeout time.Duration, env ...string) (runReport, error) {
	return r.runWith(ctx, bin, r.suite.Run, timeout, nil, results.Params{}, env...)
}

// runWith runs bin with the -test.run pattern run and flags added, handing
// it params (results.Params, through a params file named by
// results.ParamsEnv; KillSuite always set: the scenario generator then stops
// at its first counterexample instead of shrinking it, so that a kill never
// times out). A run that failed because of the machine (ended by a signal
// that was not ours, or an error of the machine in its output) is an
// *campaign.EnvError, never a report to judge.
func (r *runner) runWith(ctx context.Context, bin, run string, timeout time.Duration, flags []string, params results.Params, env ...string) (runReport, error) {
	params.KillSuite = true
	pf := filepath.Join(r.tmp, fmt.Sprintf("params-%d.json", r.paramsN.Add(1)))
	if err := results.WriteParams(pf, params); err != nil {
		return runReport{}, err
	}
	defer os.Remove(pf)
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	args := []string{"-t", "-p", r.suite.Pkg, bin, "-test.v=test2json", "-test.paniconexit0"}
	if run != "" {
		args = append(args, "-test.run", run)
	}
	if timeout > 0 {
		// A backstop: the binary panics on its own if it ever outlives us.
		args = append(args, "-test.timeout", (2*timeout + 10*time.Second).String())
	}
	args = append(args, flags...)
	// The test binary is run as our own child (not as test2json's), so
	// that it gets the parent-death signal too: killed with us, it cannot
	// run on as an orphan. Its output goes through a pipe to test2json.
	cmd := r.command(rctx, r.suite.Dir, bin, args[4:]...)
	cmd.Env = append(append([]string{}, cmd.Env...), results.ParamsEnv+"="+pf)
	cmd.Env = append(cmd.Env, env...)
	conv := r.command(rctx, r.suite.Dir, r.test2json, args[:3]...)
	pr, pw, err := os.Pipe()
	if err != nil {
		return runReport{}, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw // as test2json itself runs a binary
	conv.Stdin = pr
	stdout, err := conv.StdoutPipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return runReport{}, err
	}
	var stderr strings.Builder
	conv.Stderr = &limitWriter{w: &stderr, n: 8 << 10}
	start := time.Now()
	if err := conv.Start(); err != nil {
		pr.Close()
		pw.Close()
		return runReport{}, err
	}
	pr.Close()
	if err := cmd.Start(); err != nil {
		pw.Close()
		_ = conv.Wait()
		return runReport{}, err
	}
	pw.Close()
	rep := parseEvents(stdout)
	err = cmd.Wait()
	_ = conv.Wait()
	rep.wall = time.Since(start)
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if rctx.Err() != nil {
		rep.timedOut = true
		return rep, nil
	}
	rep.exit = exitCode(err)
	if err != nil && rep.exit < 0 {
		// Ended by a signal that was not ours (the OOM killer, a kill by
		// hand): the machine's doing, not a verdict.
		return rep, &campaign.EnvError{Step: "running the test binary", Cause: campaign.MachineCause(err, ""), Output: stderr.String()}
	}
	if cause := campaign.RunMachineCause(rep.exit, rep.output+"\n"+rep.panic+"\n"+stderr.String()); cause != "" {
		return rep, &campaign.EnvError{Step: "running the test binary", Cause: cause, Output: rep.output}
	}
	// The binary's own -test.timeout, or the sim's wall-clock watchdog
	// (a world that hangs on the wall clock), is a timeout too.
	if all := rep.output + stderr.String(); rep.exit != 0 && (strings.Contains(all, "panic: test timed out after") || strings.Contains(all, "wall-clock watchdog")) {
		rep.timedOut = true
	}
	if rep.output == "" && rep.exit != 0 {
		rep.output = campaign.Tail(stderr.String(), 1500)
	}
	if rep.panic == "" {
		rep.panic = panicLine(stderr.String())
	}
	return rep, nil
}

// testEvent is one line of test2json output (cmd/test2json).
type testEvent struct {
	Time   time.Time
	Action string
	Test   string
	Output string
}

// parseEvents reads test2json events: the tests that failed (only leaves: a
// parent that failed because a subtest failed is dropped), how many passed,
// and the output of the first test that failed. A test that panics ends the
// binary, and test2json reading a pipe (as runWith feeds it) then sends no
// "fail" event for it: a test is also failed when its "--- FAIL:" line or a
// "panic: " line shows in its own output.
func parseEvents(rd io.Reader) runReport {
	var rep runReport
	var failed, shown []string // by "fail" events; by their output
	outputs := map[string]*strings.Builder{}
	started := map[string]time.Time{}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Action {
		case "run":
			started[ev.Test] = ev.Time
		case "output":
			if rep.panic == "" && strings.HasPrefix(ev.Output, "panic: ") {
				rep.panic = strings.TrimSpace(ev.Output)
			}
			if ev.Test != "" && (strings.HasPrefix(ev.Output, "--- FAIL: ") || strings.HasPrefix(ev.Output, "panic: ")) && !slices.Contains(shown, ev.Test) {
				shown = append(shown, ev.Test)
			}
			b := outputs[ev.Test]
			if b == nil {
				b = &strings.Builder{}
				outputs[ev.Test] = b
			}
			if b.Len() < 16<<10 {
				b.WriteString(ev.Output)
			}
		case "pass":
			if ev.Test != "" {
				rep.passed++
				if t0, ok := started[ev.Test]; ok && !t0.IsZero() && !ev.Time.IsZero() {
					if rep.costs == nil {
						rep.costs = map[string]time.Duration{}
					}
					rep.costs[ev.Test] = ev.Time.Sub(t0)
				}
			}
			delete(outputs, ev.Test)
		case "fail":
			if ev.Test != "" {
				failed = append(failed, ev.Test)
			}
		}
	}
	for _, t := range shown {
		if !slices.Contains(failed, t) {
			failed = append(failed, t)
		}
	}
	for _, t := range failed {
		leaf := true
		for _, u := range failed {
			if strings.HasPrefix(u, t+"/") {
				leaf = false
				break
			}
		}
		if leaf {
			rep.failed = append(rep.failed, t)
		}
	}
	if len(rep.failed) > 0 {
		if b := outputs[rep.failed[0]]; b != nil {
			rep.output = campaign.Tail(b.String(), 1500)
		}
	} else if b := outputs[""]; b != nil {
		rep.output = campaign.Tail(b.String(), 1500)
	}
	return rep
}

// panicLine is the first line of s that starts with "panic: ", or "".
func panicLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "panic: ") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// exitCode is the exit code of a finished command's error: 0 for nil, -1 if
// the command did not exit normally (not started, killed by a signal).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// cleanOutput shortens compiler output: temporary overlay paths become the
// paths they stand for.
func (r *runner) cleanOutput(s string) string {
	s = r.srcRe.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, r.tmp+string(filepath.Separator), "$TMP/")
	return campaign.Tail(s, 3000)
}

// limitWriter keeps the first n bytes written to it.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k])
	}
	return len(p), nil
}
