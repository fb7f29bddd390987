package waittool

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool constants (contract §2 "Constants"). All values are milliseconds.
const (
	// ToolName is the MCP name of the tool.
	ToolName = "orchestration_wait_agents"
	// CallCapMs bounds one call: it never waits longer than this, whatever
	// timeoutMs asks (contract §2 Constants).
	CallCapMs = 30000
	// MinTimeoutMs is the schema minimum of timeoutMs; a remainingMs below it is
	// never reported (contract §2 step 9).
	MinTimeoutMs = 1000
	// MaxTimeoutMs is the schema maximum of timeoutMs.
	MaxTimeoutMs = 600000
	// MinPollIntervalMs is the schema minimum of pollIntervalMs: a call
	// sleeps at least this long between two lists, but for its last sleep,
	// which ends at the reserve (contract §2 step 6).
	MinPollIntervalMs = 250
	// MachineDelayFloorMs is the least room the reserve keeps for the
	// machine's delay once a call has measured any (contract §2 step 12): on
	// an exact clock nothing is measured and it does not apply. Go's scheduler
	// lets a goroutine run 10 ms before it preempts it, so a runnable
	// goroutine may wait that long for a CPU; the final phase (the last poll,
	// then the final read) may wait twice. Measured with `make realclock` (25
	// sessions × 4 one-second calls at once, an instant in-process bridge, 2
	// cores): at the shared deadline, reads of the instant bridge took up to
	// 4 ms with their goroutine started at once (the runtime ran 6 GC cycles
	// in those 20 ms), more than any delay measured earlier in the calls;
	// per run, with the measured delays alone 0–7 of 100 calls lost their
	// outputs, with a floor of 5 ms 0–3, of 10 ms 0–2, of 20 ms 0 (4 runs each,
	// the test at real-time priority while other builds ran; 0 in 6 more runs
	// of the final tool).
	MachineDelayFloorMs = 20
)

// Agent is one child agent of a run as the bridge lists it.
// State is its lifecycle state; see Active.
type Agent struct {
	SessionID string `json:"sessionId"` // the child's session id
	State     string `json:"state"`     // its lifecycle state (see Active)
}

// Active reports whether an agent with lifecycle state state is still active
// (contract §2): the empty state, "created", "prompt_sent", "running" and "waiting"
// are active; every other state ("completed", "failed", "cancelled", …) is terminal.
func Active(state string) bool {
	switch state {
	case "", "created", "prompt_sent", "running", "waiting":
		return true
	}
	return false
}

// AgentOutput is the output of one child agent: its messages, oldest first.
type AgentOutput struct {
	SessionID string   `json:"sessionId"` // the child's session id
	Messages  []string `json:"messages"`  // its messages, oldest first
}

// Bridge is what the tool talks to (contract §3). Both reads take the context first
// and return errors; a Bridge may ignore cancellation (the reference bridge has
// none), so the tool never relies on it. The context carries a CallInfo.
type Bridge interface {
	// ListAgents returns the child agents of run runID ("" = the current run).
	ListAgents(ctx context.Context, runID string) ([]Agent, error)
	// ReadOutputs returns the outputs of the given sessions of run runID.
	ReadOutputs(ctx context.Context, runID string, sessionIDs []string) ([]AgentOutput, error)
}

// CallInfo identifies one call of the tool. It is attached to the context of
// every bridge read (see CallInfoFrom) and to every Event, so that a bridge or an
// observer can attribute work to a call. ID counts calls from 1 in the order
// their handlers started on one registered tool.
// Session is the server session the call came in on.
type CallInfo struct {
	ID        uint64             // 1, 2, … in handler start order
	Session   *mcp.ServerSession // the session the call came in on (nil without one)
	StartedAt time.Time          // contract §2 step 1: startedAt
	Deadline  time.Time          // startedAt + min(timeoutMs, CallCapMs)
}

type callInfoKey struct{}

// CallInfoFrom returns the CallInfo attached to ctx by the tool, and whether
// there was one.
func CallInfoFrom(ctx context.Context) (CallInfo, bool) {
	ci, ok := ctx.Value(callInfoKey{}).(CallInfo)
	return ci, ok
}

// EventKind names a step of the algorithm reported to an Observer.
type EventKind string

// Event kinds, in the order of contract §2's steps.
const (
	EvStart     EventKind = "start"      // step 1: deadline fixed (Detail: capped ms)
	EvIssue     EventKind = "issue"      // a bridge read issued (Detail: list|read)
	EvNotIssued EventKind = "not-issued" // step 4: now+cost > deadline (Detail: list|read)
	EvInTime    EventKind = "in-time"    // a read resolved in time (Detail: list|read)
	EvFailed    EventKind = "failed"     // a read resolved in time with an error
	EvLost      EventKind = "lost"       // a read lost the race to the deadline
	EvSleep     EventKind = "sleep"      // step 6: a poll sleep begins (Detail: ms)
	EvProgress  EventKind = "progress"   // step 11: a progress notification sent
	EvReply     EventKind = "reply"      // step 9: the reply is built
)

// Event is one observation of the tool at virtual time At. CostMs is the
// read cost (contract §2 step 2) known at that moment.
type Event struct {
	Call   CallInfo  // the call it belongs to
	Kind   EventKind // what happened
	At     time.Time // when, on the tool's clock
	Detail string    // the kind's detail (see the EventKind constants)
	CostMs int64     // the read cost in ms at that moment
}

// Input is the tool's input (contract §2 "Input"). Bounds and defaults live in the
// published schema (InputSchema); the SDK applies defaults and rejects bad
// input before the handler runs. Times in ms.
type Input struct {
	RunID               string   `json:"runId,omitempty"`               // the run; "" = the current one
	SessionIDs          []string `json:"sessionIds,omitempty"`          // the scope (step 7); empty = all children
	TimeoutMs           int      `json:"timeoutMs,omitempty"`           // total wanted across calls, 1000..600000, default 30000
	PollIntervalMs      int      `json:"pollIntervalMs,omitempty"`      // 250..10000, default 1000
	MaxMessagesPerAgent int      `json:"maxMessagesPerAgent,omitempty"` // 1..100, default 20
	MaxCharsPerMessage  int      `json:"maxCharsPerMessage,omitempty"`  // 50..100000, default 4000
	MaxCharsPerAgent    int      `json:"maxCharsPerAgent,omitempty"`    // 100..500000, default 20000
	MaxTotalChars       int      `json:"maxTotalChars,omitempty"`       // 1000..2000000, default 100000
}

// Reply is the tool's structured result (contract §2 step 9). Optional fields are
// omitted from the JSON when absent.
type Reply struct {
	OK                 bool          `json:"ok"`                           // false only without a bridge
	Error              string        `json:"error,omitempty"`              // "orchestration_unavailable" when !OK
	Done               bool          `json:"done"`                         // a list was read and no agent in it is active
	Agents             []Agent       `json:"agents"`                       // the last good scoped list; [] when none was read
	Outputs            []AgentOutput `json:"outputs"`                      // the bounded outputs; [] when not read
	RemainingMs        *int          `json:"remainingMs,omitempty"`        // the next call's timeoutMs, when cut short
	AgentsUnavailable  bool          `json:"agentsUnavailable,omitempty"`  // no list was read in time
	OutputsUnavailable bool          `json:"outputsUnavailable,omitempty"` // listed, but the final read was not done in time
	BridgeError        string        `json:"bridgeError,omitempty"`        // the last bridge error's message
	Truncated          bool          `json:"truncated,omitempty"`          // a char budget cut something
}
