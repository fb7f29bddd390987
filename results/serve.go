package results

// ServeParams ask the test binary to serve one case to real clients on the
// real clock instead of running its table (`waitsim serve`): the door
// (waitsim.Run) loads File with its pack's load options, selects Case,
// builds the case's server through the pack (check.Server) and serves it
// until SIGINT, SIGTERM or, over stdio, the client's end. Times in ms.
type ServeParams struct {
	// File is the scenario file (absolute).
	File string `json:"file"`
	// Case is the id of the case to serve; "" when the file holds one case.
	Case string `json:"case,omitempty"`
	// HTTP, when not "", serves streamable HTTP on this address (host:port)
	// instead of stdio.
	HTTP string `json:"http,omitempty"`
	// StdinFD and StdoutFD, over stdio, are the file descriptors of the
	// client's end that the command passed the test binary (its own stdin
	// and stdout, as exec.Cmd.ExtraFiles: 3 and up). The binary serves on
	// those, never on its own stdout (the testing package writes there).
	StdinFD  int `json:"stdinFd,omitempty"`
	StdoutFD int `json:"stdoutFd,omitempty"`
	// JSONResponse and Stateless are serve.Options' HTTP modes.
	JSONResponse bool `json:"jsonResponse,omitempty"`
	Stateless    bool `json:"stateless,omitempty"`
	// NoEventStore: stateful HTTP keeps no event store (serve.Options).
	NoEventStore bool `json:"noEventStore,omitempty"`
	// AllowOrigins are the Origin values HTTP accepts beside loopback ones.
	AllowOrigins []string `json:"allowOrigins,omitempty"`
	// SessionIdleMs closes an idle HTTP session (0: serve's default;
	// negative: never).
	SessionIdleMs int64 `json:"sessionIdleMs,omitempty"`
	// MaxSessions bounds the open HTTP sessions (0: serve's default).
	MaxSessions int `json:"maxSessions,omitempty"`
	// Probe logs the largest scheduling stall at the end (serve.Probe).
	Probe bool `json:"probe,omitempty"`
}

// Outcomes of a served case (ServeResult.Outcome); `waitsim serve` exits 0,
// 2 and 1 for them.
const (
	ServeStopped = "stopped" // served until SIGINT, SIGTERM or the stdio client's end
	ServeUsage   = "usage"   // nothing served: a missing or ambiguous case id, a bad address, a case or pack that cannot be served
	ServeFailed  = "failed"  // the server failed (e.g. the address is taken)
)

// ServeResult is how serving a case ended (RunResult.Serve). Problems in
// the file are RunResult.Problems (nothing served).
type ServeResult struct {
	// Case is the id of the case served ("" when none was).
	Case string `json:"case,omitempty"`
	// Outcome is ServeStopped, ServeUsage or ServeFailed.
	Outcome string `json:"outcome"`
	// Error says what went wrong ("" when stopped).
	Error string `json:"error,omitempty"`
}
