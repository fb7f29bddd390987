package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/sim"
	"github.com/waitsim/waitsim/waittool"
)

// runGoClient runs plan with the official Go SDK client (mcp.Client) over
// stdio (mcp.CommandTransport) or streamable HTTP (mcp.StreamableClientTransport).
// A caller's request timeout is its call's context, reset on progress when
// the caller says so (the Go client has no timeout of its own, contract §4).
// Once connected and warmed up (tools/list), it calls ready, which waits for
// the other clients of the case.
func runGoClient(ctx context.Context, plan Plan, ready func()) clientOutput {
	var transport mcp.Transport
	if plan.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: plan.URL}
	} else {
		cmd := exec.Command(plan.Command[0], plan.Command[1:]...)
		cmd.SysProcAttr = diesWithRunner()
		if plan.StderrFile != "" {
			f, err := os.OpenFile(plan.StderrFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return clientOutput{Error: err.Error()}
			}
			defer f.Close()
			cmd.Stderr = f
		}
		transport = &mcp.CommandTransport{Command: cmd}
	}
	d := &goDriver{notes: map[string][]Note{}, resets: map[string]chan struct{}{}}
	client := mcp.NewClient(&mcp.Implementation{Name: "waitsim-conformance-go", Version: "1"},
		&mcp.ClientOptions{ProgressNotificationHandler: d.onProgress})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return clientOutput{Error: "connect: " + err.Error()}
	}
	defer func() { cs.Close() }()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return clientOutput{Error: "tools/list: " + err.Error()}
	}
	if plan.Reconnect {
		cs.Close()
	}
	ready()
	if plan.Reconnect {
		// A fresh session: its standalone stream opens as the callers start,
		// as in the simulation, however long the wait at the barrier was.
		if cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: plan.URL}, nil); err != nil {
			return clientOutput{Error: "connect again after the barrier: " + err.Error()}
		}
	}
	d.cs = cs
	d.t0 = time.Now()
	d.hangCtx = ctx
	if plan.DeadlineMs > 0 {
		var cancel context.CancelFunc
		d.hangCtx, cancel = context.WithDeadline(ctx, d.t0.Add(time.Duration(plan.DeadlineMs*float64(time.Millisecond))))
		defer cancel()
	}
	var wg sync.WaitGroup
	for _, spec := range plan.Callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if wait := time.Duration(spec.StartMs)*time.Millisecond - time.Since(d.t0); wait > 0 {
				select {
				case <-time.After(wait):
				case <-d.hangCtx.Done():
					return
				}
			}
			d.runCaller(d.hangCtx, spec)
		}()
	}
	wg.Wait()
	// The SDK may hand a notification to its handler after the result it
	// preceded (contract §4): give the last ones time to land.
	time.Sleep(noteSettle)
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range d.calls {
		d.calls[i].ProgressNotes = d.notes[token(d.calls[i].Caller, d.calls[i].Index)]
	}
	return clientOutput{Calls: d.calls, StartUnixMs: float64(d.t0.UnixMicro()) / 1000}
}

// noteSettle is how long the Go driver waits after its last call for
// progress notifications still on their way to the handler.
const noteSettle = 300 * time.Millisecond

// goCutText is in the Go SDK client's error for a call whose SSE stream
// ended after its headers without its reply (go-sdk v1.8.0).
const goCutText = "request terminated without response"

// goCause is what ended a call whose CallTool failed with err (its own
// timeout aside): the plan's deadline (a hang: the call was still pending),
// a proxy's 504 (go-sdk v1.8.0 ends its error with the status text, "…:
// Gateway Timeout"), a stream cut after its headers, or "" for any other
// error (a protocol error: a reply).
func goCause(err error, pastDeadline bool) string {
	switch {
	case pastDeadline:
		return CauseHang
	case strings.Contains(err.Error(), http.StatusText(http.StatusGatewayTimeout)):
		return Cause504
	case strings.Contains(err.Error(), goCutText):
		return CauseCut
	}
	return ""
}

type goDriver struct {
	cs *mcp.ClientSession
	t0 time.Time
	// hangCtx ends at the plan's deadline: a call still pending then is a
	// hang, and no call starts after it.
	hangCtx context.Context

	mu     sync.Mutex
	calls  []Observed
	notes  map[string][]Note        // by progress token
	resets map[string]chan struct{} // by progress token, while its call runs
}

func token(caller string, index int) string { return fmt.Sprintf("%s/%d", caller, index) }

func (d *goDriver) since() float64 { return float64(time.Since(d.t0).Microseconds()) / 1000 }

func (d *goDriver) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	tok := fmt.Sprint(req.Params.ProgressToken)
	d.mu.Lock()
	d.notes[tok] = append(d.notes[tok], Note{AtMs: d.since(), Progress: req.Params.Progress, Total: req.Params.Total})
	reset := d.resets[tok]
	d.mu.Unlock()
	if reset != nil {
		select {
		case reset <- struct{}{}:
		default:
		}
	}
}

func (d *goDriver) runCaller(ctx context.Context, spec sim.CallerSpec) {
	args := map[string]any{}
	for k, v := range spec.Args {
		args[k] = v
	}
	maxCalls := spec.MaxCalls
	if maxCalls == 0 {
		maxCalls = sim.DefaultMaxCalls
	}
	for i := 1; i <= maxCalls && ctx.Err() == nil; i++ {
		o := d.call(ctx, spec, i, args)
		d.mu.Lock()
		d.calls = append(d.calls, o)
		d.mu.Unlock()
		rem, ok := o.Reply["remainingMs"]
		if !spec.Follow || o.Reply == nil || o.Reply["done"] == true || !ok {
			return
		}
		next := map[string]any{}
		for k, v := range args {
			next[k] = v
		}
		next["timeoutMs"] = rem
		args = next
	}
}

func (d *goDriver) call(ctx context.Context, spec sim.CallerSpec, index int, args map[string]any) Observed {
	o := Observed{Caller: spec.Name, Index: index, Args: args, StartMs: d.since()}
	params := &mcp.CallToolParams{Name: waittool.ToolName, Arguments: args}
	tok := token(spec.Name, index)
	reset := make(chan struct{}, 1)
	// A progress token only with progress, and a reset only with a token:
	// a reset without a token has no notification to restart on (contract §4).
	if spec.Progress {
		params.SetProgressToken(tok)
		if spec.ResetOnProgress {
			d.mu.Lock()
			d.resets[tok] = reset
			d.mu.Unlock()
		}
	}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	timeout := spec.RequestTimeoutMs
	if timeout == 0 {
		timeout = sim.DefaultRequestTimeoutMs
	}
	lost := make(chan float64, 1)
	stop := make(chan struct{})
	if timeout > 0 {
		timer := time.NewTimer(time.Duration(timeout) * time.Millisecond)
		go func() {
			defer timer.Stop()
			for {
				select {
				case <-timer.C:
					lost <- d.since()
					cancel()
					return
				case <-reset:
					timer.Reset(time.Duration(timeout) * time.Millisecond)
				case <-stop:
					return
				}
			}
		}()
	}
	res, err := d.cs.CallTool(callCtx, params)
	o.EndMs = d.since()
	close(stop)
	d.mu.Lock()
	delete(d.resets, tok)
	d.mu.Unlock()
	select {
	case at := <-lost:
		o.Lost, o.Cause, o.EndMs = true, CauseTimeout, at
		return o
	default:
	}
	if err != nil {
		o.Cause = goCause(err, ctx.Err() != nil)
		o.Lost = o.Cause != ""
	}
	switch {
	case o.Lost:
	case err != nil:
		o.RPCError = err.Error()
	case res.IsError:
		o.IsError = true
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				o.ErrorText += tc.Text
			}
		}
	default:
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &o.Reply); err != nil {
			o.RPCError = "bad structured content: " + err.Error()
		}
	}
	return o
}
