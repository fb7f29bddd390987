package conformance

import "github.com/waitsim/waitsim/sim"

// Plan is what one client run does, as JSON for both drivers (the Go SDK
// client here, the TypeScript SDK client in tsclient/client.mjs): connect to
// `waitsim serve` over stdio (Command, the server's command line) or
// streamable HTTP (URL, perhaps a proxy's), then run Callers in parallel on
// that one connection, each starting StartMs after the first and following
// remainingMs as its CallerSpec says (contract §4).
type Plan struct {
	URL        string           `json:"url,omitempty"`
	Command    []string         `json:"command,omitempty"`
	StderrFile string           `json:"stderrFile,omitempty"` // the stdio server's log
	Callers    []sim.CallerSpec `json:"callers"`
	// DeadlineMs bounds the run: a call still pending then ends as a hang
	// (CauseHang), and no call starts after it. 0: no bound.
	DeadlineMs float64 `json:"deadlineMs,omitempty"`
	// Reconnect: the client warms up on a session of its own, closes it, and
	// connects a fresh one after the barrier, so that its standalone stream
	// opens as the callers start, as in the simulation, however long the
	// wait at the barrier was (a proxy's idle timer runs on that stream).
	Reconnect bool `json:"reconnect,omitempty"`
	// StallStepMs is the step a client that probes its own stalls samples
	// at (the TypeScript client's event-loop monitor): serve.ProbeStepMs,
	// the Go probes' step.
	StallStepMs float64 `json:"stallStepMs,omitempty"`
}

// What ended a call at its client (Observed.Cause; CallComparison's
// SimCause and RealCause).
const (
	CauseReceived = "received" // a reply: a result, an error result or a protocol error
	CauseTimeout  = "timeout"  // the client's own request timeout
	Cause504      = "504"      // a proxy's 504 before the response's headers
	CauseCut      = "cut"      // the response's SSE stream closed after its headers (the Go client fails the call)
	CauseHang     = "hang"     // nothing: still pending at the plan's deadline (simulated: sim.LostByHang)
	CauseSession  = "session"  // the session was given up or ended (simulated only)
	CauseLost     = "lost"     // lost otherwise (a dropped connection, a write timeout: simulated only)
)

// Note is one progress notification as a real client received it, at AtMs
// (ms since the first caller's start).
type Note struct {
	AtMs     float64 `json:"atMs"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
}

// Observed is one call as a real client saw it. Times are wall ms since the
// first caller's start.
type Observed struct {
	Caller string         `json:"caller"`
	Index  int            `json:"index"` // 1-based within the caller
	Args   map[string]any `json:"args"`
	// StartMs is when the call was sent; EndMs when it resolved at the client
	// (the reply arrived, or the request timeout fired).
	StartMs float64 `json:"startMs"`
	EndMs   float64 `json:"endMs"`
	// Lost: no reply reached the client; Cause says what ended the call
	// instead (the client's request timeout — TypeScript: error -32001
	// "Request timed out"; Go: the call's context deadline —, a proxy's
	// 504, a cut stream, or nothing by the plan's deadline). Cause is ""
	// when a reply came.
	Lost  bool   `json:"lost,omitempty"`
	Cause string `json:"cause,omitempty"`
	// CutAtMs is when the client's transport reported the call's SSE stream
	// cut after its headers while the call went on waiting (the TypeScript
	// client's "SSE stream disconnected"); 0 when it reported none.
	CutAtMs   float64 `json:"cutAtMs,omitempty"`
	IsError   bool    `json:"isError,omitempty"`   // an error result
	ErrorText string  `json:"errorText,omitempty"` // its text
	RPCError  string  `json:"rpcError,omitempty"`  // a protocol error (not lost)
	// Reply is the structured reply as received (nil when lost or an error).
	Reply         map[string]any `json:"reply,omitempty"`
	ProgressNotes []Note         `json:"progressNotes,omitempty"`
}

// clientOutput is what a driver reports: every call, and an error that
// stopped it early, if any.
type clientOutput struct {
	Calls []Observed `json:"calls"`
	Error string     `json:"error,omitempty"`
	// StartUnixMs is the instant its callers' times count from (their
	// "since the first caller's start"), in Unix ms.
	StartUnixMs float64 `json:"startUnixMs"`
	// StallMs is the client's own largest stall after StartUnixMs, in ms:
	// the TypeScript client's largest event-loop delay (0 from the Go client).
	StallMs float64 `json:"stallMs,omitempty"`
	// TransportErrors are what the TypeScript client's transport reported
	// after the start (kept in the run's log).
	TransportErrors []transportError `json:"transportErrors,omitempty"`
}

// transportError is one error a client's transport reported, at AtMs.
type transportError struct {
	AtMs    float64 `json:"atMs"`
	Message string  `json:"message"`
}
