package testrun

import (
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
	"sync/atomic"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/workspace"
)

// Report is what one run of the suite's test binary showed.
type Report struct {
	Exit     int           // the binary's exit code (0 pass, 1 fail, 2 panic or -test.timeout)
	TimedOut bool          // the runner's timeout fired, or the binary's own -test.timeout
	Failed   []string      // leaf tests that failed, in order of failure
	Passed   int           // tests (and subtests) that passed
	Output   string        // the first failure's output, its tail (OutputLimit bytes)
	Head     string        // the head of the same output (OutputLimit bytes): what a failure says first
	Panic    string        // the first "panic: …" line of the output (what happened), or ""
	Wall     time.Duration // wall time of the run
	// Costs is the wall time of each leaf test that passed, from its run
	// event to its pass event (test2json's own Elapsed counts in 10 ms).
	Costs map[string]time.Duration
	// Hung lists the leaf tests that had started and not ended when the
	// output ended, in the order they started: in a run that timed out,
	// the tests that ran past its timeout.
	Hung []string
}

// OutputLimit is how much of a failure's output a Report keeps, at its
// head and at its tail (bytes).
const OutputLimit = 1500

// Runner runs a suite's test binary: in the suite package's directory (as
// `go test` does), with the campaign's environment, through test2json.
// The campaign makes one from its own state whenever it needs one.
type Runner struct {
	Env       []string      // the environment of every child process
	Pkg       string        // the suite's package (verdict.Suite.Pkg)
	Dir       string        // the suite package's directory (verdict.Suite.Dir)
	Test2json string        // the test2json binary
	Tmp       string        // the campaign's private temporary directory (params files)
	ParamsN   *atomic.Int64 // params files written so far, shared by every Runner of a campaign
}

// command prepares a child process: in dir, with the runner's environment,
// in its own process group that is killed as a whole when ctx ends.
func (tr *Runner) command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := workspace.GroupCommand(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = tr.Env
	return cmd
}

// WatchdogMs is the sim's wall-clock watchdog (results.Params.WatchdogMs)
// for a run the runner ends after timeout: twice the timeout and the sim's
// default beyond it, so that a mutant that spins at one virtual instant is
// always ended by the runner's timeout (timed out, in a hot process too)
// and never, on a loaded machine whose timeout grew past the watchdog, by
// the watchdog instead (its process ended, the mutant judged again cold).
func WatchdogMs(timeout time.Duration) int64 {
	return (2*timeout + sim.DefaultWallTimeout).Milliseconds()
}

// killSuite is params for a mutant's kill suite the runner ends after
// timeout (0: none): KillSuite set, and the worlds' watchdog beyond the
// timeout (WatchdogMs) unless params names one.
func killSuite(params results.Params, timeout time.Duration) results.Params {
	params.KillSuite = true
	if timeout > 0 && params.WatchdogMs == 0 {
		params.WatchdogMs = WatchdogMs(timeout)
	}
	return params
}

// Run runs bin with the -test.run pattern run and flags added, handing
// it params (results.Params, through a params file named by
// results.ParamsEnv; KillSuite always set: the scenario generator then stops
// at its first counterexample instead of shrinking it, so that a kill never
// times out). A run that failed because of the machine (ended by a signal
// that was not ours, or an error of the machine in its output) is an
// *campaign.EnvError, never a report to judge.
func (tr *Runner) Run(ctx context.Context, bin, run string, timeout time.Duration, flags []string, params results.Params, env ...string) (Report, error) {
	if tr.Test2json == "" {
		return Report{}, errors.New("testrun: Runner.Test2json is not set: a run needs the test2json binary")
	}
	params = killSuite(params, timeout)
	pf := filepath.Join(tr.Tmp, fmt.Sprintf("params-%d.json", tr.ParamsN.Add(1)))
	if err := results.WriteParams(pf, params); err != nil {
		return Report{}, err
	}
	defer os.Remove(pf)
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	args := []string{"-t", "-p", tr.Pkg, bin, "-test.v=test2json", "-test.paniconexit0"}
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
	cmd := tr.command(rctx, tr.Dir, bin, args[4:]...)
	cmd.Env = append(workspace.SuiteEnv(cmd.Env), results.ParamsEnv+"="+pf)
	cmd.Env = append(cmd.Env, env...)
	conv := tr.command(rctx, tr.Dir, tr.Test2json, args[:3]...)
	pr, pw, err := os.Pipe()
	if err != nil {
		return Report{}, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw // as test2json itself runs a binary
	conv.Stdin = pr
	stdout, err := conv.StdoutPipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return Report{}, err
	}
	var stderr strings.Builder
	conv.Stderr = &limitWriter{w: &stderr, n: 8 << 10}
	start := time.Now()
	if err := conv.Start(); err != nil {
		pr.Close()
		pw.Close()
		return Report{}, err
	}
	pr.Close()
	if err := cmd.Start(); err != nil {
		pw.Close()
		_ = conv.Wait()
		return Report{}, err
	}
	pw.Close()
	rep := ParseEvents(stdout)
	err = cmd.Wait()
	_ = conv.Wait()
	rep.Wall = time.Since(start)
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if rctx.Err() != nil {
		rep.TimedOut = true
		return rep, nil
	}
	rep.Exit = workspace.ExitCode(err)
	if err != nil && rep.Exit < 0 {
		// Ended by a signal that was not ours (the OOM killer, a kill by
		// hand): the machine's doing, not a verdict.
		return rep, &campaign.EnvError{Step: "running the test binary", Cause: campaign.MachineCause(err, ""), Output: stderr.String()}
	}
	if cause := campaign.RunMachineCause(rep.Exit, rep.Output+"\n"+rep.Panic+"\n"+stderr.String()); cause != "" {
		return rep, &campaign.EnvError{Step: "running the test binary", Cause: cause, Output: rep.Output}
	}
	// The binary's own -test.timeout, or the sim's wall-clock watchdog
	// (a world that hangs on the wall clock), is a timeout too.
	if all := rep.Output + stderr.String(); rep.Exit != 0 && (strings.Contains(all, "panic: test timed out after") || strings.Contains(all, "wall-clock watchdog")) {
		rep.TimedOut = true
	}
	if rep.Output == "" && rep.Exit != 0 {
		rep.Output, rep.Head = campaign.Tail(stderr.String(), OutputLimit), campaign.Head(stderr.String(), OutputLimit)
	}
	if rep.Panic == "" {
		rep.Panic = PanicLine(stderr.String())
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

// ParseEvents reads test2json events: the tests that failed (only leaves: a
// parent that failed because a subtest failed is dropped), how many passed,
// and the output of the first test that failed. A test that panics ends the
// binary, and test2json reading a pipe (as Run feeds it) then sends no
// "fail" event for it: a test is also failed when its "--- FAIL:" line or a
// "panic: " line shows in its own output.
func ParseEvents(rd io.Reader) Report {
	var rep Report
	var failed, shown []string // by "fail" events; by their output
	outputs := map[string]*strings.Builder{}
	started := map[string]time.Time{}
	var open []string // tests started and not ended, in start order
	ended := func(test string) {
		if i := slices.Index(open, test); i >= 0 {
			open = slices.Delete(open, i, i+1)
		}
	}
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
			if ev.Test != "" {
				open = append(open, ev.Test)
			}
		case "skip":
			ended(ev.Test)
		case "output":
			if rep.Panic == "" && strings.HasPrefix(ev.Output, "panic: ") {
				rep.Panic = strings.TrimSpace(ev.Output)
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
			ended(ev.Test)
			if ev.Test != "" {
				rep.Passed++
				if t0, ok := started[ev.Test]; ok && !t0.IsZero() && !ev.Time.IsZero() {
					if rep.Costs == nil {
						rep.Costs = map[string]time.Duration{}
					}
					rep.Costs[ev.Test] = ev.Time.Sub(t0)
				}
			}
			delete(outputs, ev.Test)
		case "fail":
			ended(ev.Test)
			if ev.Test != "" {
				failed = append(failed, ev.Test)
			}
		}
	}
	for _, t := range open {
		if !slices.ContainsFunc(open, func(u string) bool { return strings.HasPrefix(u, t+"/") }) {
			rep.Hung = append(rep.Hung, t)
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
			rep.Failed = append(rep.Failed, t)
		}
	}
	b := outputs[""]
	if len(rep.Failed) > 0 {
		b = outputs[rep.Failed[0]]
	}
	if b != nil {
		rep.Output, rep.Head = campaign.Tail(b.String(), OutputLimit), campaign.Head(b.String(), OutputLimit)
	}
	return rep
}

// PanicLine is the first line of s that starts with "panic: ", or "".
func PanicLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "panic: ") {
			return strings.TrimSpace(l)
		}
	}
	return ""
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
