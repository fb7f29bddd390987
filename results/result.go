package results

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/sim/timeline"
)

// ResultVersion is the version of the JSON written to out/scenarios.json.
const ResultVersion = 1

// Verdicts of a case.
const (
	VerdictPass  = "pass"  // every expectation and invariant held
	VerdictFail  = "fail"  // an expectation or an invariant did not hold
	VerdictError = "error" // the world could not run (horizon, stuck, setup)
	// VerdictSkip: the case does not apply to the tool under test (e.g. late
	// timers for a tool that reads package time); Error says why. Never a pass.
	VerdictSkip = "skip"
)

// CallSummary is one call of one caller as measured at the instant its reply
// resolved. Times in virtual ms since the world's start.
type CallSummary struct {
	Caller  string `json:"caller"`
	Index   int    `json:"index"`
	CallID  uint64 `json:"callId"` // the tool's call id (ToolEvent.CallID, BridgeRequest.CallID); 0 if none
	StartMs int64  `json:"startMs"`
	EndMs   int64  `json:"endMs"` // resolves at
	Lost    bool   `json:"lost,omitempty"`
	IsError bool   `json:"isError,omitempty"`
	// TimeoutMs is the timeoutMs the call passed (0 when not an integer).
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// Reply is the reply's JSON object as received (nil when lost or an error).
	Reply    map[string]any `json:"reply,omitempty"`
	Lists    int            `json:"lists"`    // list requests issued by this call
	Reads    int            `json:"reads"`    // output reads issued by this call
	Stranded int            `json:"stranded"` // its requests still in flight when it replied
	// LostBy says what lost a lost call: "request timeout" (the caller's
	// own), or what the transport did (e.g. "proxy idle timeout (60000 ms)").
	LostBy string `json:"lostBy,omitempty"`
	// CutBy names the cut of the call's stream after its headers that left
	// its client waiting, when it then lost the call to its own timeout
	// (sim.CallResult.CutBy): the transport's loss, seen late.
	CutBy string `json:"cutBy,omitempty"`
	// Cut says where the wire cut the call's own response when a cut lost
	// it (sim.CallResult.Cut): sim.CutBeforeHeaders (a proxy's 504) or
	// sim.CutAfterHeaders (an SSE stream closed after its headers).
	Cut string `json:"cut,omitempty"`
	// Progress counts the progress notifications the caller received for
	// this call (sim.CallResult.Progress).
	Progress int `json:"progress,omitempty"`
	// WireDelayMs: the reply may have reached the caller up to this much later
	// than the tool sent it (a resumed stream, sim.CallResult.WireDelayMs).
	WireDelayMs int64 `json:"wireDelayMs,omitempty"`
	// Wire describes the call's world for the survival matrix.
	Wire *WireDims `json:"wire,omitempty"`
	// Brief is the reply's key fields in one short text for the result
	// table (the pack's choice: e.g. "done=false remainingMs=570000").
	Brief string `json:"brief,omitempty"`
}

// ReplyInt reads the integer field name of the reply (remainingMs): a JSON
// number, decoded as float64, or an int, as a test's fixture writes it. ok
// is false when the reply has no such number.
func (s *CallSummary) ReplyInt(name string) (n int64, ok bool) {
	switch v := s.Reply[name].(type) {
	case float64:
		return int64(v), true
	case int:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

// WireDims are the dimensions of the survival matrix for one call: the
// tool's cap, whether the caller sent a progress token, the transport mode,
// the proxy's idle timeout (0: none) and the caller's profile ("" when none).
type WireDims struct {
	CapMs     int64  `json:"capMs"`
	Progress  bool   `json:"progress,omitempty"`
	Mode      string `json:"mode"`
	ProxyMs   int64  `json:"proxyMs,omitempty"`
	Profile   string `json:"profile,omitempty"`
	Transport string `json:"transport"` // sim.TransportSpec.Label
}

// Violation is one invariant that did not hold.
type Violation struct {
	Invariant string `json:"invariant"` // stable id, e.g. "resolves-by-deadline"
	Message   string `json:"message"`
}

// CaseResult is the outcome of one scenario case (one matrix expansion).
type CaseResult struct {
	ID        string        `json:"id"`             // stable, e.g. "boundary[timeoutMs=30500]"
	File      string        `json:"file"`           // path relative to the module root (absolute outside it)
	Pack      string        `json:"pack,omitempty"` // the pack that ran it ("" or "wait_agents": the contract pack; "generic")
	Line      int           `json:"line"`           // line of the scenario in File
	Protects  string        `json:"protects"`
	Verdict   string        `json:"verdict"`
	Failures  []string      `json:"failures,omitempty"`   // expectations that did not hold
	Violation []Violation   `json:"violations,omitempty"` // invariants that did not hold
	Error     string        `json:"error,omitempty"`      // runtime error (VerdictError)
	Calls     []CallSummary `json:"calls"`
	Requests  int           `json:"requests"` // bridge requests in all
	EndMs     int64         `json:"endMs"`    // virtual time when the world ended
	TraceHash string        `json:"traceHash"`
	Timeline  string        `json:"timeline"` // the trace as text
	// Structured views of the same run, for pictures: every trace entry, every
	// bridge request (times -1 = never), every tool event.
	Trace      []timeline.Entry `json:"trace"`
	BridgeReqs []BridgeRequest  `json:"bridgeRequests"`
	ToolEvents []ToolEvent      `json:"toolEvents"`
	Repro      string           `json:"repro"`  // the one command that re-runs just this case
	WallMs     float64          `json:"wallMs"` // wall time of the run
}

// RunResult is the whole of out/scenarios.json, and of the results file the
// test binary writes for a command (Params.Results).
type RunResult struct {
	Version int `json:"version"`
	// Commit and Tree say what the table was run on: the git commit (with
	// "-dirty") and the sha256 of the work tree's content (written by
	// `waitsim run`; see workspace.TreeState). A report refuses to combine
	// results whose trees differ. "" when unknown.
	Commit  string       `json:"commit,omitempty"`
	Tree    string       `json:"tree,omitempty"`
	Cases   []CaseResult `json:"cases"`
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Errors  int          `json:"errors"`
	Skipped int          `json:"skipped,omitempty"`
	// Problems are the problems found in the scenario files, one record
	// each; when there are any, no case ran.
	Problems []Problem `json:"problems,omitempty"`
	// Files are the scenario files the cases came from, each by its File
	// (as the cases record it) and the sha256 of its content then
	// (FileHash): a report checks them, so that a file the work tree's hash
	// leaves out (ignored, or a link out of the tree) cannot make stale
	// results pass. Not written for files from a test's fs.FS, nor for a
	// mutation runner's runs.
	Files map[string]string `json:"files,omitempty"`
	// Table is the test's own scenario table (waitsim.Params.Dir: what it
	// runs when a command gives no paths), recorded also when a command's
	// paths replace it, so that a report can tell a run of the whole table
	// from a run of a part of it. nil in results written before it was
	// recorded (a report shows those as no pass), and in a mutation
	// runner's kill-suite runs.
	Table *Table `json:"table,omitempty"`
	// Index lists every case the run loaded, in the table's order, with its
	// file and test name: the mutation runner orders its kill-first runs by
	// it. Written even when a run stops at its first failure.
	Index []IndexEntry `json:"index,omitempty"`
	// Serve is how serving a case ended, when the params asked for one
	// (Params.Serve).
	Serve *ServeResult `json:"serve,omitempty"`
	// WorldMs is what a run of the scenario generator as a kill suite
	// (Params.KillSuite, every world passing: a mutation campaign's
	// baseline) measured: each world's wall time in ms, by the world's
	// index from 0. The campaign tries the cheapest first
	// (HotRequest.GenOrder).
	WorldMs []float64 `json:"worldMs,omitempty"`
}

// Table is a test's own scenario table: its directory and every scenario
// file under it (*.yaml and *.yml, walked, as the door loads them), sorted,
// each named as a case names its File (relative to the module root). For a
// table read from a test's fs.FS (waitsim.Params.FS), FS is true and the
// names are paths in it.
type Table struct {
	Dir   string   `json:"dir"`
	Files []string `json:"files"`
	FS    bool     `json:"fs,omitempty"`
}

// IndexEntry is one case of a run's table: its id, the file that defines
// it, and the go test name of its subtest.
type IndexEntry struct {
	ID   string `json:"id"`
	File string `json:"file"`
	Test string `json:"test"`
}

// Count sets Passed, Failed and Errors from the cases' verdicts.
func (r *RunResult) Count() {
	r.Passed, r.Failed, r.Errors, r.Skipped = 0, 0, 0, 0
	for _, c := range r.Cases {
		switch c.Verdict {
		case VerdictPass:
			r.Passed++
		case VerdictFail:
			r.Failed++
		case VerdictSkip:
			r.Skipped++
		default:
			r.Errors++
		}
	}
}

// BridgeRequest is the record of one request to the wait_agents pack's
// simulated bridge (contract §3). Times are virtual ms; -1 means never.
type BridgeRequest struct {
	ID           int    `json:"id"`
	Op           string `json:"op"` // "list", "read" or "hold" (another requester)
	CallID       uint64 `json:"callId"`
	IssuedMs     int64  `json:"issuedMs"`
	DispatchedMs int64  `json:"dispatchedMs"`
	CompletedMs  int64  `json:"completedMs"`
	Err          string `json:"error,omitempty"`
	// Panic: the bridge call panicked with this value when it completed.
	Panic string `json:"panic,omitempty"`
	// SharedWith is the ID of the request whose result this one shared, or 0.
	SharedWith int `json:"sharedWith,omitempty"`
	// WakeLateMs: the request was issued in the step that released a tool
	// timer this late (ms).
	WakeLateMs *int64 `json:"wakeLateMs,omitempty"`
	// JitterMs is the latency the bridge's jitter added to this request.
	JitterMs int64 `json:"jitterMs,omitempty"`
}

// ToolEvent is one waittool.Event in virtual ms since the world's start.
// Kind is a waittool.EventKind ("start", "issue", "not-issued", "in-time",
// "failed", "lost", "sleep", "progress", "reply"); Detail is its detail (for
// "start": the capped ms; for "sleep": the sleep ms; for reads: "list"/"read").
type ToolEvent struct {
	CallID     uint64 `json:"callId"`
	Kind       string `json:"kind"`
	AtMs       int64  `json:"atMs"`
	Detail     string `json:"detail,omitempty"`
	CostMs     int64  `json:"costMs"`
	StartedMs  int64  `json:"startedMs"`
	DeadlineMs int64  `json:"deadlineMs"`
}

// FileHash is the hex sha256 of the scenario file at path, read within the
// bounds of a scenario file (limits.Scenario: a regular file, not too big).
func FileHash(path string) (string, error) {
	b, err := limits.ReadBytes(path, limits.Scenario)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
