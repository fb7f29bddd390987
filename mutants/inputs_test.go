package mutants

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/waitsim/waitsim/mutants/campaign"
)

// editOnce is a progress writer that, at the first line (a mutant judged),
// appends a comment to file: an edit of the suite's inputs while the
// campaign runs.
type editOnce struct {
	t    *testing.T
	file string
	once sync.Once
}

func (e *editOnce) Write(p []byte) (int, error) {
	e.once.Do(func() {
		f, err := os.OpenFile(e.file, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("\n// edited while the campaign ran\n")
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			e.t.Error(err)
		}
	})
	return len(p), nil
}

// TestInputsChangedDuringRun: a file of the suite's inputs that changes
// while the campaign runs fails the campaign, naming the file, instead of
// giving verdicts that may mix two versions of the code.
func TestInputsChangedDuringRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign")
	}
	t.Parallel()
	root := copyFixture(t)
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	cfg.Root = root
	cfg.Workers = 1
	cfg.Only = regexp.MustCompile("^(add-subtracts|clamp-zero)$")
	cfg.Progress = &editOnce{t: t, file: filepath.Join(root, "calc", "calc.go")}
	res, err := Run(context.Background(), cfg)
	if err == nil {
		t.Fatalf("the campaign passed over an edit of its inputs: exit %d, gate %q", res.ExitCode, res.Gate)
	}
	if msg := err.Error(); !strings.Contains(msg, "inputs changed during the run") || !strings.Contains(msg, "calc/calc.go") {
		t.Fatalf("error %q does not say that calc/calc.go changed during the run", msg)
	}
}
