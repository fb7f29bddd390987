// Package results holds what crosses between waitsim's processes and its
// readers: the results of a scenario run (RunResult, out/scenarios.json),
// the parameters a command hands the test binary that runs the table
// (Params), problems found in input files as records (Problem) and the
// "did you mean" of an unknown name (Nearest), and the
// texts people read of them (PrintTable, FailureReport, Repro).
//
// Rules:
//   - Types here are data: JSON in and out, no behaviour beyond rendering.
//     Times are virtual ms since a world's start unless stated.
//   - Between processes only these types travel, as JSON files: never a line
//     format, a comma list or text parsed back.
//   - A results file carries a version (ResultVersion, ParamsVersion); a
//     reader refuses another one.
//   - It imports nothing of waitsim but sim (trace entries) and limits (the
//     gate every file read goes through: ReadParams, ReadRun).
package results
