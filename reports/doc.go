// Package reports turns the results of a waitsim run — the scenario table
// (out/scenarios.json), the mutation gate (out/mutation.json) and, when
// present, the conformance table (out/conformance.json) — into what
// people read: Markdown for a pull-request comment and a CI job summary, JUnit
// XML, Stryker's mutation-testing-report-schema JSON, a self-contained HTML
// report with a timeline picture per scenario, and a trace-event JSON per
// scenario for Perfetto and chrome://tracing. It also compares a base run with
// a head run.
//
// It is the door (Write, Annotations and, for cmd/waitsim, the model's names:
// Run, LoadRun, Assemble, CheckTree, LoadConformance, Compare) and the
// renderers. Below it: reports/model (the Run, its inputs checked, the
// comparison, the survival matrix), reports/timeline (one case's trace
// drawn as SVG and trace-event JSON) and reports/text (escaping, re-run
// lines); none of them imports this package.
//
// Every renderer is deterministic: identical inputs give byte-identical
// outputs. No renderer prints wall-clock data, dates or tool versions, except
// the conformance section, whose measurements are wall-clock times. Times
// are virtual milliseconds since the start of a scenario's world unless a name
// says otherwise.
//
// Rules:
//   - A report never shows a pass for data that is missing, stale or
//     inconsistent: inputs are checked (commit, tree, versions) first.
//   - Its inputs are read through limits.Read, as results files.
//   - Text from scenario or catalog files is escaped before it reaches
//     Markdown or HTML; a re-run line prints only as one plain command.
//   - It and every package under it start no goroutine
//     (reports/racefree_test.go keeps it so).
package reports
