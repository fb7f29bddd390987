package testbin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/suitebin"
	"github.com/waitsim/waitsim/workspace"
)

// Go is how a campaign runs the go command on its suite: in the module's
// root, with the campaign's environment, its private temporary directory
// and the cache of kept binaries. The runner makes one from its own state
// whenever it needs one (the fields are not updated behind its back).
type Go struct {
	Root      string   // the module's root
	Env       []string // the environment of every child process
	Pkg       string   // the suite's package (verdict.Suite.Pkg)
	Tmp       string   // the campaign's private temporary directory
	KeptDir   string   // the directory of kept binaries and enumerations ("": none; KeptDir)
	Salt      string   // go version, platform, suite: part of every key
	InputDirs []string // the directories of the suite's inputs (nil: not known yet)
	// InputsKey is the key of the suite's inputs as the campaign hashed
	// them at its start (InputsKey; "": not known yet). KeptBuild looks a
	// kept binary up by it instead of hashing the inputs again: an edit
	// after the start is caught by the campaign's own check at its end,
	// which fails the campaign.
	InputsKey string
	Clean     func(string) string // what the reader is shown of a compiler's or vet's output
	GoFlags   string              // the go command's GOFLAGS (go env): whether Build adds suitebin.LinkFlags
	// NoVet makes Build pass -vet=off to `go test -c`, whose vet checks
	// only the package under test: the runner sets it when that package
	// (the suite's) holds no mutated file, so that its vet would only check
	// unmutated code again (about 0.3 s of CPU of each build of
	// ./scenarios/ after a change of waittool/: 1.3 s with it, 1.0 s
	// without, 3 December 2026).
	NoVet bool
	// GoEnv is `go env -json` of LookupEnvVars as the campaign ran it at
	// its start ("": the kept look-ups and enumeration run it themselves).
	GoEnv string
}

// Command prepares a child process: in dir, with the runner's environment,
// in its own process group that is killed as a whole when ctx ends.
func (g *Go) Command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := workspace.GroupCommand(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = g.Env
	return cmd
}

// OverlayFile writes the overlay JSON of `go build -overlay` mapping each
// root-relative path of files to a copy of its mutated bytes under dir.
func (g *Go) OverlayFile(dir string, files map[string][]byte) (string, error) {
	replace := map[string]string{}
	for rel, b := range files {
		dst, err := campaign.Within(filepath.Join(dir, "src"), rel)
		if err != nil {
			return "", fmt.Errorf("%w: overlay: %v", verdict.ErrUsage, err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(g.Root, filepath.FromSlash(rel))] = dst
	}
	j, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	ov := filepath.Join(dir, "overlay.json")
	return ov, os.WriteFile(ov, j, 0o644)
}

// Build compiles the suite's test binary to bin, through overlay when not
// "". A compile error (or one of the vet checks `go test` runs) is returned
// as *campaign.NotViable with the compiler's output; a build that failed because of
// the machine (campaign.BuildFailure) as *campaign.EnvError.
func (g *Go) Build(ctx context.Context, overlay, bin string) error {
	args := append([]string{"test", "-c", "-o", bin}, suitebin.LinkFlags(g.GoFlags)...)
	if g.NoVet {
		args = append(args, "-vet=off")
	}
	if overlay != "" {
		args = append(args, "-overlay="+overlay)
	}
	args = append(args, g.Pkg)
	out, err := g.Command(ctx, g.Root, "go", args...).CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		what := "does not compile"
		if !g.NoVet {
			what = "does not compile or fails go test's vet checks"
		}
		return campaign.BuildFailure("building the test binary (go test -c)", what, err, g.Clean(string(out)))
	}
	return nil
}

// Vet runs `go vet` (its default analyzers, as `make vet` does) on the
// packages of the overlaid files: *campaign.NotViable when vet finds fault with the
// code, *campaign.EnvError when the machine failed it (campaign.BuildFailure).
func (g *Go) Vet(ctx context.Context, overlay string, files map[string][]byte) error {
	dirs := map[string]bool{}
	for rel := range files {
		dirs["./"+filepath.ToSlash(filepath.Dir(filepath.FromSlash(rel)))+"/"] = true
	}
	args := []string{"vet", "-overlay=" + overlay}
	for d := range dirs {
		args = append(args, d)
	}
	sort.Strings(args[2:])
	out, err := g.Command(ctx, g.Root, "go", args...).CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return campaign.BuildFailure("go vet", "fails vet", err, g.Clean(string(out)))
	}
	return nil
}
