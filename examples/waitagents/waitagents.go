// Package waitagents is an implementation of the MCP tool
// orchestration_wait_agents, written from the contract in docs/contract.md
// of waitsim (§2 the tool, §3 the bridge, §4 the callers).
//
// The tool blocks until the child agents of a run are no longer active, then
// reads what they produced and returns it. One call waits at most the per-call
// cap (30000 ms unless configured); a reply that was cut short by the cap
// carries remainingMs, the part of the caller's budget that is left.
//
// The package reads the time from the standard time package directly (no
// injected clock), so it can run inside a testing/synctest bubble.
package waitagents

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolName is the name under which Register adds the tool.
const toolName = "orchestration_wait_agents"

// Limits and defaults of the contract (§2 Constants and Input). All values are
// whole milliseconds unless the name says otherwise.
const (
	// callCapMs is the default per-call cap in ms: no single call waits longer.
	callCapMs = 30000
	// minTimeoutMs is the smallest legal timeoutMs in ms, and so the smallest
	// remainingMs a reply may carry.
	minTimeoutMs = 1000
	// maxTimeoutMs is the largest legal timeoutMs in ms, and the upper bound of
	// remainingMs in the output schema.
	maxTimeoutMs = 600000
	// defaultTimeoutMs is the default timeoutMs in ms.
	defaultTimeoutMs = 30000
	// machineDelayFloorMs is the least room in ms the read reserve keeps for
	// the machine's delay once a call has measured any delay (§2 step 12).
	machineDelayFloorMs = 20

	// minPollIntervalMs is the smallest legal pollIntervalMs in ms.
	minPollIntervalMs = 250
	// maxPollIntervalMs is the largest legal pollIntervalMs in ms.
	maxPollIntervalMs = 10000
	// defaultPollIntervalMs is the default pollIntervalMs in ms.
	defaultPollIntervalMs = 1000
)

// Bridge is the run's bridge (contract §3). Both reads take the handler's
// context (or one derived from it) and may block for any length of time; the
// tool races them against its deadline and never cancels them.
type Bridge interface {
	// ListAgents returns the children of the run as they are now, in the
	// bridge's order. runID "" means the current run.
	ListAgents(ctx context.Context, runID string) ([]Agent, error)
	// ReadOutputs returns, for the requested ids that are children of the
	// run, all their messages, oldest first.
	ReadOutputs(ctx context.Context, runID string, sessionIDs []string) ([]AgentOutput, error)
}

// Agent is one child agent of a run and its lifecycle state. The states "",
// "created", "prompt_sent", "running" and "waiting" are active; every other
// state is terminal.
type Agent struct {
	// SessionID identifies the child agent.
	SessionID string `json:"sessionId"`
	// State is the child's lifecycle state.
	State string `json:"state"`
}

// AgentOutput is what one child agent produced: its messages, oldest first.
type AgentOutput struct {
	// SessionID identifies the child agent.
	SessionID string `json:"sessionId"`
	// Messages are the agent's messages, oldest first.
	Messages []string `json:"messages"`
}

// Config configures the tool that Register adds.
type Config struct {
	// Bridge is the run's bridge. nil: the tool is registered without a
	// bridge, and every valid call replies at once with ok=false and error
	// "orchestration_unavailable".
	Bridge Bridge
	// CapMs is the per-call cap in ms; 0 (or less) means the contract's 30000 ms.
	// The descriptions the tool publishes state the cap actually used.
	CapMs int
}

// Register adds the tool orchestration_wait_agents to s.
//
// It also adds a receiving middleware to s that treats a call of this tool
// whose arguments are JSON null as a call without arguments: the SDK would
// otherwise panic while applying the schema's defaults to null.
func Register(s *mcp.Server, cfg Config) {
	capMs := cfg.CapMs
	if capMs <= 0 {
		capMs = callCapMs
	}
	t := &tool{bridge: cfg.Bridge, capMs: capMs}
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolName,
		Description:  toolDescription(capMs),
		InputSchema:  inputSchema(capMs),
		OutputSchema: outputSchema(),
	}, t.handle)
	s.AddReceivingMiddleware(nullArgumentsAreNone)
}

// nullArgumentsAreNone turns the arguments of a call of this tool that are
// JSON null into no arguments.
func nullArgumentsAreNone(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil && r.Params.Name == toolName &&
			strings.TrimSpace(string(r.Params.Arguments)) == "null" {
			r.Params.Arguments = nil
		}
		return next(ctx, method, req)
	}
}

// toolDescription is the tool's description for a per-call cap of capMs ms
// (contract §2 step 10; for 30000 ms it is the contract's text word for word).
func toolDescription(capMs int) string {
	return "Waits until the child agents of a run are no longer active, then returns their outputs. " +
		"One call waits at most " + seconds(capMs) + " (" + strconv.Itoa(capMs) + " ms), whatever timeoutMs asks. " +
		"If the wait is cut short, the reply carries remainingMs: call this tool again with timeoutMs set to remainingMs to keep waiting."
}

// timeoutDescription is the description of the timeoutMs field for a per-call
// cap of capMs ms (contract §2 step 10; for 30000 ms it is the contract's
// text word for word).
func timeoutDescription(capMs int) string {
	return "Total time to wait in ms, across calls (" + strconv.Itoa(minTimeoutMs) + " to " + strconv.Itoa(maxTimeoutMs) +
		", default " + strconv.Itoa(defaultTimeoutMs) + "). One call waits at most " + seconds(capMs) +
		"; a reply that was cut short carries remainingMs: call again with timeoutMs set to it."
}

// seconds writes a duration of ms milliseconds in seconds: "30 seconds",
// "1 second", "2.5 seconds".
func seconds(ms int) string {
	s := strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
	if s == "1" {
		return "1 second"
	}
	return s + " seconds"
}

// input is the tool's arguments. The SDK validates them against inputSchema
// and fills in the defaults before the handler runs.
type input struct {
	RunID               string   `json:"runId,omitempty"`
	SessionIDs          []string `json:"sessionIds,omitempty"`
	TimeoutMs           int      `json:"timeoutMs,omitempty"`
	PollIntervalMs      int      `json:"pollIntervalMs,omitempty"`
	MaxMessagesPerAgent int      `json:"maxMessagesPerAgent,omitempty"`
	MaxCharsPerMessage  int      `json:"maxCharsPerMessage,omitempty"`
	MaxCharsPerAgent    int      `json:"maxCharsPerAgent,omitempty"`
	MaxTotalChars       int      `json:"maxTotalChars,omitempty"`
}

// intField is the bound, default and description of one integer field.
type intField struct {
	name     string
	min, max int
	def      int
	desc     string
}

func intFields(capMs int) []intField {
	return []intField{
		{"timeoutMs", minTimeoutMs, maxTimeoutMs, defaultTimeoutMs, timeoutDescription(capMs)},
		{"pollIntervalMs", minPollIntervalMs, maxPollIntervalMs, defaultPollIntervalMs,
			"Time between two checks of the agents' states in ms (250 to 10000, default 1000)."},
		{"maxMessagesPerAgent", 1, 100, 20,
			"The most recent messages returned per agent (1 to 100, default 20)."},
		{"maxCharsPerMessage", 50, 100000, 4000,
			"Characters (Unicode code points) kept of each message (50 to 100000, default 4000)."},
		{"maxCharsPerAgent", 100, 500000, 20000,
			"Characters (Unicode code points) returned per agent (100 to 500000, default 20000)."},
		{"maxTotalChars", 1000, 2000000, 100000,
			"Characters (Unicode code points) returned in all (1000 to 2000000, default 100000)."},
	}
}

// inputSchema is the published input schema: every bound inclusive, the
// defaults of the contract, no other properties.
func inputSchema(capMs int) *jsonschema.Schema {
	s, err := jsonschema.For[input](nil)
	if err != nil {
		panic(fmt.Sprintf("waitagents: input schema: %v", err))
	}
	s.Properties["runId"].Description = "The run whose child agents to wait for (default: the current run)."
	ids := s.Properties["sessionIds"]
	ids.Types = nil // an array, never null
	ids.Type = "array"
	ids.MinItems = jsonschema.Ptr(1)
	ids.Description = "Wait only for these child agents (session ids), and return only their outputs " +
		"(at least one id; default: every child of the run)."
	for _, f := range intFields(capMs) {
		p := s.Properties[f.name]
		p.Type = "integer"
		p.Types = nil
		p.Minimum = jsonschema.Ptr(float64(f.min))
		p.Maximum = jsonschema.Ptr(float64(f.max))
		p.Default = json.RawMessage(strconv.Itoa(f.def))
		p.Description = f.desc
	}
	return s
}

// reply is the tool's structured result (contract §2 step 9). A field that is
// not present is left out.
type reply struct {
	OK                 bool          `json:"ok" jsonschema:"true, false only when the tool has no bridge"`
	Error              string        `json:"error,omitempty" jsonschema:"orchestration_unavailable when the tool has no bridge"`
	Done               bool          `json:"done" jsonschema:"true when a list was read and no agent in it is active"`
	Agents             []Agent       `json:"agents" jsonschema:"the last list read, within the scope"`
	Outputs            []AgentOutput `json:"outputs" jsonschema:"the agents' outputs, cut down to the budgets"`
	RemainingMs        int           `json:"remainingMs,omitempty" jsonschema:"what is left of timeoutMs in ms when the wait was cut short: pass it as timeoutMs of the next call"`
	AgentsUnavailable  bool          `json:"agentsUnavailable,omitempty" jsonschema:"no list of the agents was read in time"`
	OutputsUnavailable bool          `json:"outputsUnavailable,omitempty" jsonschema:"the outputs could not be read in time"`
	BridgeError        *string       `json:"bridgeError,omitempty" jsonschema:"the message of the last failed read"`
	Truncated          bool          `json:"truncated,omitempty" jsonschema:"some messages or characters were left out"`
}

// outputSchema is the published output schema; remainingMs is bounded like
// timeoutMs, since it is what the next call passes as timeoutMs.
func outputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[reply](nil)
	if err != nil {
		panic(fmt.Sprintf("waitagents: output schema: %v", err))
	}
	// The lists are always sent, as arrays (never null).
	for _, arr := range []*jsonschema.Schema{
		s.Properties["agents"], s.Properties["outputs"], s.Properties["outputs"].Items.Properties["messages"],
	} {
		arr.Type, arr.Types = "array", nil
	}
	s.Properties["bridgeError"].Type, s.Properties["bridgeError"].Types = "string", nil
	r := s.Properties["remainingMs"]
	r.Type = "integer"
	r.Types = nil
	r.Minimum = jsonschema.Ptr(float64(minTimeoutMs))
	r.Maximum = jsonschema.Ptr(float64(maxTimeoutMs))
	return s
}

// tool is one registered instance of the tool.
type tool struct {
	bridge Bridge
	capMs  int

	mu sync.Mutex
	// lastLate is the machine delay the latest call to reach its reply
	// measured itself (§2 step 12, inheritance).
	lastLate time.Duration
}

func (t *tool) handle(ctx context.Context, req *mcp.CallToolRequest, in input) (*mcp.CallToolResult, reply, error) {
	if t.bridge == nil {
		return nil, reply{
			OK:      false,
			Error:   "orchestration_unavailable",
			Agents:  []Agent{},
			Outputs: []AgentOutput{},
		}, nil
	}
	in.normalize()
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	var session *mcp.ServerSession
	if req != nil {
		session = req.Session
	}
	out, err := t.wait(ctx, session, token, in)
	if err != nil {
		return nil, reply{}, err
	}
	return nil, out, nil
}

// normalize fills in a default for a field that is somehow missing; the SDK
// already did so for every call that passed the schema.
func (in *input) normalize() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&in.TimeoutMs, defaultTimeoutMs)
	def(&in.PollIntervalMs, defaultPollIntervalMs)
	def(&in.MaxMessagesPerAgent, 20)
	def(&in.MaxCharsPerMessage, 4000)
	def(&in.MaxCharsPerAgent, 20000)
	def(&in.MaxTotalChars, 100000)
}
