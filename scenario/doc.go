// Package scenario is the scenario file format and its loader: the YAML
// types (Scenario and what it holds), the limits a file is checked against
// before it is parsed, the field rules, matrix expansion, the checks of a
// call's arguments against the tool's published input schema, and the JSON
// Schema of the format. Load turns files into Cases, ready to run, or
// returns every problem as a record (results.Problem: file, line, column,
// field, message).
//
// Rules:
//   - Every file is checked whole before anything runs: all its problems
//     at once, sorted by place, at most MaxProblemsPerFile of them.
//   - A file is read through the limits package (limits.Read with
//     limits.Scenario: a regular file, its bytes, depth, entries and values)
//     before the YAML parser sees it; what a file makes waitsim build or run
//     once parsed (the work of checking its cases, generated messages,
//     calls) is bounded at load (limits.go). Nothing read grows without
//     bound.
//   - The format knows the keys of the wait_agents pack (bridge, agents,
//     changes, reply…); a loader for another pack refuses them by name
//     (Options.Pack).
//   - It converts a case to the generic parts of a world (callers,
//     transports, profiles: world.go); the pack that runs it adds the rest.
//   - Times are virtual ms.
package scenario
