package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
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
// of CPU; all measured 3 December 2026 on this module, 2 cores).
//
// Each answer is kept beside the kept binaries under the go command's
// settings (LookupEnvVars) — and for the two listings, the module's root,
// the files that decide which versions of which modules are used (go.mod,
// go.sum, vendor/modules.txt) and the package — with a stamp: the hash of
// every file (symbolic links followed) of every directory the listing
// names outside GOROOT and the module cache, which nothing edits. It is
// read back only while the stamp is the same (a changed import, a new
// file, an edit of a package replaced by a directory of its own, anywhere
// on the disk) and every file it names is there: test2json (which must lie
// in GOROOT or the build cache) and the export data are files of the go
// command's build cache, named by the hash of what they were built from,
// which `go clean -cache` or the cache's own trimming may remove.
//
// An answer is used once and not kept when its key changed while it was
// asked, or when a file its stamp hashes was written after the question
// began (less than writeSlack before it: a file system may keep whole
// seconds): the go command may have read it before the edit. Nor is a
// listing kept under GOFLAGS with -overlay or -modfile, whose files name
// other files still.

// lookupVersion changes whenever the meaning of a kept look-up does.
const lookupVersion = "waitsim-lookup-v2"

// writeSlack is how long before a question began a file its answer's stamp
// hashes may have been written and still be kept: file systems keep
// modification times to the second at worst (ext4, tmpfs and overlayfs
// to the nanosecond), so two seconds cover any.
const writeSlack = 2 * time.Second

// stamp is what a kept answer is read back under: the hash of the files
// it depends on, the latest time one of them was written, and whether the
// answer can serve at all.
type stamp struct {
	hash   string
	newest time.Time
	ok     bool
}

// LookupEnvVars are the go command's settings the kept look-ups and
// gremlins' kept enumeration are keyed by: those that change a build
// (suitebin.GoEnvVars), and GOCACHE and GOMODCACHE, where the files they
// name live.
var LookupEnvVars = append(slices.Clone(suitebin.GoEnvVars), "GOCACHE", "GOMODCACHE")

// goEnv is `go env -json` of LookupEnvVars: the campaign's (Go.GoEnv), or
// asked now; and its values.
func (g *Go) goEnv(ctx context.Context) (string, map[string]string, error) {
	out := []byte(g.GoEnv)
	if g.GoEnv == "" {
		var err error
		if out, err = g.Command(ctx, g.Root, "go", append([]string{"env", "-json"}, LookupEnvVars...)...).Output(); err != nil {
			return "", nil, err
		}
	}
	var vars map[string]string
	if err := json.Unmarshal(out, &vars); err != nil {
		return "", nil, err
	}
	return string(out), vars, nil
}

// Test2json is the path of the go command's test2json (`go tool -n
// test2json`), kept while the go command's settings are unchanged and the
// file is there. The error is the go command's.
func (g *Go) Test2json(ctx context.Context) (string, error) {
	env, vars, err := g.goEnv(ctx)
	key := func() string {
		if err != nil {
			return ""
		}
		return lookupKey("test2json", env)
	}
	b, rerr := g.keptLookup("test2json", key, func() ([]byte, error) {
		return g.Command(ctx, g.Root, "go", "tool", "-n", "test2json").Output()
	}, func(b []byte) stamp {
		p := strings.TrimSpace(string(b))
		st, err := os.Stat(p)
		return stamp{ok: err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 && filepath.Base(p) == "test2json" &&
			(within(p, vars["GOROOT"]) || within(p, vars["GOCACHE"]))}
	})
	return strings.TrimSpace(string(b)), rerr
}

// listExport is `go list -export -deps` of target with format f, whose
// fields are tab-separated and begin with the import path, the export file
// and the directory: kept as a listing (moduleLookup), while every export
// file it names is there.
func (g *Go) listExport(ctx context.Context, target, f string) ([]byte, error) {
	return g.moduleLookup(ctx, "export", func() ([]byte, error) {
		return g.Command(ctx, g.Root, "go", "list", "-export", "-deps", "-f", f, target).Output()
	}, func(b []byte) ([]string, bool) {
		var dirs []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			fields := strings.Split(l, "\t")
			if len(fields) < 3 {
				return nil, false
			}
			if p := fields[1]; p != "" {
				if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() || !filepath.IsAbs(p) {
					return nil, false
				}
			}
			dirs = append(dirs, fields[2])
		}
		return dirs, true
	}, target, f)
}

// ListDirs is `go list -deps -test` of pkg: the directory of each package
// pkg's test binary imports that lies outside GOROOT and the module cache
// (the main module's, vendored ones, those of a directory a replace
// directive points at), one per line (some more than once), kept as a
// listing (moduleLookup). The error is the go command's.
func (g *Go) ListDirs(ctx context.Context, pkg string) ([]byte, error) {
	const f = "{{.Dir}}"
	_, vars, _ := g.goEnv(ctx) // none: every directory is listed
	return g.moduleLookup(ctx, "dirs", func() ([]byte, error) {
		out, err := g.Command(ctx, g.Root, "go", "list", "-deps", "-test", "-f", f, pkg).Output()
		if err != nil {
			return out, err
		}
		var dirs []byte
		for _, d := range Lines(out) {
			if !within(d, vars["GOROOT"]) && !within(d, vars["GOMODCACHE"]) {
				dirs = append(append(dirs, d...), '\n')
			}
		}
		return dirs, nil
	}, func(b []byte) ([]string, bool) { return Lines(b), true }, pkg, f)
}

// Lines are the lines of b that are not empty.
func Lines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// moduleLookup is a listing of kind made by run, kept under the go
// command's settings, the module's root (a listing names its directories:
// two copies of a module hold the same files), its module files (modFiles)
// and parts, and stamped with the content of the directories dirs finds in
// it (dirsStamp); dirs says false when the listing cannot serve.
func (g *Go) moduleLookup(ctx context.Context, kind string, run func() ([]byte, error), dirs func([]byte) ([]string, bool), parts ...string) ([]byte, error) {
	env, vars, err := g.goEnv(ctx)
	key := func() string {
		if err != nil || namesFiles(vars["GOFLAGS"]) {
			return ""
		}
		mods, err := modFiles(g.Root)
		if err != nil {
			return ""
		}
		return lookupKey(kind, append([]string{env, g.Root, mods}, parts...)...)
	}
	return g.keptLookup(kind, key, run, func(b []byte) stamp {
		d, ok := dirs(b)
		if !ok {
			return stamp{}
		}
		return dirsStamp(vars, d)
	})
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
// ran is used once and not kept) with its stamp, and read back while
// stamp gives the same for it; stamp's false: the answer cannot serve (it
// is not kept, or not read back). A key of "" keeps nothing. The error is
// run's.
func (g *Go) keptLookup(kind string, key func() string, run func() ([]byte, error), stampOf func([]byte) stamp) ([]byte, error) {
	k, path := "", ""
	if g.KeptDir != "" {
		k = key()
	}
	if k != "" {
		path = filepath.Join(g.KeptDir, "lookup-"+kind+"-"+k[:32]+".txt")
		if text, err := limits.Read(path, limits.Results); err == nil {
			if kept, answer, ok := strings.Cut(string(text.Src), "\n"); ok {
				if now := stampOf([]byte(answer)); now.ok && now.hash == kept {
					t := time.Now()
					_ = os.Chtimes(path, t, t) // most recently used: pruned last
					return []byte(answer), nil
				}
			}
		}
	}
	asked := time.Now()
	b, err := run()
	if err != nil || path == "" {
		return b, err
	}
	st := stampOf(b)
	if !st.ok || !st.newest.Before(asked.Add(-writeSlack)) || key() != k {
		return b, nil
	}
	if campaign.WriteAtomic(path, append([]byte(st.hash+"\n"), b...), suitebin.TempLookup+"*") == nil {
		suitebin.PruneGlob(filepath.Join(g.KeptDir, "lookup-"+kind+"-*.txt"), path, keptKeep)
	}
	return b, nil
}

// namesFiles reports whether GOFLAGS names files whose content the go
// command reads in place of others (-overlay, -modfile): no listing is
// kept under them.
func namesFiles(goflags string) bool {
	return slices.ContainsFunc(strings.Fields(goflags), func(f string) bool {
		f = strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-")
		return strings.HasPrefix(f, "overlay") || strings.HasPrefix(f, "modfile")
	})
}

// modFiles hashes the files of the module at root that decide which
// version of which module a build uses: go.mod, go.sum and
// vendor/modules.txt (each, or its absence); the error when one is there
// but cannot be read.
func modFiles(root string) (string, error) {
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", filepath.Join("vendor", "modules.txt")} {
		sum, err := workspace.HashFile(filepath.Join(root, f))
		if errors.Is(err, fs.ErrNotExist) {
			sum = "absent"
		} else if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", f, sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// dirsStamp hashes, by name and content, every regular file (symbolic
// links followed) of each directory of dirs that lies outside GOROOT and
// the module cache (vars: go env), whose files nothing edits, and notes
// the latest time one was written; not ok when one is not an absolute
// path or cannot be read.
func dirsStamp(vars map[string]string, dirs []string) stamp {
	dirs = slices.Clone(dirs)
	sort.Strings(dirs)
	h := sha256.New()
	var newest time.Time
	for _, d := range slices.Compact(dirs) {
		if !filepath.IsAbs(d) {
			return stamp{}
		}
		if within(d, vars["GOROOT"]) || within(d, vars["GOMODCACHE"]) {
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return stamp{}
		}
		fmt.Fprintf(h, "dir %s\x00", d)
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			st, err := os.Stat(p)
			if err != nil || !st.Mode().IsRegular() {
				continue // a directory, or a link to nothing
			}
			sum, err := workspace.HashFile(p)
			if err != nil {
				return stamp{}
			}
			if st.ModTime().After(newest) {
				newest = st.ModTime()
			}
			fmt.Fprintf(h, "%s\x00%s\x00", e.Name(), sum)
		}
	}
	return stamp{hash: hex.EncodeToString(h.Sum(nil)), newest: newest, ok: true}
}

// within reports whether the absolute path p lies in directory dir.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// moduleFiles hashes every regular file (or link to one) of the module at
// root by path and content — the sources, the tests, their data, go.mod, go.sum: everything
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
		} else if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			files = append(files, p) // a link to a file: its content counts
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
