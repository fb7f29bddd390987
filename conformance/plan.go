package conformance

import "github.com/waitsim/waitsim/sim"

// Plan is what one client run does, as JSON for both drivers (the Go SDK
// client here, the TypeScript SDK client in tsclient/client.mjs): connect to
// `waitsim serve` over stdio (Command, the server's command line) or
// streamable HTTP (URL), then run Callers in parallel on that one connection,
// each starting StartMs after the first and following remainingMs as its
// CallerSpec says (contract §4).
type Plan struct {
	URL        string           `json:"url,omitempty"`
	Command    []string         `json:"command,omitempty"`
	StderrFile string           `json:"stderrFile,omitempty"` // the stdio server's log
	Callers    []sim.CallerSpec `json:"callers"`
}

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
	// Lost: the client's request timeout fired first (TypeScript: error
	// -32001 "Request timed out"; Go: the call's context deadline).
	Lost      bool   `json:"lost,omitempty"`
	IsError   bool   `json:"isError,omitempty"`   // an error result
	ErrorText string `json:"errorText,omitempty"` // its text
	RPCError  string `json:"rpcError,omitempty"`  // a protocol error (not lost)
	// Reply is the structured reply as received (nil when lost or an error).
	Reply         map[string]any `json:"reply,omitempty"`
	ProgressNotes []Note         `json:"progressNotes,omitempty"`
}

// clientOutput is what a driver reports: every call, and an error that
// stopped it early, if any.
type clientOutput struct {
	Calls []Observed `json:"calls"`
	Error string     `json:"error,omitempty"`
}
