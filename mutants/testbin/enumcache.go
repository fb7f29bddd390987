package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/suitebin"
	"github.com/waitsim/waitsim/workspace"
)

// gremlins' enumeration (a run of the target's tests with coverage) is
// paid once while nothing it depends on changed: its output is kept in the
// binaries' cache directory under enumKey, which hashes the go command's
// settings (LookupEnvVars), how gremlins is run, the target, and the
// content of every file of the module (moduleFiles) (the sources, the tests, their data, go.mod, go.sum,
// .gremlins.yaml: everything the tests could read), so that a stale
// enumeration can never drop a mutant silently.

// enumCacheVersion changes whenever the meaning of a kept enumeration does.
const enumCacheVersion = "waitsim-gremlins-enum-v3" // v3: the dry run runs no test (every site NOT COVERED)

// enumKey is the key of the target's enumeration, or "" when the go
// command's settings or the module's files cannot all be read.
func (g *Go) enumKey(ctx context.Context, target string) string {
	env, _, err := g.goEnv(ctx)
	if err != nil {
		return ""
	}
	files, err := moduleFiles(g.Root)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00env %s\x00args %q\x00target %s\x00files %s", enumCacheVersion, env, workspace.GremlinsArgs(g.Root), target, files)
	return hex.EncodeToString(h.Sum(nil))
}

// Enumerate is gremlins' dry run's JSON of target (run by dry): kept from an earlier campaign
// under the same key, or run now (and kept when the key still holds after
// it). reused says which.
func (g *Go) Enumerate(ctx context.Context, target string, dry func(context.Context) ([]byte, error)) (b []byte, reused bool, err error) {
	dir := g.KeptDir
	key := ""
	if dir != "" {
		key = g.enumKey(ctx, target)
	}
	path := ""
	if key != "" {
		path = filepath.Join(dir, "gremlins-enum-"+key[:32]+".json")
		// Read within the bounds of gremlins' own output (limits.Results)
		// and whole JSON; one that is not (cut short, tampered with) is
		// run again.
		if text, err := limits.Read(path, limits.Results); err == nil && json.Valid(text.Src) {
			now := time.Now()
			_ = os.Chtimes(path, now, now)
			return text.Src, true, nil
		}
	}
	b, err = dry(ctx)
	if err != nil || path == "" {
		return b, false, err
	}
	if again := g.enumKey(ctx, target); again == key && os.MkdirAll(dir, 0o755) == nil &&
		campaign.WriteAtomic(path, b, suitebin.TempEnum+"*") == nil {
		pruneEnums(dir, path)
	}
	return b, false, nil
}

// pruneEnums keeps the keptKeep most recently used enumerations of dir.
func pruneEnums(dir, just string) {
	suitebin.PruneGlob(filepath.Join(dir, "gremlins-enum-*.json"), just, keptKeep)
}
