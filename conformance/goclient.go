package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return clientOutput{Error: "tools/list: " + err.Error()}
	}
	ready()
	d.cs = cs
	d.t0 = time.Now()
	var wg sync.WaitGroup
	for _, spec := range plan.Callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if wait := time.Duration(spec.StartMs)*time.Millisecond - time.Since(d.t0); wait > 0 {
				time.Sleep(wait)
			}
			d.runCaller(ctx, spec)
		}()
	}
	wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range d.calls {
		d.calls[i].ProgressNotes = d.notes[token(d.calls[i].Caller, d.calls[i].Index)]
	}
	return clientOutput{Calls: d.calls}
}

type goDriver struct {
	cs *mcp.ClientSession
	t0 time.Time

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
	for i := 1; i <= maxCalls; i++ {
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
		o.Lost, o.EndMs = true, at
		return o
	default:
	}
	switch {
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
