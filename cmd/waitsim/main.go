package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

const usage = `usage:
  waitsim run [--json] [--check-determinism N] [paths…]   run the scenario table (default: the test's own files)
  waitsim mutate [flags]                                   the mutation gate (waitsim mutate -h)
  waitsim report [flags]                                   render reports (waitsim report -h)
  waitsim serve FILE.yaml [--case ID] [--http ADDR]        a case's server on the real clock for real clients (waitsim serve -h)
  waitsim conformance [flags] [paths…]                     real clients vs the simulation (waitsim conformance -h)
  waitsim init [--dir DIR] [--target DIR]                  set this module up: a test, a first scenario, a CI workflow
`

// commands maps a subcommand to its entry point, which returns the exit code.
var commands = map[string]func(args []string) int{
	"run":    runScenarios,
	"mutate": runMutate,
	"report": runReport,
	"serve":  runServe,
	"init":   runInit,

	"conformance": runConformance,
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	switch name := os.Args[1]; name {
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		cmd, ok := commands[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "waitsim: unknown command %q\n%s", name, usage)
			os.Exit(2)
		}
		defaultToolchain()
		os.Exit(cmd(os.Args[2:]))
	}
}

// defaultToolchain sets GOTOOLCHAIN=auto for the go commands waitsim runs
// (go test -c, go list, go vet), unless the user set GOTOOLCHAIN: a machine
// whose go env says "local" and whose go is older than go.mod's go line
// (1.27.3) then fetches the toolchain go.mod asks for, as `make` does with its
// own GOTOOLCHAIN, instead of refusing every build.
func defaultToolchain() {
	if os.Getenv("GOTOOLCHAIN") == "" {
		os.Setenv("GOTOOLCHAIN", "auto")
	}
}

// parseInterleaved parses args with fs, flags before or after the
// positional arguments, and returns the positional ones in order. ok is false
// when the command must stop: code is then 0 for -h, 2 for a bad flag (fs has
// printed why).
func parseInterleaved(fs *flag.FlagSet, args []string) (positional []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		if fs.NArg() == 0 {
			return positional, 0, true
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
