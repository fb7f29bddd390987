package scenario

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Scenario is one scenario as authored in YAML (see scenarios/schema.json for
// an editor's view). Times are virtual ms.
type Scenario struct {
	// Name is the case id's stem: letters, digits, '-', '_' and '.'.
	Name string `json:"name" yaml:"name" jsonschema:"the case id's stem: letters, digits, - _ ."`
	// Description is free text for people.
	Description string `json:"description,omitempty" yaml:"description,omitempty" jsonschema:"free text for people"`
	// NoBridge registers the tool without a bridge.
	NoBridge bool `json:"noBridge,omitempty" yaml:"noBridge,omitempty" waitsim:"pack" jsonschema:"register the tool without a bridge"`
	// Bridge scripts the bridge (contract §3); absent means an instant bridge.
	Bridge *BridgeSpec `json:"bridge,omitempty" yaml:"bridge,omitempty" waitsim:"pack" jsonschema:"the bridge script (contract §3); absent: an instant bridge"`
	// Agents are the children of the run at virtual time 0.
	Agents []AgentSpec `json:"agents,omitempty" yaml:"agents,omitempty" waitsim:"pack" jsonschema:"the children of the run at virtual time 0"`
	// Changes change the roster at given times.
	Changes []ChangeSpec `json:"changes,omitempty" yaml:"changes,omitempty" waitsim:"pack" jsonschema:"roster changes at given virtual times"`
	// Callers are the MCP callers; at least one.
	Callers []CallerSpec `json:"callers" yaml:"callers" jsonschema:"the MCP callers (contract §4); at least one"`
	// Matrix expands the scenario: either a map of parameter to a list of
	// values (every combination), or a list of rows (maps of parameter to
	// value). "${param}" in the file is replaced by the value.
	Matrix any `json:"matrix,omitempty" yaml:"matrix,omitempty" jsonschema:"expand the scenario: a map of parameter to values (every combination) or a list of rows; ${param} in the file is replaced by the value"`
	// Expect lists what each call must show at the instant its reply resolves.
	Expect []Expect `json:"expect,omitempty" yaml:"expect,omitempty" jsonschema:"what each call must show at the instant its reply resolves"`
	// HorizonMs is the virtual horizon; default one hour.
	HorizonMs int64 `json:"horizonMs,omitempty" yaml:"horizonMs,omitempty" jsonschema:"the virtual horizon in ms; default 3600000"`
	// Transport is every caller's transport unless a caller has its own
	// (contract §6); absent: memory.
	Transport *TransportSpec `json:"transport,omitempty" yaml:"transport,omitempty" jsonschema:"every caller's transport and what sits between (contract §6); absent: memory"`
	// CapMs replaces the tool's per-call cap (contract §2: 30000) to replay
	// an earlier version of the tool: 90000 is the first version (contract §1).
	CapMs int64 `json:"capMs,omitempty" yaml:"capMs,omitempty" waitsim:"pack" jsonschema:"the tool's per-call cap in ms, at least 1000; default 30000 (contract §2); 90000 replays the first version (contract §1)"`
	// Timers makes the tool's timers fire late, as real ones do (contract §2
	// step 12); absent: every timer fires exactly on time.
	Timers *TimersSpec `json:"timers,omitempty" yaml:"timers,omitempty" waitsim:"pack" jsonschema:"make the tool's timers fire late (contract §2 step 12); absent: exact timers"`
	// Seed drives every jitter of the world (timers.jitterMs,
	// bridge.jitterMs); default 0. The same seed gives the same trace.
	Seed int64 `json:"seed,omitempty" yaml:"seed,omitempty" jsonschema:"drives timers.jitterMs and bridge.jitterMs; the same seed gives the same trace; default 0"`
}

// TimersSpec is the YAML form of timeline.TimerScript: each of the tool's timers
// fires lateMs plus a seeded draw from 0..jitterMs after its due time.
type TimersSpec struct {
	LateMs   int64 `json:"lateMs,omitempty" yaml:"lateMs,omitempty" jsonschema:"every tool timer fires this many ms late"`
	JitterMs int64 `json:"jitterMs,omitempty" yaml:"jitterMs,omitempty" jsonschema:"plus a draw from 0..jitterMs ms, by the scenario's seed"`
}

// BridgeSpec is the YAML form of sim.BridgeScript.
type BridgeSpec struct {
	List       []Step     `json:"list,omitempty" yaml:"list,omitempty" jsonschema:"the n-th list request's behaviour; the last repeats; empty: instant"`
	Read       []Step     `json:"read,omitempty" yaml:"read,omitempty" jsonschema:"the n-th output read's behaviour; the last repeats; empty: instant"`
	TimeoutMs  *Limit     `json:"timeoutMs,omitempty" yaml:"timeoutMs,omitempty" jsonschema:"bridge timeout from dispatch in ms, or none; default 30000"`
	CacheMs    *int64     `json:"cacheMs,omitempty" yaml:"cacheMs,omitempty" jsonschema:"identical reads issued less than this apart share one request; 0 disables; default 250"`
	Congestion []HoldSpec `json:"congestion,omitempty" yaml:"congestion,omitempty" jsonschema:"other requesters holding the one dispatch slot"`
	JitterMs   int64      `json:"jitterMs,omitempty" yaml:"jitterMs,omitempty" jsonschema:"each list or read takes a draw from 0..jitterMs ms longer, by the scenario's seed"`
}

// HoldSpec is another requester: it queues at atMs and holds the slot holdMs.
type HoldSpec struct {
	AtMs   int64 `json:"atMs" yaml:"atMs" jsonschema:"when it joins the queue"`
	HoldMs int64 `json:"holdMs" yaml:"holdMs" jsonschema:"how long it holds the slot once dispatched"`
}

// AgentSpec is a child present at virtual time 0.
type AgentSpec struct {
	ID       string   `json:"id" yaml:"id" jsonschema:"the session id"`
	State    string   `json:"state" yaml:"state" jsonschema:"lifecycle state: created prompt_sent running waiting are active, completed failed cancelled terminal"`
	Messages []string `json:"messages,omitempty" yaml:"messages,omitempty" jsonschema:"its output messages, oldest first"`
	// Generate appends generated messages: count messages of chars characters.
	Generate *GenSpec `json:"generate,omitempty" yaml:"generate,omitempty" jsonschema:"append generated messages"`
}

// GenSpec generates Count messages of Chars characters each.
type GenSpec struct {
	Count int `json:"count" yaml:"count"`
	Chars int `json:"chars" yaml:"chars"`
}

// ChangeSpec is one roster change (sim.Change).
type ChangeSpec struct {
	AtMs     int64    `json:"atMs" yaml:"atMs" jsonschema:"virtual time of the change"`
	Op       string   `json:"op" yaml:"op" jsonschema:"state, join or leave"`
	ID       string   `json:"id" yaml:"id"`
	State    string   `json:"state,omitempty" yaml:"state,omitempty"`
	Messages []string `json:"messages,omitempty" yaml:"messages,omitempty" jsonschema:"messages appended (state) or given (join)"`
}

// CallerSpec is the YAML form of sim.CallerSpec.
type CallerSpec struct {
	Name string `json:"name" yaml:"name"`
	// Tool names the tool the caller calls; default: the only tool the
	// server lists (the wait_agents pack: orchestration_wait_agents).
	Tool             string         `json:"tool,omitempty" yaml:"tool,omitempty" jsonschema:"the tool the caller calls; default: the only tool the server lists"`
	StartMs          int64          `json:"startMs,omitempty" yaml:"startMs,omitempty" jsonschema:"when the first call is made"`
	RequestTimeoutMs *Limit         `json:"requestTimeoutMs,omitempty" yaml:"requestTimeoutMs,omitempty" jsonschema:"the caller's request timeout in ms, or none; default 60000"`
	ResetOnProgress  *bool          `json:"resetOnProgress,omitempty" yaml:"resetOnProgress,omitempty" jsonschema:"restart the request timeout on each progress notification (only with progress: a client that sends no token gets no notification to restart on; not the python-sdk profile)"`
	Progress         *bool          `json:"progress,omitempty" yaml:"progress,omitempty" jsonschema:"send a progress token"`
	Follow           bool           `json:"follow,omitempty" yaml:"follow,omitempty" waitsim:"pack" jsonschema:"call again with timeoutMs = remainingMs while a reply carries one"`
	MaxCalls         int            `json:"maxCalls,omitempty" yaml:"maxCalls,omitempty" waitsim:"pack" jsonschema:"bound of a followed chain; default 50"`
	Args             map[string]any `json:"args,omitempty" yaml:"args,omitempty" jsonschema:"arguments of the first call (the tool's input, contract §2)"`
	// InvalidArgs declares that Args break the tool's input schema on purpose
	// (the call must then be rejected); otherwise such Args are a file error.
	InvalidArgs bool `json:"invalidArgs,omitempty" yaml:"invalidArgs,omitempty" jsonschema:"args break the input schema on purpose; the call must be rejected"`
	// Profile presets the caller as a known client (contract §4); the knobs
	// above override it.
	Profile string `json:"profile,omitempty" yaml:"profile,omitempty" jsonschema:"a known client (contract §4): ts-sdk (60000 ms), ts-sdk-reset (60000 ms, progress, reset on progress), go-sdk (no timeout), python-sdk (no timeout; a failure before the headers ends its session), codex (300000 ms), claude-code (100000000 ms); the knobs above override it, and the profile's client decides what a cut stream does (contract §4)"`
	// Transport replaces the scenario's transport for this caller.
	Transport *TransportSpec `json:"transport,omitempty" yaml:"transport,omitempty" jsonschema:"this caller's transport (contract §6); default: the scenario's"`
	// OnTransportFailure: throw (default) or retry with what is left of the budget.
	OnTransportFailure string `json:"onTransportFailure,omitempty" yaml:"onTransportFailure,omitempty" jsonschema:"what the caller does when the transport loses a call: throw (default; the call fails) or retry (call again with timeoutMs minus the time the lost call took, unless below 1000)"`
}

// Expect is what one call must show at the instant its reply resolves.
type Expect struct {
	// Caller names the caller; may be left out when there is one caller.
	Caller string `json:"caller,omitempty" yaml:"caller,omitempty"`
	// Call is the 1-based call of that caller; default 1.
	Call int `json:"call,omitempty" yaml:"call,omitempty"`
	// ResolvesAtMs: the reply resolves exactly then (virtual ms since start).
	ResolvesAtMs *int64 `json:"resolvesAtMs,omitempty" yaml:"resolvesAtMs,omitempty" jsonschema:"the reply resolves exactly at this virtual ms"`
	// ResolvesByMs: the reply resolves at this virtual ms or earlier.
	ResolvesByMs *int64 `json:"resolvesByMs,omitempty" yaml:"resolvesByMs,omitempty" jsonschema:"the reply resolves at this virtual ms or earlier"`
	// StartsAtMs: the call is made exactly then.
	StartsAtMs *int64 `json:"startsAtMs,omitempty" yaml:"startsAtMs,omitempty"`
	// Received true: the reply reached the caller; false: it was lost.
	Received *bool `json:"received,omitempty" yaml:"received,omitempty" jsonschema:"true: the reply reached the caller; false: it was lost (the caller's timeout came first)"`
	// LostBy: the call was lost, and what lost it (its LostBy) contains
	// this: "request timeout", "proxy idle timeout", "server write timeout",
	// "connection dropped" or "session failed" (contract §6).
	LostBy string `json:"lostBy,omitempty" yaml:"lostBy,omitempty" jsonschema:"the call was lost, by something whose name contains this: request timeout, proxy idle timeout, server write timeout, connection dropped, session failed"`
	// Rejected: the call got an error result (bad input).
	Rejected *bool `json:"rejected,omitempty" yaml:"rejected,omitempty" jsonschema:"the call got an error result naming a field"`
	// ErrorMentions: the error result's text contains this.
	ErrorMentions string `json:"errorMentions,omitempty" yaml:"errorMentions,omitempty"`
	// ReplyFields are fields of the reply's structured content (a JSON
	// object) and what each must be: a value (compared as JSON: numbers by
	// value, lists in order, objects whole), "absent" or "present". For any
	// tool; the wait_agents pack's reply fields have Reply.
	ReplyFields map[string]any `json:"replyFields,omitempty" yaml:"replyFields,omitempty" jsonschema:"fields of the reply's structured content, each equal to its value (as JSON), or \"absent\" or \"present\"; for any tool"`
	// Reply fields (contract §2 step 9).
	Reply *ReplyExpect `json:"reply,omitempty" yaml:"reply,omitempty" waitsim:"pack"`
	// Lists, Reads, Stranded count this call's bridge requests.
	Lists    *int `json:"lists,omitempty" yaml:"lists,omitempty" waitsim:"pack" jsonschema:"list requests issued by this call"`
	Reads    *int `json:"reads,omitempty" yaml:"reads,omitempty" waitsim:"pack" jsonschema:"output reads issued by this call"`
	Stranded *int `json:"stranded,omitempty" yaml:"stranded,omitempty" waitsim:"pack" jsonschema:"this call's requests still in flight when its reply resolved"`
	// Calls is how many calls the caller made in all.
	Calls *int `json:"calls,omitempty" yaml:"calls,omitempty" jsonschema:"how many calls the caller made in all"`
	// Progress is how many progress notifications this call received.
	Progress *int `json:"progress,omitempty" yaml:"progress,omitempty"`
}

// ReplyExpect lists reply fields; a field left out is not checked. Each value
// is the expected value, or "absent" (the field must not be in the reply), or
// "present" (it must be, any value).
type ReplyExpect struct {
	OK                 *Want    `json:"ok,omitempty" yaml:"ok,omitempty"`
	Done               *Want    `json:"done,omitempty" yaml:"done,omitempty"`
	RemainingMs        *Want    `json:"remainingMs,omitempty" yaml:"remainingMs,omitempty"`
	AgentsUnavailable  *Want    `json:"agentsUnavailable,omitempty" yaml:"agentsUnavailable,omitempty"`
	OutputsUnavailable *Want    `json:"outputsUnavailable,omitempty" yaml:"outputsUnavailable,omitempty"`
	BridgeError        *Want    `json:"bridgeError,omitempty" yaml:"bridgeError,omitempty"`
	Truncated          *Want    `json:"truncated,omitempty" yaml:"truncated,omitempty"`
	Error              *Want    `json:"error,omitempty" yaml:"error,omitempty"`
	Agents             []string `json:"agents,omitempty" yaml:"agents,omitempty" jsonschema:"the reply's agents in order: id or id=state"`
	Outputs            *int     `json:"outputs,omitempty" yaml:"outputs,omitempty" jsonschema:"how many agents' outputs the reply carries"`
	// OutputChars is the total characters of all output messages.
	OutputChars *int `json:"outputChars,omitempty" yaml:"outputChars,omitempty"`
	// OutputMessages is the number of messages over all outputs.
	OutputMessages *int `json:"outputMessages,omitempty" yaml:"outputMessages,omitempty"`
}

// Step is one bridge request's behaviour: an integer (latency ms), "stall",
// or a map {latencyMs, error, panic, stall, reject, outputs}.
type Step struct {
	LatencyMs int64  `json:"latencyMs,omitempty" yaml:"latencyMs,omitempty"`
	Error     string `json:"error,omitempty" yaml:"error,omitempty"`
	// Panic: after latencyMs the bridge call panics with this string as
	// its value instead of returning (contract §2 step 9: "bridge panic: …").
	Panic  string `json:"panic,omitempty" yaml:"panic,omitempty"`
	Stall  bool   `json:"stall,omitempty" yaml:"stall,omitempty"`
	Reject bool   `json:"reject,omitempty" yaml:"reject,omitempty"`
	// Outputs, on a read step, is what the read returns instead of the
	// outputs of the ids it was asked for: any ids, in any order, an id
	// twice — what a real bridge can send back. nil: the asked ids' outputs.
	Outputs []OutputSpec `json:"outputs,omitempty" yaml:"outputs,omitempty"`
}

// OutputSpec is one output a read step returns: a session id and its
// messages, oldest first.
type OutputSpec struct {
	ID       string   `json:"id" yaml:"id"`
	Messages []string `json:"messages" yaml:"messages"`
}

// UnmarshalYAML implements yaml.NodeUnmarshaler.
func (s *Step) UnmarshalYAML(n ast.Node) error {
	switch v := n.(type) {
	case *ast.IntegerNode:
		ms, err := strconv.ParseInt(strings.ReplaceAll(v.GetToken().Value, "_", ""), 10, 64)
		if err != nil || ms < 0 || ms > MaxMs {
			return nodeErr(n, "step", "latency must be an integer from 0 to %d ms, got %s", MaxMs, v.GetToken().Value)
		}
		*s = Step{LatencyMs: ms}
		return nil
	case *ast.StringNode:
		if v.Value == "stall" {
			*s = Step{Stall: true}
			return nil
		}
		return nodeErr(n, "step", "want %s; got %s", stepForms, shown(n))
	case *ast.MappingNode:
		*s = Step{}
		for _, kv := range v.Values {
			key := kv.Key.String()
			switch key {
			case "latencyMs":
				iv, ok := kv.Value.(*ast.IntegerNode)
				if !ok {
					return nodeErr(kv.Value, "latencyMs", "want an integer ≥ 0 (ms)")
				}
				ms, err := strconv.ParseInt(strings.ReplaceAll(iv.GetToken().Value, "_", ""), 10, 64)
				if err != nil || ms < 0 || ms > MaxMs {
					return nodeErr(kv.Value, "latencyMs", "latency must be from 0 to %d ms, got %s", MaxMs, iv.GetToken().Value)
				}
				s.LatencyMs = ms
			case "error", "panic":
				sv, ok := kv.Value.(*ast.StringNode)
				if !ok || sv.Value == "" {
					return nodeErr(kv.Value, key, "want a non-empty string")
				}
				if key == "error" {
					s.Error = sv.Value
				} else {
					s.Panic = sv.Value
				}
			case "outputs":
				outs, err := outputsOf(kv.Value)
				if err != nil {
					return err
				}
				s.Outputs = outs
			case "stall", "reject":
				bv, ok := kv.Value.(*ast.BoolNode)
				if !ok {
					return nodeErr(kv.Value, key, "want true or false")
				}
				if key == "stall" {
					s.Stall = bv.Value
				} else {
					s.Reject = bv.Value
				}
			default:
				return nodeErr(kv.Key, key, "unknown field in a step (want latencyMs, error, panic, stall, reject, outputs)")
			}
		}
		if s.Stall && (s.Error != "" || s.Reject) {
			return nodeErr(n, "step", "a stalled step cannot also fail or be rejected")
		}
		if s.Panic != "" && (s.Stall || s.Error != "" || s.Reject) {
			return nodeErr(n, "panic", "a step that panics cannot also stall, fail or be rejected")
		}
		if s.Outputs != nil && (s.Stall || s.Error != "" || s.Panic != "" || s.Reject) {
			return nodeErr(n, "outputs", "only a step that succeeds returns outputs")
		}
		return nil
	}
	return nodeErr(n, "step", "want %s; got %s", stepForms, shown(n))
}

// stepForms names the forms a bridge step may take, the one wording of
// every problem about a step's form.
const stepForms = `an integer (ms), "stall", or a mapping {latencyMs, error, panic, stall, reject, outputs}`

// outputsOf reads a step's outputs: a list of {id, messages}.
func outputsOf(n ast.Node) ([]OutputSpec, error) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, nodeErr(n, "outputs", "want a list of {id, messages}")
	}
	outs := []OutputSpec{}
	for i, item := range seq.Values {
		field := fmt.Sprintf("outputs[%d]", i)
		m, ok := item.(*ast.MappingNode)
		if !ok {
			return nil, nodeErr(item, field, "want {id, messages}")
		}
		o := OutputSpec{Messages: []string{}}
		seen := map[string]bool{}
		for _, kv := range m.Values {
			key := kv.Key.String()
			seen[key] = true
			switch key {
			case "id":
				sv, ok := kv.Value.(*ast.StringNode)
				if !ok || sv.Value == "" {
					return nil, nodeErr(kv.Value, field+".id", "want a non-empty string")
				}
				o.ID = sv.Value
			case "messages":
				ms, ok := kv.Value.(*ast.SequenceNode)
				if !ok {
					return nil, nodeErr(kv.Value, field+".messages", "want a list of strings")
				}
				for j, mv := range ms.Values {
					sv, ok := mv.(*ast.StringNode)
					if !ok {
						return nil, nodeErr(mv, fmt.Sprintf("%s.messages[%d]", field, j), "want a string")
					}
					o.Messages = append(o.Messages, sv.Value)
				}
			default:
				return nil, nodeErr(kv.Key, field+"."+key, "unknown field in an output (want id, messages)")
			}
		}
		if !seen["id"] || !seen["messages"] {
			return nil, nodeErr(item, field, "want both id and messages")
		}
		outs = append(outs, o)
	}
	return outs, nil
}

// Limit is a duration in ms (≥ 1), or "none".
type Limit struct {
	Ms   int64
	None bool
}

// UnmarshalYAML implements yaml.NodeUnmarshaler.
func (l *Limit) UnmarshalYAML(n ast.Node) error {
	switch v := n.(type) {
	case *ast.IntegerNode:
		ms, err := strconv.ParseInt(strings.ReplaceAll(v.GetToken().Value, "_", ""), 10, 64)
		if err != nil || ms < 1 {
			return nodeErr(n, "limit", `want an integer ≥ 1 (ms) or "none", got %s`, v.GetToken().Value)
		}
		*l = Limit{Ms: ms}
		return nil
	case *ast.StringNode:
		if v.Value == "none" {
			*l = Limit{None: true}
			return nil
		}
	}
	return nodeErr(n, "limit", `want an integer ≥ 1 (ms) or "none"`)
}

// Want is an expected reply field value: a scalar, or the words "absent" or
// "present".
type Want struct {
	Absent  bool
	Present bool
	Value   any // bool, int64 or string
}

// UnmarshalYAML implements yaml.NodeUnmarshaler.
func (w *Want) UnmarshalYAML(n ast.Node) error {
	switch v := n.(type) {
	case *ast.IntegerNode:
		i, err := strconv.ParseInt(strings.ReplaceAll(v.GetToken().Value, "_", ""), 10, 64)
		if err != nil {
			return nodeErr(n, "value", "not an integer: %s", v.GetToken().Value)
		}
		*w = Want{Value: i}
	case *ast.BoolNode:
		*w = Want{Value: v.Value}
	case *ast.StringNode:
		switch v.Value {
		case "absent":
			*w = Want{Absent: true}
		case "present":
			*w = Want{Present: true}
		default:
			*w = Want{Value: v.Value}
		}
	default:
		return nodeErr(n, "value", `want a scalar, "absent" or "present"`)
	}
	return nil
}

// String renders the expectation for messages.
func (w *Want) String() string {
	switch {
	case w.Absent:
		return "absent"
	case w.Present:
		return "present"
	}
	return fmt.Sprint(w.Value)
}

// MarshalYAML implements yaml.InterfaceMarshaler: a plain latency is an
// integer, a plain stall is "stall", anything else a map (with outputs: []
// kept, since a read that returns nothing differs from one that returns the
// asked ids).
func (s Step) MarshalYAML() (any, error) {
	switch {
	case s.Outputs == nil && !s.Stall && !s.Reject && s.Error == "" && s.Panic == "":
		return s.LatencyMs, nil
	case s.Outputs == nil && s.Stall && !s.Reject && s.Error == "" && s.Panic == "" && s.LatencyMs == 0:
		return "stall", nil
	}
	var m yaml.MapSlice
	if s.LatencyMs != 0 {
		m = append(m, yaml.MapItem{Key: "latencyMs", Value: s.LatencyMs})
	}
	if s.Error != "" {
		m = append(m, yaml.MapItem{Key: "error", Value: s.Error})
	}
	if s.Panic != "" {
		m = append(m, yaml.MapItem{Key: "panic", Value: s.Panic})
	}
	if s.Stall {
		m = append(m, yaml.MapItem{Key: "stall", Value: true})
	}
	if s.Reject {
		m = append(m, yaml.MapItem{Key: "reject", Value: true})
	}
	if s.Outputs != nil {
		m = append(m, yaml.MapItem{Key: "outputs", Value: s.Outputs})
	}
	return m, nil
}

// MarshalYAML implements yaml.InterfaceMarshaler: an integer, or "none".
func (l Limit) MarshalYAML() (any, error) {
	if l.None {
		return "none", nil
	}
	return l.Ms, nil
}

// MarshalYAML implements yaml.InterfaceMarshaler.
func (w Want) MarshalYAML() (any, error) {
	switch {
	case w.Absent:
		return "absent", nil
	case w.Present:
		return "present", nil
	}
	return w.Value, nil
}

// MarshalScenario writes sc as a scenario file a person could have written:
// the "# protects:" line, then the scenario.
func MarshalScenario(sc Scenario, protects string) ([]byte, error) {
	body, err := yaml.MarshalWithOptions(sc, yaml.IndentSequence(true))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s\n", ProtectsPrefix, protects)
	b.Write(body)
	return b.Bytes(), nil
}

// TransportSpec is the YAML form of sim.TransportSpec: the transport between
// a caller and the tool and what sits between them (contract §6). Times in
// virtual ms; 0 means none.
type TransportSpec struct {
	Mode           string  `json:"mode,omitempty" yaml:"mode,omitempty" jsonschema:"memory (default): the SDK's in-memory transport; sse, json, stateless-sse, stateless-json: the SDK's streamable HTTP handler and client over an in-memory network"`
	Protocol       string  `json:"protocol,omitempty" yaml:"protocol,omitempty" jsonschema:"the protocol version the caller asks for: 2025-11-25 or 2026-07-28; default: the SDK's (2026-07-28); a stateful handler answers 2026-07-28 with 2025-11-25"`
	EventStore     bool    `json:"eventStore,omitempty" yaml:"eventStore,omitempty" jsonschema:"give the handler an EventStore: under 2025-11-25 a client resumes a cut SSE stream 1000 ms after the cut"`
	IdleTimeoutMs  int64   `json:"idleTimeoutMs,omitempty" yaml:"idleTimeoutMs,omitempty" jsonschema:"a reverse proxy cuts a response that sent no byte for this long (504 before its headers); 0: no proxy"`
	WriteTimeoutMs int64   `json:"writeTimeoutMs,omitempty" yaml:"writeTimeoutMs,omitempty" jsonschema:"the server's write timeout: a write at or after the request's arrival plus this fails and closes the connection; 0: none"`
	DropAtMs       []int64 `json:"dropAtMs,omitempty" yaml:"dropAtMs,omitempty" jsonschema:"virtual instants at which the caller's connections drop (every open response is cut)"`
}
