package suitebin

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// module writes a tiny module with one package and its test, whose test
// binary prints the package's Answer.
func module(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.24\n",
		"p/p.go":          "package p\n\n// Answer is printed by the test.\nconst Answer = 1\n",
		"p/p_test.go":     "package p\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestAnswer(t *testing.T) { fmt.Printf(\"answer=%d\\n\", Answer) }\n",
		"p/data.txt":      "read at run time\n",
		"out/results.txt": "an output, not an input\n",
		"docs/notes.md":   "not in a package directory\n",
	}
	for rel, s := range files {
		write(t, filepath.Join(root, rel), s)
	}
	return root
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// answer runs the test binary and returns what it printed.
func answer(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "-test.run", "^TestAnswer$").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "answer=") {
			return l
		}
	}
	t.Fatalf("%s printed no answer:\n%s", bin, out)
	return ""
}

// TestBinaryReusedUntilAnInputChanges: the second call reuses the binary
// built by the first; an edit of a source file builds a new binary that
// runs the new code (never the stale one); editing it back finds the first
// binary again; files outside the inputs (out/, a directory without Go
// files) change nothing, a file of a package directory does.
func TestBinaryReusedUntilAnInputChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	ctx := context.Background()
	root := module(t)
	o := Options{Root: root, Pkg: "./p/", Dir: filepath.Join(t.TempDir(), "cache"), Scratch: t.TempDir()}
	first, err := Binary(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Built || answer(t, first.Path) != "answer=1" {
		t.Fatalf("first call: built %t, %s", first.Built, answer(t, first.Path))
	}
	again, err := Binary(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Built || again.Path != first.Path || again.Key != first.Key {
		t.Fatalf("second call: built %t, path %s (first %s): want the cached binary", again.Built, again.Path, first.Path)
	}
	write(t, filepath.Join(root, "out", "results.txt"), "another output\n")
	write(t, filepath.Join(root, "docs", "notes.md"), "edited\n")
	if k, err := Key(ctx, o); err != nil || k != first.Key {
		t.Fatalf("an edit under out/ or docs/ changed the key (%v)", err)
	}
	src := filepath.Join(root, "p", "p.go")
	write(t, src, "package p\n\n// Answer is printed by the test.\nconst Answer = 2\n")
	edited, err := Binary(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !edited.Built || edited.Key == first.Key || answer(t, edited.Path) != "answer=2" {
		t.Fatalf("after an edit: built %t, same key %t, %s; want a new binary running the new code", edited.Built, edited.Key == first.Key, answer(t, edited.Path))
	}
	write(t, src, "package p\n\n// Answer is printed by the test.\nconst Answer = 1\n")
	back, err := Binary(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if back.Built || back.Path != first.Path || answer(t, back.Path) != "answer=1" {
		t.Fatalf("edit undone: built %t, path %s; want the first binary again", back.Built, back.Path)
	}
	write(t, filepath.Join(root, "p", "data.txt"), "changed\n")
	if k, err := Key(ctx, o); err != nil || k == first.Key {
		t.Fatalf("an edit of a file of a package directory kept the key (%v)", err)
	}
	write(t, filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.25\n")
	if k, err := Key(ctx, o); err != nil || k == first.Key {
		t.Fatalf("an edit of go.mod kept the key (%v)", err)
	}
}

// TestKeyFollowsBuildSettings: a setting of the go command that changes
// the build (GOFLAGS here) changes the key.
func TestKeyFollowsBuildSettings(t *testing.T) {
	ctx := context.Background()
	root := module(t)
	o := Options{Root: root, Pkg: "./p/", Scratch: t.TempDir(), Env: append(os.Environ(), "GOFLAGS=")}
	a, err := Key(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Env = append(os.Environ(), "GOFLAGS=-tags=x")
	b, err := Key(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatal("GOFLAGS=-tags=x gave the same key")
	}
}

// TestBuildError: a package that does not compile is a *BuildError with
// the compiler's message, and nothing is cached.
func TestBuildError(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	root := module(t)
	write(t, filepath.Join(root, "p", "p.go"), "package p\n\nconst Answer = undefinedName\n")
	cache := filepath.Join(t.TempDir(), "cache")
	_, err := Binary(context.Background(), Options{Root: root, Pkg: "./p/", Dir: cache, Scratch: t.TempDir()})
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.Output, "undefinedName") {
		t.Fatalf("err = %v, want a BuildError naming undefinedName", err)
	}
	if m, _ := filepath.Glob(filepath.Join(cache, "*.test")); len(m) > 0 {
		t.Fatalf("a failed build left %v in the cache", m)
	}
}

// TestKeyPassesOverAFIFO: a FIFO named like a source file in a package
// directory is no input: computing the key neither reads it (the read would
// block until a writer came) nor fails.
func TestKeyPassesOverAFIFO(t *testing.T) {
	root := module(t)
	if err := syscall.Mkfifo(filepath.Join(root, "p", "x.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Key(context.Background(), Options{Root: root, Pkg: "./p/", Scratch: t.TempDir()})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		// A bound on a hang, not a timing check: Key takes milliseconds.
		t.Fatal("Key blocked on the FIFO p/x.go")
	}
}

// TestLinkFlags: a suite's binary is linked without DWARF data, and a user's
// -ldflags in GOFLAGS (here one that sets a variable the test prints) reaches
// the binary, which then gets none of ours (LinkFlags).
func TestLinkFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	root := module(t)
	write(t, filepath.Join(root, "p", "stamp_test.go"), "package p\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nvar Stamp = \"none\"\n\nfunc TestStamp(t *testing.T) { fmt.Printf(\"stamp=%s\\n\", Stamp) }\n")
	for _, c := range []struct {
		goflags, stamp string
		dwarf          bool
	}{
		{"", "stamp=none", false},
		{"-ldflags=-X=example.com/m/p.Stamp=user", "stamp=user", true},
	} {
		o := Options{Root: root, Pkg: "./p/", Dir: t.TempDir(), Scratch: t.TempDir(), Env: append(os.Environ(), "GOFLAGS="+c.goflags)}
		res, err := Binary(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(res.Path, "-test.run", "^TestStamp$").CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.stamp) {
			t.Errorf("GOFLAGS=%q: %v, printed %q; want %s", c.goflags, err, out, c.stamp)
		}
		f, err := elf.Open(res.Path)
		if err != nil {
			t.Skipf("not an ELF binary: %v", err)
		}
		if got := f.Section(".debug_info") != nil; got != c.dwarf {
			t.Errorf("GOFLAGS=%q: DWARF data %t, want %t", c.goflags, got, c.dwarf)
		}
		f.Close()
	}
}

// TestSweepStale: a build removes the temporary files of its cache
// directory that a killed process left there, past StaleAfter, and leaves
// the rest: a temporary file being written now, kept binaries, directories,
// and files of the user's (the directory may be one they named), dot-files
// too.
func TestSweepStale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cache")
	old := time.Now().Add(-StaleAfter - time.Minute)
	files := map[string]bool{ // name → wanted after the build
		".build-p-123.test": false, ".keep-9": false, ".build-p-456.test+fresh": true, "p-0123.test": true,
		".gitignore": true, ".notes": true,
	}
	for name := range files {
		write(t, filepath.Join(dir, name), "x")
		if name != ".build-p-456.test+fresh" {
			if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".old-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, ".old-dir"), old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := Binary(context.Background(), Options{Root: module(t), Pkg: "./p/", Dir: dir, Scratch: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	files[".old-dir"] = true
	for name, want := range files {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s: there %t after the build, want %t", name, err == nil, want)
		}
	}
	SweepStale("") // no directory: nothing to do
}

// TestKeyFollowsReplaceDirectories: a module replaced by a directory of its
// own, outside the module, is built into the binary: an edit there changes
// the key.
func TestKeyFollowsReplaceDirectories(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, dep := filepath.Join(dir, "m"), filepath.Join(dir, "dep")
	write(t, filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.25\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n")
	write(t, filepath.Join(root, "p", "p.go"), "package p\n\nimport _ \"example.com/dep\"\n")
	write(t, filepath.Join(dep, "go.mod"), "module example.com/dep\n\ngo 1.25\n")
	write(t, filepath.Join(dep, "dep.go"), "package dep\n\nfunc F() int { return 1 }\n")
	o := Options{Root: root, Pkg: "./p/"}
	before, err := Key(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dep, "dep.go"), "package dep\n\nfunc F() int { return 2 }\n")
	if after, err := Key(context.Background(), o); err != nil || after == before {
		t.Errorf("an edit of the replace directive's directory kept the key (%v)", err)
	}
}

// Each module keeps its own binaries of a package: a package of the same
// name in another module (waitsimtest/ in every module init set up) does
// not evict them. Before, the cache kept three binaries by the package's
// name alone, shared by every module.
func TestModulesKeepTheirOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	ctx := context.Background()
	cache := filepath.Join(t.TempDir(), "cache")
	mine := module(t)
	first, err := Binary(ctx, Options{Root: mine, Pkg: "./p/", Dir: cache, Scratch: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	other := module(t)
	write(t, filepath.Join(other, "go.mod"), "module example.com/other\n\ngo 1.24\n")
	for i := range keep + 1 {
		write(t, filepath.Join(other, "p", "p.go"), fmt.Sprintf("package p\n\n// Answer is printed by the test.\nconst Answer = %d\n", 10+i))
		if _, err := Binary(ctx, Options{Root: other, Pkg: "./p/", Dir: cache, Scratch: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(first.Path); err != nil {
		t.Errorf("another module's %d builds of its ./p/ evicted this module's binary: %v", keep+1, err)
	}
}

// A go command that fails (no HOME: no module or build cache) is named
// with its own reason, not only its exit status.
func TestKeyNamesGoEnvFailure(t *testing.T) {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "GOPATH" && k != "GOMODCACHE" && k != "XDG_CONFIG_HOME" && k != "GOENV" {
			env = append(env, kv)
		}
	}
	_, err := Key(context.Background(), Options{Root: module(t), Scratch: t.TempDir(), Env: env})
	if err == nil {
		t.Skip("go env needs no home here")
	}
	if _, why, _ := strings.Cut(err.Error(), "exit status 1: "); why == "" {
		t.Errorf("error %q does not give go's reason", err)
	}
}
