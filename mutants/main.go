package mutants

import (
	"context"
	"io"

	"github.com/waitsim/waitsim/mutants/cli"
)

// Main is `waitsim mutate` (cli.Main) running campaigns with Run.
func Main(args []string, stdout, stderr io.Writer) int {
	return cli.Main(args, stdout, stderr, Run)
}

// Command is Main without the signal handling (cli.Command): ctx's
// cancellation is the interrupt.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cli.Command(ctx, args, stdout, stderr, Run)
}
