package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/suitebin"
)

// Kept runs (issue 21 item 2). A baseline run that passed — the unmutated
// suite's, the generator's — is a function of the same inputs as a kept
// binary: the simulation is deterministic, so the same bytes on the same
// inputs pass again, as CheckedMark already relies on for the schemata
// binary. Its outcome is kept beside the kept binaries under the module's
// key (ModuleKey), the run's kind and what else decides it (its -run
// pattern, its params), and a campaign on unchanged inputs reads it instead
// of running the baseline again. Only passes are kept; a run whose inputs
// changed while it ran is not. A mutant's go vet pass is kept the same way
// (kind "vet", mutants/pool.go).

// keptKeep is how many enumerations, and kept runs of one kind, a
// directory holds (the most recently used).
const keptKeep = 10

// KeptVetKeep is how many kept vet passes (kind "vet") of one suite
// package a directory holds. The campaigns here vet a dozen mutants at
// most (the example module's independent implementation: 11 survivors of
// 64 operator mutants; this module's campaign: 2 listed equivalents), and
// the campaigns of several trees of one package (branches, worktrees)
// share the directory: 100 keeps the passes of several campaigns of each.
// A kept pass is a file of 4 bytes ("true").
const KeptVetKeep = 100

// KeptRunPath is the file that keeps the outcome of a run of kind decided
// also by parts, under the suite's inputs whose key is inputsKey (InputsKey,
// ModuleKey); "" when nothing can be kept (no directory).
func (g *Go) KeptRunPath(inputsKey, kind string, parts ...string) string {
	if g.KeptDir == "" || inputsKey == "" {
		return ""
	}
	modKey := inputsKey
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00run %s", binCacheVersion, modKey, kind)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%s", p)
	}
	return filepath.Join(g.KeptDir, g.keptName(kind)+"-"+hex.EncodeToString(h.Sum(nil))[:32]+".json")
}

// keptName is the name kept files of kind for the suite's package start
// with (KeptBuild's too).
func (g *Go) keptName(kind string) string {
	return strings.Trim(strings.ReplaceAll(filepath.ToSlash(filepath.Clean(g.Pkg)), "/", "-"), ".-") + "-" + kind
}

// LoadKeptRun reads the run kept at path into v (within the bounds of a
// results file, limits.Results); false when there is none or it cannot be
// read (then the run is made again).
func LoadKeptRun(path string, v any) bool {
	if path == "" {
		return false
	}
	text, err := limits.Read(path, limits.Results)
	if err != nil || json.Unmarshal(text.Src, v) != nil {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // most recently used: pruned last
	return true
}

// KeepRun keeps v, the outcome of a run of kind that passed, at path (from
// KeptRunPath before the run) when the suite's inputs, hashed again, are
// still those it was named for, and prunes the kind's older runs beyond
// the keep most recently used (keep ≤ 0: keptKeep). Nothing is kept on any
// failure: the next campaign runs it again.
func (g *Go) KeepRun(ctx context.Context, path, kind string, keep int, parts []string, v any) {
	if path == "" {
		return
	}
	if now, err := g.ModuleKey(ctx); err != nil || g.KeptRunPath(now, kind, parts...) != path {
		return
	}
	b, err := json.Marshal(v)
	if err != nil || campaign.WriteAtomic(path, b, suitebin.TempRun+"*") != nil {
		return
	}
	if keep <= 0 {
		keep = keptKeep
	}
	suitebin.PruneGlob(filepath.Join(g.KeptDir, g.keptName(kind)+"-*.json"), path, keep)
}
