package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gapTool registers "gap": one progress note at 1 s (with a token), then
// silence until it replies at 40 s.
func gapTool(env *Env) error {
	mcp.AddTool(env.Server, &mcp.Tool{Name: "gap"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]any, error) {
		time.Sleep(time.Second)
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1000, Total: 40000})
		}
		time.Sleep(39 * time.Second)
		return nil, map[string]any{"done": true}, nil
	})
	return nil
}

// Each client kind fails as its real client does when an idle proxy cuts a
// call's SSE stream (contract §4): the gap tool sends a note at 1 s and then
// nothing, so a 15 s proxy cuts the stream at 16 s, after its headers, with
// no event id on it.
func TestClientKindsAfterACut(t *testing.T) {
	call := func(name string, k ClientKind, timeoutMs int64) CallerSpec {
		return CallerSpec{Name: name, Client: k, RequestTimeoutMs: timeoutMs, Progress: true,
			OnTransportFailure: FailRetry, MaxCalls: 3}
	}
	w := World{Name: "cut", Clock: ClockBubble, Tool: gapTool, Transport: &TransportSpec{Mode: ModeSSE, IdleTimeoutMs: 15000},
		Callers: []CallerSpec{
			call("go", ClientGo, -1),
			call("ts", ClientTS, 60000),
			call("ts-none", ClientTS, -1),
			call("py", ClientPython, -1),
		}}
	res := RunWorld(t, w)
	if res.Err != "" {
		t.Fatalf("%s\n%s", res.Err, res.Timeline)
	}
	for _, tc := range []struct {
		caller, lostBy, cutBy string
		end                   int64
		calls                 int
	}{
		{"go", "proxy idle timeout", "", 16000, 3},            // fails at the cut, retries
		{"ts", LostByTimeout, "proxy idle timeout", 60000, 1}, // pending until its own timeout
		{"ts-none", LostByHang, "", 16000, 1},                 // no timeout: waits for ever
		{"py", LostByHang, "", 16000, 1},
	} {
		c := res.Call(tc.caller, 1)
		if c == nil || !c.Lost || !strings.HasPrefix(c.LostBy, tc.lostBy) || c.EndMs != tc.end || !strings.HasPrefix(c.CutBy, tc.cutBy) || (tc.cutBy == "") != (c.CutBy == "") {
			t.Errorf("%s: %+v; want lost by %q at %d, cut by %q\n%s", tc.caller, c, tc.lostBy, tc.end, tc.cutBy, res.Timeline)
		}
		if c != nil && c.Cut != CutAfterHeaders {
			t.Errorf("%s: cut %q, want %q", tc.caller, c.Cut, CutAfterHeaders)
		}
		n := 0
		for _, cr := range res.Calls {
			if cr.Caller == tc.caller {
				n++
			}
		}
		if n != tc.calls {
			t.Errorf("%s: %d calls, want %d", tc.caller, n, tc.calls)
		}
	}
}

// A failure before the headers (the proxy's 504: no progress, so nothing
// is sent until the reply) fails the call at once for every client; the
// Python client's session ends with it, and it makes no other call.
func TestPythonSessionEndsAt504(t *testing.T) {
	call := func(name string, k ClientKind) CallerSpec {
		return CallerSpec{Name: name, Client: k, RequestTimeoutMs: -1, OnTransportFailure: FailRetry, MaxCalls: 2,
			Args: map[string]any{"ms": 40000}}
	}
	res := RunWorld(t, World{Name: "504", Clock: ClockBubble, Tool: slowTool, Transport: &TransportSpec{Mode: ModeSSE, IdleTimeoutMs: 15000},
		Callers: []CallerSpec{call("go", ClientGo), call("ts", ClientTS), call("py", ClientPython)}})
	if res.Err != "" {
		t.Fatalf("%s\n%s", res.Err, res.Timeline)
	}
	for name, calls := range map[string]int{"go": 2, "ts": 2, "py": 1} {
		c := res.Call(name, 1)
		if c == nil || !c.Lost || !strings.HasPrefix(c.LostBy, "proxy idle timeout") || c.EndMs != 15000 || c.Cut != CutBeforeHeaders {
			t.Errorf("%s: %+v; want lost by the proxy's 504 (cut %q) at 15000", name, c, CutBeforeHeaders)
		}
		if c := res.Call(name, 2); name != "py" && (c == nil || c.Cut != CutBeforeHeaders) {
			t.Errorf("%s#2: %+v; want cut %q", name, c, CutBeforeHeaders)
		}
		n := 0
		for _, cr := range res.Calls {
			if cr.Caller == name {
				n++
			}
		}
		if n != calls {
			t.Errorf("%s: %d calls, want %d\n%s", name, n, calls, res.Timeline)
		}
	}
	if !strings.Contains(res.Timeline, "no retry: the session ended") {
		t.Errorf("the trace does not say why the Python caller made no retry:\n%s", res.Timeline)
	}
}

// A caller asks for what its client cannot do: an error before the world runs.
func TestClientValidate(t *testing.T) {
	for _, spec := range []CallerSpec{
		{Name: "p", Client: ClientPython, Progress: true, ResetOnProgress: true},
		{Name: "x", Client: "rust"},
	} {
		res := RunWorld(t, World{Name: "bad", Clock: ClockBubble, Tool: slowTool, Callers: []CallerSpec{spec}})
		if !strings.Contains(res.Err, "caller "+spec.Name) {
			t.Errorf("%+v: err %q, want one naming the caller", spec, res.Err)
		}
	}
}

// TestRunningFirst: the watchdog's dump puts the goroutines that were
// running or runnable first, the others after, each group in its order.
func TestRunningFirst(t *testing.T) {
	dump := "goroutine 1 [chan receive]:\nmain.a()\n\ngoroutine 7 [running]:\ntool.spin()\n\ngoroutine 3 [select]:\nmain.b()\n\ngoroutine 9 [runnable]:\ntool.loop()\n"
	want := "goroutine 7 [running]:\ntool.spin()\n\ngoroutine 9 [runnable]:\ntool.loop()\n\ngoroutine 1 [chan receive]:\nmain.a()\n\ngoroutine 3 [select]:\nmain.b()"
	if got := runningFirst([]byte(dump)); got != want {
		t.Errorf("runningFirst:\n%s\nwant:\n%s", got, want)
	}
}
