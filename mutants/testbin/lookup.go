package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/suitebin"
	"github.com/waitsim/waitsim/workspace"
)

// Kept look-ups (issue 21 item 2). A warm campaign asked the go command
// three things whose answers had not changed since the campaign before:
// where this go's test2json is (`go tool -n test2json`: 0.17 s of wall
// time and 0.25 s of CPU), where the export data of the target's imports
// is (`go list -export -deps`, for the type checks: 0.27–0.29 s and 0.4 s
// of CPU), and which of the module's directories the suite imports (`go
// list -deps -test`, whose files are the suite's inputs: 0.13 s and 0.2 s
// of CPU; all measured 3 December 2026 on this module, 2 cores). Each
// answer is kept beside the kept binaries under the go command's settings
// (LookupEnvVars) — and for the two listings, the module's root, the
// content of every file of the module (moduleFiles: an import is a file's
// change) and the package —
// and read back only while every file it names is still there: test2json
// and the export data are files of the go command's build cache, named by
// the hash of what they were built from, which `go clean -cache` or the
// cache's own trimming may remove. An answer whose key changed while it
// was asked is used once and not kept.

// lookupVersion changes whenever the meaning of a kept look-up does.
const lookupVersion = "waitsim-lookup-v1"

// LookupEnvVars are the go command's settings the kept look-ups and
// gremlins' kept enumeration are keyed by: those that change a build
// (suitebin.GoEnvVars) and GOCACHE, where the files they name live.
var LookupEnvVars = append(slices.Clone(suitebin.GoEnvVars), "GOCACHE")

// goEnv is `go env -json` of LookupEnvVars: the campaign's (Go.GoEnv), or
// asked now.
func (g *Go) goEnv(ctx context.Context) (string, error) {
	if g.GoEnv != "" {
		return g.GoEnv, nil
	}
	out, err := g.Command(ctx, g.Root, "go", append([]string{"env", "-json"}, LookupEnvVars...)...).Output()
	return string(out), err
}

// Test2json is the path of the go command's test2json (`go tool -n
// test2json`), kept while the go command's settings are unchanged and the
// file is there. The error is the go command's.
func (g *Go) Test2json(ctx context.Context) (string, error) {
	key := func() string {
		env, err := g.goEnv(ctx)
		if err != nil {
			return ""
		}
		return lookupKey("test2json", env)
	}
	b, err := g.keptLookup("test2json", key, func() ([]byte, error) {
		return g.Command(ctx, g.Root, "go", "tool", "-n", "test2json").Output()
	}, func(b []byte) bool {
		p := strings.TrimSpace(string(b))
		st, err := os.Stat(p)
		return filepath.IsAbs(p) && err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
	})
	return strings.TrimSpace(string(b)), err
}

// listExport is `go list -export -deps` of target with format f, kept while
// the go command's settings and every file of the module are unchanged
// and every export file it names is there.
func (g *Go) listExport(ctx context.Context, target, f string) ([]byte, error) {
	return g.keptLookup("export", g.moduleLookupKey(ctx, "export", target, f), func() ([]byte, error) {
		return g.Command(ctx, g.Root, "go", "list", "-export", "-deps", "-f", f, target).Output()
	}, func(b []byte) bool {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			fields := strings.Split(l, "\t")
			if len(fields) < 2 {
				return false
			}
			if p := fields[1]; p != "" {
				if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() || !filepath.IsAbs(p) {
					return false
				}
			}
		}
		return true
	})
}

// ListDirs is `go list -deps -test` of pkg: the directory of each package
// of the main module that pkg's test binary imports, one per line (some
// more than once), kept while the go command's settings and every file of
// the module are unchanged (an import is a file's change) and every
// directory it names is there. The error is the go command's.
func (g *Go) ListDirs(ctx context.Context, pkg string) ([]byte, error) {
	const f = "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}"
	return g.keptLookup("dirs", g.moduleLookupKey(ctx, "dirs", pkg, f), func() ([]byte, error) {
		return g.Command(ctx, g.Root, "go", "list", "-deps", "-test", "-f", f, pkg).Output()
	}, func(b []byte) bool {
		for _, d := range strings.Fields(string(b)) {
			if st, err := os.Stat(d); err != nil || !st.IsDir() || !filepath.IsAbs(d) {
				return false
			}
		}
		return true
	})
}

// moduleLookupKey is the key of a look-up of kind whose answer depends on
// the go command's settings, the module's root (the answers name its
// directories: two copies of a module hold the same files), every file of
// the module and parts; "" when one cannot be read.
func (g *Go) moduleLookupKey(ctx context.Context, kind string, parts ...string) func() string {
	return func() string {
		env, err := g.goEnv(ctx)
		if err != nil {
			return ""
		}
		files, err := moduleFiles(g.Root)
		if err != nil {
			return ""
		}
		return lookupKey(kind, append([]string{env, g.Root, files}, parts...)...)
	}
}

// lookupKey hashes a look-up's kind and what decides its answer.
func lookupKey(kind string, parts ...string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s", lookupVersion, kind)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%s", p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// keptLookup is the answer of run, kept in g.KeptDir under key (computed
// before the run, and again after it: an answer whose key changed while it
// ran is used once and not kept) while valid holds for it. A key of ""
// keeps nothing. The error is run's.
func (g *Go) keptLookup(kind string, key func() string, run func() ([]byte, error), valid func([]byte) bool) ([]byte, error) {
	k, path := "", ""
	if g.KeptDir != "" {
		k = key()
	}
	if k != "" {
		path = filepath.Join(g.KeptDir, "lookup-"+kind+"-"+k[:32]+".txt")
		if text, err := limits.Read(path, limits.Results); err == nil && valid(text.Src) {
			now := time.Now()
			_ = os.Chtimes(path, now, now) // most recently used: pruned last
			return text.Src, nil
		}
	}
	b, err := run()
	if err != nil || path == "" || !valid(b) || key() != k {
		return b, err
	}
	if campaign.WriteAtomic(path, b, ".lookup-*") == nil {
		suitebin.PruneGlob(filepath.Join(g.KeptDir, "lookup-"+kind+"-*.txt"), path, keptKeep)
	}
	return b, nil
}

// moduleFiles hashes every regular file of the module at root by path and
// content — the sources, the tests, their data, go.mod, go.sum: everything
// a build or a test could read — but for .git, the root's out/ and nested
// modules; "" and the error when one cannot be read.
func moduleFiles(root string) (string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			if d.Name() == ".git" || filepath.Dir(p) == root && d.Name() == workspace.OutDir {
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
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		sum, err := workspace.HashFile(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", filepath.ToSlash(mutation.RelTo(root, p)), sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
