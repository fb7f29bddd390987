// Package model is the report's model: a Run (one run's scenario table,
// mutation gate and, when present, conformance table) assembled from the
// producers' files and checked, a Run file (run.json) read and checked, the
// comparison of a base run with a head run (Compare), and the survival
// matrix of a scenario result (Survival). Every renderer of reports reads
// these types; the model renders nothing.
//
// Rules:
//   - A Run never holds data that is missing, stale or inconsistent: inputs
//     are checked (versions, types, counts against their rows, commit and
//     tree) and refused with an *InputError naming the file and field.
//   - Its inputs are read through limits.Read, as results files.
//   - A Run is deterministic: Normalize drops wall-clock fields, and a Run
//     marshals byte-stably.
//   - It imports nothing of reports but reports/text; no renderer.
//   - It starts no goroutine (reports/racefree_test.go keeps it so).
package model
