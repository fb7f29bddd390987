package main

import (
	"os"

	"github.com/waitsim/waitsim/mutants"
)

// runMutate is `waitsim mutate [flags]` and `waitsim mutate merge …`: the
// mutation gate of issue 5 (see mutants.Main for flags, output and exit
// codes: 0 pass, 1 gate failed, 2 usage, 3 baseline failed or sanity mutant
// not killed, 4 zero mutants tested, 5 runner error, 6 environment error,
// 130/143 interrupted).
// args are the arguments after "mutate".
func runMutate(args []string) int {
	return mutants.Main(args, os.Stdout, os.Stderr)
}
