// Package verdict is the mutation gate's judgement and its record: the
// result file (out/mutation.json: Result, MutantResult, the statuses), the
// gate that judges it (Evaluate, scores, exit codes), the merge of shards,
// and the ratchet of accepted survivors (mutants/accepted.yaml).
//
// Rules:
//   - It runs nothing: it reads a result and the accepted file, never a
//     process, a build or a campaign; reports/ and the campaign runner
//     both read results through it.
//   - Evaluate is the one place a gate and an exit code are decided; a
//     result read from a file is recomputed (Check, Evaluate), never
//     trusted.
//   - A survivor fails the gate unless the committed accepted file lists it
//     with a reason (the ratchet, accepted.go).
//   - Every file it reads goes through limits.Read before a parser sees it;
//     a problem in one is a usage error (ErrUsage), naming
//     file:line:column, at most MaxProblems of them.
//   - It imports no other package of mutants/.
package verdict
