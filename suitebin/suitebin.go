package suitebin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/waitsim/waitsim/workspace"
)

// DirEnv, when set, names the cache directory of the commands that keep
// test binaries (`waitsim run`, `waitsim mutate`) instead of the user cache
// directory's waitsim/suitebin.
const DirEnv = "WAITSIM_SUITEBIN_DIR"

// keyVersion changes whenever the meaning of a key does (v2: the binaries
// are linked with LinkFlags).
const keyVersion = "waitsim-suitebin-v2"

// LinkFlags are the flags of every `go test -c` that builds a test binary
// for waitsim (a suite's binary here; a mutant's and the schemata binary,
// mutants/testbin), given the go command's GOFLAGS: -ldflags=-w, which
// leaves out the DWARF debugging data nobody reads from these binaries (a
// panic's trace and the race detector's reports come from the binary's own
// tables). It cuts the link's CPU by about a quarter: `go test -c` of
// ./scenarios/, every package cached, 1.38–1.39 s of user CPU without it and
// 1.04–1.09 s with it (two runs each, 3 December 2026). None when GOFLAGS
// holds -ldflags already: a flag on the command line would replace the
// user's.
func LinkFlags(goflags string) []string {
	if strings.Contains(goflags, "-ldflags") {
		return nil
	}
	return []string{"-ldflags=-w"}
}

// moduleTag tells the cache's binaries of one module from another's with
// a package of the same name (waitsimtest/ in every module init set up):
// the first 8 hex digits of the sha256 of the module path (of root, when
// go.mod names none). Each module's package then has its own keep slots;
// before, every module's waitsimtest shared three and evicted each other's.
func moduleTag(root string) string {
	m := workspace.ModulePath(root)
	if m == "" {
		m = root
	}
	sum := sha256.Sum256([]byte(m))
	return hex.EncodeToString(sum[:4])
}

// keep is how many binaries of one package of one module the cache keeps
// (the most recently used).
const keep = 3

// GoEnvVars are the go command's settings that can change what `go test -c`
// builds (and what `go vet` checks); their values go into the key.
var GoEnvVars = []string{"GOVERSION", "GOROOT", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOFLAGS", "GOEXPERIMENT",
	"CGO_ENABLED", "CC", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_LDFLAGS", "GOWORK"}

// Options say which test binary to get and where to keep it.
type Options struct {
	Root string // the module root (the directory of go.mod); required
	Pkg  string // the package, "./dir/" relative to Root; required
	// Dir is the cache directory. "" is the user cache directory's
	// waitsim/suitebin (os.UserCacheDir), or, where there is none, no
	// cache: the binary is built into Scratch on every call.
	Dir string
	// Scratch is a directory for a binary that cannot be cached (no cache
	// directory, or the sources changed during the build). Required.
	Scratch string
	// Env is the go command's environment (nil: os.Environ()).
	Env []string
	// Command makes the child processes (nil: exec.CommandContext); the
	// mutation runner passes its own, which kills a whole process group.
	Command func(ctx context.Context, name string, args ...string) *exec.Cmd
}

// Result is the binary Binary found or built.
type Result struct {
	Path  string        // the test binary
	Key   string        // the sha256 of its inputs (hex)
	Built bool          // false: reused from the cache
	Build time.Duration // the time `go test -c` took (0 when reused)
}

// BuildError is a build that failed: the go command's output.
type BuildError struct{ Output string }

func (e *BuildError) Error() string { return "go test -c failed:\n" + e.Output }

// Binary returns the test binary of o.Pkg built from the module as it is
// now: from the cache when a binary with the same key is there, else built
// with `go test -c` and stored under the key. When the sources change while
// it builds, the new binary is used once and not stored. A build failure is
// a *BuildError.
func Binary(ctx context.Context, o Options) (Result, error) {
	if o.Root == "" || o.Pkg == "" || o.Scratch == "" {
		return Result{}, errors.New("suitebin: Root, Pkg and Scratch are required")
	}
	o.defaults()
	if o.Dir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			o.Dir = filepath.Join(d, "waitsim", "suitebin")
		}
	}
	key, goflags, err := key(ctx, o)
	if err != nil {
		return Result{}, err
	}
	name := strings.Trim(strings.ReplaceAll(filepath.ToSlash(filepath.Clean(o.Pkg)), "/", "-"), ".-")
	if name == "" {
		name = "root"
	}
	name += "-" + moduleTag(o.Root)
	if o.Dir != "" {
		p := filepath.Join(o.Dir, name+"-"+key[:32]+".test")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			now := time.Now()
			_ = os.Chtimes(p, now, now) // most recently used
			return Result{Path: p, Key: key}, nil
		}
		if err := os.MkdirAll(o.Dir, 0o755); err == nil {
			SweepStale(o.Dir)
			return build(ctx, o, key, goflags, name, p)
		}
	}
	return build(ctx, o, key, goflags, name, "")
}

func (o *Options) defaults() {
	if o.Command == nil {
		o.Command = exec.CommandContext
	}
}

// build builds the binary (LinkFlags of goflags, the go command's GOFLAGS)
// into a temporary file and, when dst is not "" and the key still holds,
// renames it to dst.
func build(ctx context.Context, o Options, key, goflags, name, dst string) (Result, error) {
	dir := o.Scratch
	if dst != "" {
		dir = filepath.Dir(dst)
	}
	f, err := os.CreateTemp(dir, TempBuild+name+"-*.test")
	if err != nil {
		return Result{}, err
	}
	tmp := f.Name()
	f.Close()
	start := time.Now()
	cmd := o.Command(ctx, "go", append(append([]string{"test", "-c", "-o", tmp}, LinkFlags(goflags)...), o.Pkg)...)
	cmd.Dir, cmd.Env = o.Root, o.Env
	out, err := cmd.CombinedOutput()
	res := Result{Key: key, Built: true, Build: time.Since(start)}
	if err != nil {
		os.Remove(tmp)
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{}, &BuildError{Output: strings.TrimSpace(string(out))}
	}
	if dst != "" {
		if again, err := Key(ctx, o); err == nil && again == key {
			if err := os.Rename(tmp, dst); err == nil {
				Prune(o.Dir, name, dst, keep)
				res.Path = dst
				return res, nil
			}
		}
	}
	// Not cached: a private copy for this one use.
	p := filepath.Join(o.Scratch, name+".test")
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return Result{}, err
	}
	res.Path = p
	return res, nil
}

// The name prefixes of the temporary files waitsim writes in its cache
// directories, each renamed or removed when done (SweepStale removes those
// a killed process left).
const (
	TempBuild  = ".build-"   // a suite's test binary being built (Binary)
	TempKeep   = ".keep-"    // a binary being kept (testbin.Go.KeptBuild)
	TempRun    = ".run-"     // a kept run's outcome (testbin.Go.KeepRun)
	TempEnum   = ".enum-"    // gremlins' enumeration (testbin.Go.Enumerate)
	TempHints  = ".hints-"   // cold hints (testbin.ColdHints)
	TempLookup = ".lookup-"  // a kept answer of the go command (testbin, lookup.go)
	TempMark   = ".checked-" // a schemata binary's mark (mutants)
)

// tempPrefixes are the prefixes SweepStale looks for.
var tempPrefixes = []string{TempBuild, TempKeep, TempRun, TempEnum, TempHints, TempLookup, TempMark}

// StaleAfter is how long a temporary file may stay in a cache directory
// before SweepStale removes it. Every file waitsim writes there is first a
// temporary one (tempPrefixes) — a build's output (the longest: a suite's
// test binary, built in seconds to a few minutes on a cold build cache) or
// a kept file written and renamed at once — and is renamed or removed when
// done; only a process killed mid-way (SIGKILL gives it no chance) leaves
// one behind. An hour is far past any of them.
const StaleAfter = time.Hour

// SweepStale removes the temporary files waitsim writes (tempPrefixes) from
// the cache directory dir that were last written more than StaleAfter ago:
// left by a process killed while it wrote them. Nothing else is touched:
// the directory may be one a user named (WAITSIM_SUITEBIN_DIR). Errors are
// ignored; a file that cannot be removed is tried again by the next sweep.
func SweepStale(dir string) {
	if dir == "" {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !slices.ContainsFunc(tempPrefixes, func(p string) bool { return strings.HasPrefix(e.Name(), p) }) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > StaleAfter {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Prune keeps the keep most recently used binaries name-*.test in dir
// (never removing just, the one just stored); with each binary it removes
// goes each file that marks names for it (a mark kept beside a binary).
func Prune(dir, name, just string, keep int, marks ...func(bin string) string) {
	PruneGlob(filepath.Join(dir, name+"-*.test"), just, keep, marks...)
}

// PruneGlob keeps the keep most recently used (modified) files that match
// pattern (never removing just, the one just stored), with their marks as
// Prune.
func PruneGlob(pattern, just string, keep int, marks ...func(string) string) {
	m, _ := filepath.Glob(pattern)
	type f struct {
		p string
		t time.Time
	}
	var fs []f
	for _, p := range m {
		if st, err := os.Stat(p); err == nil && p != just {
			fs = append(fs, f{p, st.ModTime()})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].t.After(fs[j].t) })
	for i := max(keep-1, 0); i < len(fs); i++ {
		os.Remove(fs[i].p)
		for _, mark := range marks {
			os.Remove(mark(fs[i].p))
		}
	}
}

// Key hashes the inputs of o.Pkg's test binary: the key version, the
// package, the build flags, the values of the go command's settings that
// change a build (GoEnvVars, from `go env`), go.mod and go.sum, and every
// regular file of every package directory of the module (by path and
// content; a directory whose Go files use //go:embed counts with all it
// holds), and the same of every directory a replace directive of go.mod
// points at. Directories the go command never builds are left out: out/ at
// the root, names starting with "." or "_", testdata, node_modules, and
// nested modules.
func Key(ctx context.Context, o Options) (string, error) {
	k, _, err := key(ctx, o)
	return k, err
}

// key is Key, and the go command's GOFLAGS.
func key(ctx context.Context, o Options) (string, string, error) {
	o.defaults()
	cmd := o.Command(ctx, "go", append([]string{"env"}, GoEnvVars...)...)
	cmd.Dir, cmd.Env = o.Root, o.Env
	env, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(bytes.TrimSpace(ee.Stderr)) > 0 {
			// go's own reason (no HOME: "neither GOMODCACHE nor GOPATH is set").
			return "", "", fmt.Errorf("go env: %v: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return "", "", fmt.Errorf("go env: %v", err)
	}
	var goflags string // go env prints one value a line, in GoEnvVars' order
	if vals, i := strings.Split(string(env), "\n"), slices.Index(GoEnvVars, "GOFLAGS"); i < len(vals) {
		goflags = vals[i]
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00pkg %s\x00flags -c %s\x00env %s\x00", keyVersion, o.Pkg, strings.Join(LinkFlags(goflags), " "), env)
	if err := hashModule(h, o.Root); err != nil {
		return "", "", err
	}
	// The modules go.mod replaces by a directory of their own, wherever it
	// lies: their files are built into the binary too.
	dirs, err := replaceDirs(ctx, o)
	if err != nil {
		return "", "", err
	}
	for _, dir := range dirs {
		fmt.Fprintf(h, "replace %s\x00", dir)
		if err := hashModule(h, dir); err != nil {
			return "", "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), goflags, nil
}

// hashModule writes to h the path and content of every file of the module
// at root that a build reads (moduleFiles).
func hashModule(h io.Writer, root string) error {
	files, err := moduleFiles(root)
	if err != nil {
		return err
	}
	for _, rel := range files {
		sum, err := workspace.HashFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", filepath.ToSlash(rel), sum)
	}
	return nil
}

// replaceDirs lists, sorted, the directories go.mod's replace directives
// point at (a module replaced by a directory, not by another version), as
// `go mod edit -json` gives them; none when go.mod names no replace.
func replaceDirs(ctx context.Context, o Options) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(o.Root, "go.mod"))
	if err != nil || !bytes.Contains(b, []byte("replace")) {
		return nil, nil
	}
	cmd := o.Command(ctx, "go", "mod", "edit", "-json")
	cmd.Dir, cmd.Env = o.Root, o.Env
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("go mod edit -json: %v", err)
	}
	var mod struct {
		Replace []struct {
			New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		return nil, fmt.Errorf("go mod edit -json: %v", err)
	}
	var dirs []string
	for _, r := range mod.Replace {
		if r.New.Version == "" && r.New.Path != "" {
			p := r.New.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(o.Root, p)
			}
			dirs = append(dirs, filepath.Clean(p))
		}
	}
	sort.Strings(dirs)
	return slices.Compact(dirs), nil
}

// regular reports whether entry e of dir is a regular file, or a link to
// one: a link is read through; one to a directory, a FIFO (whose read would
// block) or a device is not a source file.
func regular(dir string, e fs.DirEntry) bool {
	if e.Type().IsRegular() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && st.Mode().IsRegular()
}

// moduleFiles lists, sorted, the files Key hashes (relative to root).
func moduleFiles(root string) ([]string, error) {
	var out []string
	var walk func(dir string, all bool) error
	walk = func(dir string, all bool) error {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		hasGo := false
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".go") && regular(dir, e) {
				hasGo = true
				// Embedded files may lie anywhere below: take it all.
				if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && bytes.Contains(b, []byte("//go:embed")) {
					all = true
				}
			}
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			n := e.Name()
			if e.IsDir() {
				if !all && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "node_modules") ||
					dir == root && (n == workspace.OutDir || n == ".git") {
					continue
				}
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					continue // a nested module
				}
				if err := walk(p, all); err != nil {
					return err
				}
				continue
			}
			if !regular(dir, e) {
				continue
			}
			if hasGo || all || dir == root && (n == "go.mod" || n == "go.sum") {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				out = append(out, rel)
			}
		}
		return nil
	}
	if err := walk(root, false); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}
