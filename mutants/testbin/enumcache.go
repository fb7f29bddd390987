package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/suitebin"
	"github.com/waitsim/waitsim/workspace"
)

// gremlins' enumeration (a run of the target's tests with coverage) is
// paid once while nothing it depends on changed: its output is kept in the
// binaries' cache directory under enumKey, which hashes the go command's
// settings, how gremlins is run, the target, and the content of every file
// of the module (the sources, the tests, their data, go.mod, go.sum,
// .gremlins.yaml: everything the tests could read), so that a stale
// enumeration can never drop a mutant silently.

// enumCacheVersion changes whenever the meaning of a kept enumeration does.
const enumCacheVersion = "waitsim-gremlins-enum-v1"

// enumKey is the key of the target's enumeration, or "" when the module's
// files cannot all be read.
func (g *Go) enumKey(ctx context.Context, target string) string {
	out, err := g.Command(ctx, g.Root, "go", "env", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "GOEXPERIMENT", "GOWORK", "GOROOT").Output()
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00env %s\x00args %q\x00target %s\x00", enumCacheVersion, out, workspace.GremlinsArgs(g.Root), target)
	var files []string
	err = filepath.WalkDir(g.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == g.Root {
				return nil
			}
			if d.Name() == ".git" || filepath.Dir(p) == g.Root && d.Name() == workspace.OutDir {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return ""
	}
	sort.Strings(files)
	for _, p := range files {
		sum, err := workspace.HashFile(p)
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "%s\x00%s\x00", filepath.ToSlash(mutation.RelTo(g.Root, p)), sum)
	}
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
		if b, err := os.ReadFile(path); err == nil {
			now := time.Now()
			_ = os.Chtimes(path, now, now)
			return b, true, nil
		}
	}
	b, err = dry(ctx)
	if err != nil || path == "" {
		return b, false, err
	}
	if again := g.enumKey(ctx, target); again == key && os.MkdirAll(dir, 0o755) == nil {
		if f, err := os.CreateTemp(dir, ".enum-*"); err == nil {
			_, werr := f.Write(b)
			cerr := f.Close()
			if werr == nil && cerr == nil && os.Rename(f.Name(), path) == nil {
				pruneEnums(dir, path)
			} else {
				os.Remove(f.Name())
			}
		}
	}
	return b, false, nil
}

// pruneEnums keeps the keptKeep most recently used enumerations of dir.
func pruneEnums(dir, just string) {
	suitebin.PruneGlob(filepath.Join(dir, "gremlins-enum-*.json"), just, keptKeep)
}
