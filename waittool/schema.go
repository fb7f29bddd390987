package waittool

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Description is the tool description published in tools/list. It states the
// 30-second cap, remainingMs and the call-again instruction (contract §2 step 10).
const Description = "Waits until the child agents of a run are no longer active, then returns their outputs. " +
	"One call waits at most 30 seconds (30000 ms), whatever timeoutMs asks. " +
	"If the wait is cut short, the reply carries remainingMs: call this tool again with timeoutMs set to remainingMs to keep waiting."

// TimeoutMsDescription is the description of the timeoutMs input field
// (contract §2 step 10).
const TimeoutMsDescription = "Total time to wait in ms, across calls (1000 to 600000, default 30000). " +
	"One call waits at most 30 seconds; a reply that was cut short carries remainingMs: call again with timeoutMs set to it."

// fieldBound is one integer field's rule of contract §2's input table.
type fieldBound struct {
	name          string
	min, max, def int
	desc          string
}

// inputBounds lists the integer fields of Input with their schema bounds and
// defaults (contract §2 "Input").
var inputBounds = []fieldBound{
	{"timeoutMs", MinTimeoutMs, MaxTimeoutMs, 30000, TimeoutMsDescription},
	{"pollIntervalMs", MinPollIntervalMs, 10000, 1000, "Time between two lists of the agents, in ms."},
	{"maxMessagesPerAgent", 1, 100, 20, "Most recent messages kept per agent."},
	{"maxCharsPerMessage", 50, 100000, 4000, "Characters kept per message."},
	{"maxCharsPerAgent", 100, 500000, 20000, "Characters kept per agent, over its messages."},
	{"maxTotalChars", 1000, 2000000, 100000, "Characters kept over all agents."},
}

// InputSchema returns the published input schema: the schema inferred from
// Input, with every bound and default of contract §2 set on its properties, and
// sessionIds required to be non-empty when given. It errors only if inference fails.
func InputSchema() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[Input](nil)
	if err != nil {
		return nil, err
	}
	for _, b := range inputBounds {
		p, ok := s.Properties[b.name]
		if !ok {
			return nil, fmt.Errorf("input schema: no property %q", b.name)
		}
		lo, hi := float64(b.min), float64(b.max)
		p.Minimum, p.Maximum = &lo, &hi
		p.Default = json.RawMessage(fmt.Sprint(b.def))
		p.Description = b.desc
	}
	one := 1
	s.Properties["sessionIds"].MinItems = &one
	s.Properties["sessionIds"].Description = "The scope: only these children are waited on and reported. Default: all children of the run."
	s.Properties["runId"].Description = "The run whose children are waited on. Default: the current run."
	return s, nil
}

// OutputSchema returns the published output schema: the schema inferred from
// Reply, with remainingMs bounded like timeoutMs, since it is what the next call
// passes as timeoutMs (contract §2 step 9).
func OutputSchema() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[Reply](nil)
	if err != nil {
		return nil, err
	}
	p, ok := s.Properties["remainingMs"]
	if !ok {
		return nil, fmt.Errorf("output schema: no property remainingMs")
	}
	lo, hi := float64(MinTimeoutMs), float64(MaxTimeoutMs)
	p.Minimum, p.Maximum = &lo, &hi
	p.Description = "What the next call passes as timeoutMs; present only when the wait was cut short."
	return s, nil
}
