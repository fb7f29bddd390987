package sim

import (
	"fmt"
	"sort"
	"strings"
)

// ClientKind is which real client's transport-failure rules a caller
// follows (contract §4, "When the transport fails"). Every simulated caller
// speaks through the Go SDK's client; its kind decides what the caller makes
// of a failure the Go client reports, as the real client would.
type ClientKind string

// Client kinds, each from the measurements in contract §4.
const (
	// ClientGo: the Go SDK v1.8.0 client. A response that fails before its
	// headers (a 504, a reset) fails the call at once; an SSE stream cut
	// after its headers fails the call at the cut ("request terminated
	// without response") unless the client resumes it (it has seen an
	// event id, protocol 2025-11-25). The default.
	ClientGo ClientKind = ""
	// ClientTS: the TypeScript SDK 1.32.2 client. Fails at once before the
	// headers, as Go; a stream cut after its headers ("SSE stream
	// disconnected: TypeError: terminated") is resumed only if it has seen
	// an event id, and otherwise the call stays pending until the client's
	// own request timeout (-32001), or for ever without one.
	ClientTS ClientKind = "ts"
	// ClientPython: the MCP Python SDK 1.29 client. A failure before the
	// headers (a 504, a reset) raises inside the transport's task group and
	// ends the whole session: the call is lost and the session can make no
	// other; a stream cut after its headers is swallowed and, with no event
	// id seen, the call stays pending for ever (with a timeout set: until
	// it). Progress resets nothing.
	ClientPython ClientKind = "python"
)

// ClientKinds lists the kinds a CallerSpec may name, the default first.
var ClientKinds = []ClientKind{ClientGo, ClientTS, ClientPython}

// Label is the kind's name in traces and messages.
func (k ClientKind) Label() string {
	switch k {
	case ClientTS:
		return "TypeScript SDK client"
	case ClientPython:
		return "Python SDK client"
	}
	return "Go SDK client"
}

// ResetsOnProgress reports whether a client of this kind can restart its
// request timeout on progress (the Python client cannot).
func (k ClientKind) ResetsOnProgress() bool { return k != ClientPython }

// Profile is a named preset of a caller: a client as contract §4 describes
// it, its knobs and the rules its transport failures follow.
type Profile struct {
	// RequestTimeoutMs: negative means none.
	RequestTimeoutMs int64
	Progress         bool
	ResetOnProgress  bool
	// Client is whose transport-failure rules the caller follows.
	Client ClientKind
}

// Profiles are the clients of contract §4. Claude Code's MCP client is the
// TypeScript SDK's; Codex's (Rust) is not measured here, and follows the Go
// client's rules, which lose a cut call soonest.
var Profiles = map[string]Profile{
	"ts-sdk":       {RequestTimeoutMs: 60000, Client: ClientTS},
	"ts-sdk-reset": {RequestTimeoutMs: 60000, Progress: true, ResetOnProgress: true, Client: ClientTS},
	"go-sdk":       {RequestTimeoutMs: -1, Client: ClientGo},
	"python-sdk":   {RequestTimeoutMs: -1, Client: ClientPython},
	"codex":        {RequestTimeoutMs: 300000, Client: ClientGo},
	"claude-code":  {RequestTimeoutMs: 100000000, Client: ClientTS},
}

// ProfileNames lists Profiles' keys in order.
func ProfileNames() []string {
	names := make([]string, 0, len(Profiles))
	for n := range Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LostByHang opens CallResult.LostBy for a call whose client waits for ever:
// its stream was cut after the headers, it saw no event id to resume with,
// and it has no request timeout (or one past the world's horizon).
const LostByHang = "hang: "

// LostBySessionEnded opens CallResult.LostBy for a call made on a session
// the Python client already ended (a failure before the headers).
const LostBySessionEnded = "session ended: "

// Where the wire cut a call's own response (CallResult.Cut), as a client
// tells them apart: a response that fails before its headers (a proxy's
// 504, a connection closed before any byte) and an SSE stream that ends
// after them.
const (
	CutBeforeHeaders = "before headers"
	CutAfterHeaders  = "after headers"
)

// cutLoss is what the wire knows of the cut that lost a call.
type cutLoss struct {
	why          string // "" when the wire cut nothing
	afterHeaders bool   // the call's SSE stream had sent its headers
	sawEventID   bool   // an event id reached the client on it
}

// pendingAfterCut reports whether a client of kind k keeps a call pending
// after the cut l, where the Go client failed it.
func (k ClientKind) pendingAfterCut(l cutLoss) bool {
	return (k == ClientTS || k == ClientPython) && l.afterHeaders && !l.sawEventID
}

// where is CallResult.Cut for the cut l: "" when the wire cut none of the
// call's own responses (nothing, or only other streams of its session).
func (l cutLoss) where() string {
	switch {
	case l.why == "" || strings.HasPrefix(l.why, LostBySession):
		return ""
	case l.afterHeaders:
		return CutAfterHeaders
	}
	return CutBeforeHeaders
}

// endsSession reports whether the cut l ends the caller's session.
func (k ClientKind) endsSession(l cutLoss) bool {
	return k == ClientPython && !l.afterHeaders
}

// Validate returns an error naming the first field of spec its client
// cannot honour (an unknown Client, a reset on progress the client cannot
// make), or nil.
func (spec CallerSpec) Validate() error {
	switch spec.Client {
	case ClientGo, ClientTS, ClientPython:
	default:
		return fmt.Errorf("client: want one of \"\", %s, %s; got %q", ClientTS, ClientPython, spec.Client)
	}
	if spec.ResetOnProgress && !spec.Client.ResetsOnProgress() {
		return fmt.Errorf("resetOnProgress: the %s restarts nothing on progress", spec.Client.Label())
	}
	return nil
}
