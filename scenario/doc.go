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
//     at once, sorted by place.
//   - A file's bytes are checked against the limits (limits.go) before the
//     YAML parser sees them; nothing read grows without bound.
//   - The format knows the keys of the wait_agents pack (bridge, agents,
//     changes, reply…); a loader for another pack refuses them by name
//     (Options.Pack).
//   - It converts a case to the generic parts of a world (callers,
//     transports, profiles: world.go); the pack that runs it adds the rest.
//   - Times are virtual ms.
package scenario
