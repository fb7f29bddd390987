// Package timeline draws one scenario case's trace: the timeline picture
// of its calls, tool events, bridge requests, agents and, over HTTP, each
// caller's wire, in virtual milliseconds since the start of the case's
// world. It draws it twice: as an SVG for the HTML report (SVG, with Legend
// and WireCSS for the page) and as trace-event JSON for Perfetto and
// chrome://tracing (TraceEvents, under the name TraceFileName gives).
//
// Rules:
//   - It reads one results.CaseResult and nothing else: no report, no
//     comparison, no file; it imports nothing of reports but reports/text.
//   - Its output is deterministic: identical cases give byte-identical
//     pictures (coordinates with one decimal, events in a fixed order).
//   - Text from the case (ids, messages, labels) is escaped (text.HTML)
//     before it reaches the SVG.
//   - It starts no goroutine (reports/racefree_test.go keeps it so).
package timeline
