package timeline

import (
	"encoding/json"
	"fmt"

	"github.com/waitsim/waitsim/results"
)

// Trace-event JSON (the Trace Event Format read by Perfetto and
// chrome://tracing): one file per scenario case, one process for the case and
// one thread per lane of its timeline. Timestamps "ts" and durations "dur"
// are virtual µs (virtual ms × 1000) since the world's start.

type traceFile struct {
	TraceEvents     []traceEvent      `json:"traceEvents"`
	DisplayTimeUnit string            `json:"displayTimeUnit"`
	OtherData       map[string]string `json:"otherData"`
}

type traceEvent struct {
	Name string            `json:"name"`
	Cat  string            `json:"cat,omitempty"`
	Ph   string            `json:"ph"`
	Ts   int64             `json:"ts"`
	Dur  *int64            `json:"dur,omitempty"`
	Pid  int               `json:"pid"`
	Tid  int               `json:"tid"`
	S    string            `json:"s,omitempty"`
	Args map[string]string `json:"args,omitempty"`
}

// TraceEvents renders one scenario case as trace-event JSON. Lanes are
// threads (named, in the timeline's order); spans are complete events ("X");
// marks are instant events ("i"), global ones (deadline, cap) with process
// scope.
func TraceEvents(c *results.CaseResult) ([]byte, error) {
	tl := buildTimeline(c)
	const pid = 1
	f := traceFile{DisplayTimeUnit: "ms", OtherData: map[string]string{
		"case": c.ID, "verdict": c.Verdict, "repro": c.Repro, "clock": "virtual time, µs since the world's start",
	}}
	f.TraceEvents = append(f.TraceEvents, traceEvent{Name: "process_name", Ph: "M", Pid: pid,
		Args: map[string]string{"name": "scenario " + c.ID}})
	for i, l := range tl.Lanes {
		f.TraceEvents = append(f.TraceEvents,
			traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: i + 1, Args: map[string]string{"name": l.Label}},
			traceEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: i + 1, Args: map[string]string{"sort_index": fmt.Sprint(i)}})
	}
	for _, s := range tl.Spans {
		d := (s.EndMs - s.StartMs) * 1000
		name := s.Label
		if name == "" {
			name = s.Class
		}
		args := map[string]string{"startMs": fmt.Sprint(s.StartMs), "endMs": fmt.Sprint(s.EndMs)}
		if s.Title != "" {
			args["detail"] = s.Title
		}
		if s.Open {
			args["open"] = "never ended: drawn to the end of the world"
		}
		f.TraceEvents = append(f.TraceEvents, traceEvent{Name: name, Cat: s.Class, Ph: "X", Ts: s.StartMs * 1000, Dur: &d,
			Pid: pid, Tid: s.Lane + 1, Args: args})
	}
	for _, m := range tl.Marks {
		ev := traceEvent{Name: m.Label, Cat: m.Class, Ph: "i", Ts: m.AtMs * 1000, Pid: pid, Tid: m.Lane + 1, S: "t",
			Args: map[string]string{"atMs": fmt.Sprint(m.AtMs)}}
		if m.Lane < 0 {
			ev.Tid, ev.S = 1, "p"
		}
		f.TraceEvents = append(f.TraceEvents, ev)
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// TraceFileName is the file name of a case's trace-event JSON:
// results.SafeFileName of the case id (the golden trace's name too), then
// ".json". Ids that collide only on a case-insensitive file system are told
// apart by the caller (see Write).
func TraceFileName(id string) string {
	return results.SafeFileName(id) + ".json"
}
