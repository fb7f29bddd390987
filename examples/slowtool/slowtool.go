// Package slowtool is an ordinary long-running MCP tool, of the kind waitsim
// is for, that knows nothing of waitsim: slow_job works for a while (it
// sleeps, in steps of 10 s), tells its caller how far it got when the call
// carries a progress token, and gives up at its own deadline (a timer) with
// what it has. Whether its reply reaches the caller depends on the caller's
// request timeout, on progress, and on any proxy in between: the example's
// scenarios (testdata/waitsim) show which.
package slowtool

import (
	"context"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the tool's MCP name.
const Name = "slow_job"

// StepMs is how long the job works between two progress notifications, ms.
const StepMs = 10000

// Input is slow_job's input. Times in ms.
type Input struct {
	// WorkMs is how long the job works (1000..600000, default 90000).
	WorkMs int `json:"workMs,omitempty"`
	// DeadlineMs, when > 0, is when the job gives up and replies with what
	// it has done (1000..600000).
	DeadlineMs int `json:"deadlineMs,omitempty"`
}

// Output is slow_job's reply. Times in ms.
type Output struct {
	Done     bool `json:"done"`     // the job finished its work
	WorkedMs int  `json:"workedMs"` // how long it worked
}

// Register adds slow_job to s.
func Register(s *mcp.Server) {
	in, err := jsonschema.For[Input](nil)
	if err != nil {
		panic(err)
	}
	f := func(v float64) *float64 { return &v }
	in.Properties["workMs"].Minimum, in.Properties["workMs"].Maximum, in.Properties["workMs"].Default = f(1000), f(600000), []byte("90000")
	in.Properties["deadlineMs"].Minimum, in.Properties["deadlineMs"].Maximum = f(1000), f(600000)
	mcp.AddTool(s, &mcp.Tool{Name: Name, InputSchema: in,
		Description: "Works for workMs (default 90 s), in steps of 10 s, and replies when done; with a progress token, one notification per step. With deadlineMs it gives up then and replies with what it did."},
		handle)
}

func handle(ctx context.Context, req *mcp.CallToolRequest, in Input) (*mcp.CallToolResult, Output, error) {
	start := time.Now()
	var deadline <-chan time.Time
	if in.DeadlineMs > 0 {
		t := time.NewTimer(time.Duration(in.DeadlineMs) * time.Millisecond)
		defer t.Stop()
		deadline = t.C
	}
	work := time.Duration(in.WorkMs) * time.Millisecond
	for done := time.Duration(0); done < work; {
		step := min(StepMs*time.Millisecond, work-done)
		select {
		case <-time.After(step):
			done += step
		case <-deadline:
			return nil, Output{WorkedMs: int(time.Since(start).Milliseconds())}, nil
		case <-ctx.Done():
			return nil, Output{}, ctx.Err()
		}
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
				Progress: float64(done.Milliseconds()), Total: float64(work.Milliseconds())})
		}
	}
	return nil, Output{Done: true, WorkedMs: int(time.Since(start).Milliseconds())}, nil
}
