package testrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/testbin"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/workspace"
)

// The process side of the hot runner: a process of the schemata binary
// kept up and sent mutant after mutant over a pipe (package hot, the
// top-level one, is the test binary's side: results.HotRequest and
// results.HotReply, JSON values, never text to parse). Which mutants go to
// a hot process, and what to do when it cannot serve one, is the
// campaign's (mutants/hot.go).

// HotProc is a hot process of the schemata binary.
type HotProc struct {
	cancel  context.CancelFunc
	enc     *json.Encoder
	reqW    *os.File
	replies chan results.HotReply // closed when the reply pipe ends
	exited  chan struct{}         // closed when the process has exited
	kinds   map[string]bool
	reached map[int]bool
	out     *tailBuffer // the end of its stdout and stderr
	seq     int
	pf      string // its params file
}

// StartHot starts a hot process of the schemata binary bin for worker id,
// running the tests of the -test.run pattern, and waits up to ready for its
// ready reply. genWorlds is handed to the generator (results.Params), and
// the watchdog of its worlds is beyond timeout, a request's (WatchdogMs).
func (tr *Runner) StartHot(ctx context.Context, bin, pattern string, id, genWorlds int, timeout, ready time.Duration) (*HotProc, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	hp := &HotProc{reqW: reqW, enc: json.NewEncoder(reqW), replies: make(chan results.HotReply, 1), exited: make(chan struct{}),
		out: &tailBuffer{n: 16 << 10}, pf: filepath.Join(tr.Tmp, fmt.Sprintf("hot-params-%d-%d.json", id, tr.ParamsN.Add(1)))}
	// The pipes are the child's fds 3 and 4 (ExtraFiles).
	if err := results.WriteParams(hp.pf, killSuite(results.Params{GenWorlds: genWorlds, Hot: &results.HotPipes{In: 3, Out: 4}}, timeout)); err != nil {
		reqR.Close()
		reqW.Close()
		repR.Close()
		repW.Close()
		return nil, err
	}
	pctx, cancel := context.WithCancel(ctx)
	hp.cancel = cancel
	args := []string{"-test.run", pattern, "-test.v=true", "-test.parallel=8", "-test.paniconexit0"}
	cmd := tr.command(pctx, tr.Dir, bin, args...)
	cmd.Env = append(workspace.SuiteEnv(cmd.Env), results.ParamsEnv+"="+hp.pf, testbin.HotEnv+"=1")
	cmd.ExtraFiles = []*os.File{reqR, repW}
	cmd.Stdout, cmd.Stderr = hp.out, hp.out
	if err := cmd.Start(); err != nil {
		cancel()
		reqR.Close()
		reqW.Close()
		repR.Close()
		repW.Close()
		return nil, err
	}
	reqR.Close()
	repW.Close()
	go func() {
		defer close(hp.replies)
		defer repR.Close()
		dec := json.NewDecoder(repR)
		for {
			var rep results.HotReply
			if dec.Decode(&rep) != nil {
				return
			}
			select {
			case hp.replies <- rep:
			case <-pctx.Done(): // killed: nobody waits for it
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(hp.exited)
	}()
	timer := time.NewTimer(ready)
	defer timer.Stop()
	select {
	case rep, ok := <-hp.replies:
		if !ok || rep.Seq != 0 {
			hp.Kill()
			return nil, fmt.Errorf("the hot process ended before it was ready: %s", verdict.FirstLine(campaign.Tail(hp.out.String(), 600)))
		}
		hp.kinds, hp.reached = map[string]bool{}, map[int]bool{}
		for _, k := range rep.Kinds {
			hp.kinds[k] = true
		}
		for _, n := range rep.Reached {
			hp.reached[n] = true
		}
		return hp, nil
	case <-timer.C:
		hp.Kill()
		return nil, errors.New("the hot process was not ready in time")
	case <-ctx.Done():
		hp.Kill()
		return nil, ctx.Err()
	}
}

// Kill ends the process (its whole group) and waits for it.
func (hp *HotProc) Kill() {
	hp.cancel()
	hp.reqW.Close()
	<-hp.exited
	os.Remove(hp.pf)
}

// Close asks the process to end, and kills it if it does not at once.
func (hp *HotProc) Close() {
	_ = hp.enc.Encode(results.HotRequest{Kind: results.HotExit})
	hp.reqW.Close()
	select {
	case <-hp.exited:
	case <-time.After(2 * time.Second):
	}
	hp.Kill()
}

// Serves reports whether the process can serve a request of kind for
// mutant: its ready reply listed the kind, and the mutant's functions did
// not run before its first request.
func (hp *HotProc) Serves(kind string, mutant int) bool {
	return hp.kinds[kind] && !hp.reached[mutant]
}

// HotOutcome is how a hot request ended.
type HotOutcome int

// How a hot request ended.
const (
	HotServed   HotOutcome = iota // a reply
	HotTimedOut                   // no reply within the timeout: the process was ended
	HotLost                       // the process died or could not serve it: judge the mutant cold
)

// Send sends req to the process and waits up to timeout for the reply.
// dead is true when the process is no longer usable (it died, answered out
// of turn, or did not answer in time): the caller then kills it (Kill).
func (hp *HotProc) Send(ctx context.Context, req results.HotRequest, timeout time.Duration) (rep results.HotReply, wall time.Duration, outcome HotOutcome, dead bool, err error) {
	hp.seq++
	req.Seq = hp.seq
	start := time.Now()
	if err := hp.enc.Encode(req); err != nil {
		return results.HotReply{}, 0, HotLost, true, nil
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case rep, ok := <-hp.replies:
		wall := time.Since(start)
		if !ok || rep.Seq != req.Seq {
			return results.HotReply{}, wall, HotLost, true, nil
		}
		if rep.Error != "" {
			return rep, wall, HotLost, false, nil
		}
		return rep, wall, HotServed, false, nil
	case <-timer.C:
		return results.HotReply{}, time.Since(start), HotTimedOut, true, nil
	case <-ctx.Done():
		return results.HotReply{}, time.Since(start), HotLost, true, ctx.Err()
	}
}

// HotReport turns a hot reply into the report of a run of its own: the
// failed tests in order, the first one's output, exit 1 when any failed.
// machine is true when an output names an error of the machine: the
// caller then judges the mutant by a cold run.
func HotReport(rep results.HotReply, wall time.Duration, outcome HotOutcome) (rr Report, machine bool) {
	rr.Wall = wall
	rr.Passed = rep.Passed
	if outcome == HotTimedOut {
		rr.TimedOut = true
		rr.Exit = -1
		return rr, false
	}
	for _, f := range rep.Failed {
		rr.Failed = append(rr.Failed, f.Test)
		if campaign.RunMachineCause(1, f.Output) != "" {
			machine = true
		}
	}
	if len(rep.Failed) > 0 {
		rr.Exit = 1
		rr.Output, rr.Head = campaign.Tail(rep.Failed[0].Output, OutputLimit), campaign.Head(rep.Failed[0].Output, OutputLimit)
		rr.Panic = PanicLine(rep.Failed[0].Output)
	}
	return rr, machine
}

// tailBuffer keeps the last n bytes written to it. Safe for concurrent
// use.
type tailBuffer struct {
	mu sync.Mutex
	n  int
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.n {
		t.b = append(t.b[:0:0], t.b[len(t.b)-t.n:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) > t.n {
		return string(t.b[len(t.b)-t.n:])
	}
	return string(t.b)
}

var _ io.Writer = (*tailBuffer)(nil)
