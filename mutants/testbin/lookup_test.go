package testbin

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/waitsim/waitsim/suitebin"
)

// TestKeptLookups: test2json's path, the export listing and the listing of
// the module's directories a suite imports are asked of the go command
// once, then read back while what keys them holds, every file they name is
// there and the directories they name (outside GOROOT and the module
// cache) hold the same files; a change of the go command's settings, of
// go.mod, of a file of a listed directory — the module's, or one a replace
// directive points at outside it —, a copy of the module elsewhere, or a
// file that went asks again.
func TestKeptLookups(t *testing.T) {
	dir := t.TempDir()
	mod, kept, calls := filepath.Join(dir, "mod"), filepath.Join(dir, "kept"), filepath.Join(dir, "calls")
	goroot, gocache := filepath.Join(dir, "goroot"), filepath.Join(dir, "gocache")
	t2j, export := filepath.Join(gocache, "test2json"), filepath.Join(gocache, "a.export")
	ext := filepath.Join(dir, "ext") // a replace directive's directory, outside the module
	for _, d := range []string{filepath.Join(mod, "p"), filepath.Join(goroot, "src", "a"), gocache, ext} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, b := range map[string]string{t2j: "x", export: "x", filepath.Join(mod, "go.mod"): "module example.com/m\n",
		filepath.Join(mod, "p", "p.go"): "package p\n", filepath.Join(ext, "e.go"): "package e\n"} {
		if err := os.WriteFile(f, []byte(b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(mod, "p", "p.go")
	script := `#!/bin/sh
echo "$1$2" >> '` + calls + `'
case "$1$2" in
tool-n) cat '` + filepath.Join(dir, "t2j-answer") + `' 2>/dev/null || echo '` + t2j + `' ;;
list-deps) printf '%s\n%s\n%s\n' '` + filepath.Join(mod, "p") + `' '` + filepath.Join(goroot, "src", "a") + `' '` + ext + `' ;;
list-export) printf 'a\t%s\t%s\t\nexample.com/e\t\t%s\te.go\nexample.com/m/p\t\t%s\tp.go\n' '` + export + `' '` +
		filepath.Join(goroot, "src", "a") + `' '` + ext + `' '` + filepath.Join(mod, "p") + `' ;;
esac
`
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The go command is looked up on this process's PATH.
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	env := func(version string) string {
		b, _ := json.Marshal(map[string]string{"GOVERSION": version, "GOROOT": goroot, "GOCACHE": gocache})
		return string(b)
	}
	g := &Go{Root: mod, KeptDir: kept, Env: os.Environ(), GoEnv: env("go1")}
	ctx := context.Background()
	asked := func() string {
		b, _ := os.ReadFile(calls)
		os.Remove(calls)
		return strings.Join(strings.Fields(string(b)), " ")
	}
	// settle dates every file of the listed directories a minute back: an
	// answer is not kept while one was written since its question began.
	settle := func() {
		t.Helper()
		old := time.Now().Add(-time.Minute)
		for _, d := range []string{mod, ext} {
			filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					err = os.Chtimes(p, old, old)
				}
				return err
			})
		}
	}
	step := func(what, want string) {
		t.Helper()
		settle()
		p, err := g.Test2json(ctx)
		if err != nil || p != t2j {
			t.Fatalf("%s: Test2json %q, %v; want %q", what, p, err, t2j)
		}
		out, err := g.listExport(ctx, "./p/", "{{.ImportPath}}")
		if err != nil || !strings.HasPrefix(string(out), "a\t"+export) {
			t.Fatalf("%s: listExport %q, %v", what, out, err)
		}
		dirs, err := g.ListDirs(ctx, "./p/")
		if want := filepath.Join(mod, "p") + "\n" + ext + "\n"; err != nil || string(dirs) != want {
			t.Fatalf("%s: ListDirs %q, %v; want %q (none in GOROOT)", what, dirs, err, want)
		}
		if got := asked(); got != want {
			t.Errorf("%s: the go command was asked %q, want %q", what, got, want)
		}
	}
	step("first", "tool-n list-export list-deps")
	step("again", "")
	g.GoEnv = env("go2")
	step("other settings", "tool-n list-export list-deps")
	step("other settings again", "")
	if err := os.WriteFile(src, []byte("package p // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("a file of the module changed", "list-export list-deps")
	if err := os.WriteFile(filepath.Join(ext, "e.go"), []byte("package e // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("a file of the replace directive's directory changed", "list-export list-deps")
	if err := os.WriteFile(filepath.Join(ext, "new.go"), []byte("package e\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("a new file in the replace directive's directory", "list-export list-deps")
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.27\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("go.mod changed", "list-export list-deps")
	// An answer of test2json's that is not a test2json of GOROOT or the
	// build cache is never kept.
	stray := filepath.Join(dir, "other", "test2json")
	if err := os.MkdirAll(filepath.Dir(stray), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, b := range map[string]string{stray: "x", filepath.Join(dir, "t2j-answer"): stray + "\n"} {
		if err := os.WriteFile(f, []byte(b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g.GoEnv = env("go3")
	for range 2 {
		if p, _ := g.Test2json(ctx); p != stray {
			t.Fatalf("Test2json %q, want the go command's answer", p)
		}
		if got := asked(); got != "tool-n" {
			t.Errorf("a test2json outside GOROOT and the build cache: the go command was asked %q, want %q", got, "tool-n")
		}
	}
	os.Remove(filepath.Join(dir, "t2j-answer"))
	g.GoEnv = env("go2")
	// A copy of the module holds the same files: its listings name its
	// own directories.
	cp := filepath.Join(dir, "copy")
	if err := os.MkdirAll(filepath.Join(cp, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, b := range map[string]string{filepath.Join(cp, "p", "p.go"): "package p // changed\n", filepath.Join(cp, "go.mod"): "module example.com/m\n\ngo 1.27\n"} {
		if err := os.WriteFile(f, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := *g
	other.Root = cp
	settle()
	if _, err := other.ListDirs(ctx, "./p/"); err != nil {
		t.Fatal(err)
	}
	if got := asked(); got != "list-deps" {
		t.Errorf("a copy of the module: the go command was asked %q, want %q", got, "list-deps")
	}
	// A file of a listed directory written while the question ran, or
	// just before: the answer is used, not kept.
	if err := os.WriteFile(src, []byte("package p // just now\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := g.ListDirs(ctx, "./p/"); err != nil {
			t.Fatal(err)
		}
		if got := asked(); got != "list-deps" {
			t.Errorf("a file written just now: the go command was asked %q, want %q", got, "list-deps")
		}
	}
	step("that file settled", "list-export list-deps")
	// Under GOFLAGS naming files the go command reads instead of others,
	// no listing is kept.
	g.GoEnv = env("go4")
	var vars map[string]string
	json.Unmarshal([]byte(g.GoEnv), &vars)
	vars["GOFLAGS"] = "-overlay=" + filepath.Join(dir, "ov.json")
	b, _ := json.Marshal(vars)
	g.GoEnv = string(b)
	step("GOFLAGS with -overlay", "tool-n list-export list-deps")
	step("GOFLAGS with -overlay again", "list-export list-deps")
	g.GoEnv = env("go2")
	if err := os.Remove(export); err != nil {
		t.Fatal(err)
	}
	settle()
	if _, err := g.listExport(ctx, "./p/", "{{.ImportPath}}"); err != nil {
		t.Fatal(err)
	}
	if got := asked(); got != "list-export" {
		t.Errorf("an export file gone: the go command was asked %q, want %q", got, "list-export")
	}
	if err := os.Remove(t2j); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Test2json(ctx); err != nil {
		t.Fatal(err)
	}
	if got := asked(); got != "tool-n" {
		t.Errorf("test2json gone: the go command was asked %q, want %q", got, "tool-n")
	}
	if m, _ := filepath.Glob(filepath.Join(kept, ".lookup-*")); len(m) > 0 {
		t.Errorf("temporary files left: %q", m)
	}
	for _, f := range []string{t2j, export} {
		if err := os.WriteFile(f, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	step("the files back: the kept answers serve again", "")
	if err := os.RemoveAll(ext); err != nil {
		t.Fatal(err)
	}
	settle()
	if _, err := g.listExport(ctx, "./p/", "{{.ImportPath}}"); err != nil {
		t.Fatal(err)
	}
	if got := asked(); got != "list-export" {
		t.Errorf("a directory gone: the go command was asked %q, want %q", got, "list-export")
	}
	// Without a directory nothing is kept.
	g.KeptDir = ""
	step("no directory", "tool-n list-export list-deps")
	step("no directory again", "tool-n list-export list-deps")
}

// TestModuleFilesFollowLinks: a file of the module that is a symbolic link
// to a file elsewhere counts with its content (gremlins' enumeration is
// keyed by moduleFiles): an edit of the file it points at changes the
// hash; out/ at the root does not count.
func TestModuleFilesFollowLinks(t *testing.T) {
	dir := t.TempDir()
	mod, ext := filepath.Join(dir, "mod"), filepath.Join(dir, "ext.go")
	for f, b := range map[string]string{filepath.Join(mod, "go.mod"): "module m\n", ext: "package p\n", filepath.Join(mod, "out", "x"): "1"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(ext, filepath.Join(mod, "p.go")); err != nil {
		t.Fatal(err)
	}
	before, err := moduleFiles(mod)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "out", "x"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if same, _ := moduleFiles(mod); same != before {
		t.Error("an edit under out/ changed the hash")
	}
	if err := os.WriteFile(ext, []byte("package p // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if after, _ := moduleFiles(mod); after == before {
		t.Error("an edit of the file a link of the module points at left the hash unchanged")
	}
}

// TestEnumerationKept: gremlins' enumeration is run once and read back
// while the module is unchanged; an edit of any file of the module runs it
// again; no temporary file is left.
func TestEnumerationKept(t *testing.T) {
	g, mod, kept := enumModule(t)
	runs := 0
	dry := func(context.Context) ([]byte, error) { runs++; return []byte(fmt.Sprintf(`{"run":%d}`, runs)), nil }
	ctx := context.Background()
	for i, want := range []struct {
		reused bool
		out    string
	}{{false, `{"run":1}`}, {true, `{"run":1}`}} {
		b, reused, err := g.Enumerate(ctx, "./", dry)
		if err != nil || reused != want.reused || string(b) != want.out {
			t.Fatalf("campaign %d: %s, reused %t, %v; want %s, reused %t", i+1, b, reused, err, want.out, want.reused)
		}
	}
	if err := os.WriteFile(filepath.Join(mod, "a.go"), []byte("package m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, reused, err := g.Enumerate(ctx, "./", dry); err != nil || reused || string(b) != `{"run":2}` {
		t.Errorf("after an edit: %s, reused %t, %v; want a new run", b, reused, err)
	}
	// A kept file that is no longer what a run writes (cut short, or
	// tampered with) is not served: the enumeration runs again.
	keptFiles, _ := filepath.Glob(filepath.Join(kept, "gremlins-enum-*.json"))
	if len(keptFiles) != 2 {
		t.Fatalf("kept enumerations %q, want 2", keptFiles)
	}
	for _, f := range keptFiles {
		if err := os.WriteFile(f, []byte(`{"run":`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, reused, err := g.Enumerate(ctx, "./", dry); err != nil || reused || string(b) != `{"run":3}` {
		t.Errorf("with a broken kept file: %s, reused %t, %v; want a new run", b, reused, err)
	}
	if m, _ := filepath.Glob(filepath.Join(kept, suitebin.TempEnum+"*")); len(m) > 0 {
		t.Errorf("temporary files left: %q", m)
	}
}

// enumModule is a module of nothing but its go.mod, and a Go of it whose
// kept enumerations go to kept, for the tests of Go.Enumerate.
func enumModule(t *testing.T) (g *Go, mod, kept string) {
	t.Helper()
	dir := t.TempDir()
	mod, kept = filepath.Join(dir, "mod"), filepath.Join(dir, "kept")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &Go{Root: mod, KeptDir: kept, GoEnv: `{"GOVERSION":"go1"}`}, mod, kept
}
