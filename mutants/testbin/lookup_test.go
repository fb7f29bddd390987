package testbin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeptLookups: test2json's path, the export listing and the listing of
// the module's directories a suite imports are asked of the
// go command once, then read back while what keys them holds and every
// file they name is there; a change of the go command's settings, of a
// file of the module, or a file that went asks again.
func TestKeptLookups(t *testing.T) {
	dir := t.TempDir()
	mod, kept, calls := filepath.Join(dir, "mod"), filepath.Join(dir, "kept"), filepath.Join(dir, "calls")
	t2j, export := filepath.Join(dir, "test2json"), filepath.Join(dir, "a.export")
	for _, f := range []string{t2j, export} {
		if err := os.WriteFile(f, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	extra := filepath.Join(dir, "extra") // a directory it names outside the module
	for _, d := range []string{filepath.Join(mod, "p"), extra} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(mod, "p", "p.go")
	if err := os.WriteFile(src, []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
echo "$1$2" >> '` + calls + `'
case "$1$2" in
tool-n) echo '` + t2j + `' ;;
list-deps) printf '%s\n%s\n' '` + filepath.Join(mod, "p") + `' '` + extra + `' ;;
list-export) printf 'a\t%s\t/a\t\nexample.com/m/p\t\t` + filepath.Join(mod, "p") + `\tp.go\n' '` + export + `' ;;
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
	g := &Go{Root: mod, KeptDir: kept, Env: os.Environ(), GoEnv: `{"GOVERSION":"go1"}`}
	ctx := context.Background()
	asked := func() string {
		b, _ := os.ReadFile(calls)
		os.Remove(calls)
		return strings.Join(strings.Fields(string(b)), " ")
	}
	step := func(what, want string) {
		t.Helper()
		p, err := g.Test2json(ctx)
		if err != nil || p != t2j {
			t.Fatalf("%s: Test2json %q, %v; want %q", what, p, err, t2j)
		}
		out, err := g.listExport(ctx, "./p/", "{{.ImportPath}}")
		if err != nil || !strings.HasPrefix(string(out), "a\t"+export) {
			t.Fatalf("%s: listExport %q, %v", what, out, err)
		}
		dirs, err := g.ListDirs(ctx, "./p/")
		if err != nil || strings.Fields(string(dirs))[0] != filepath.Join(mod, "p") {
			t.Fatalf("%s: ListDirs %q, %v", what, dirs, err)
		}
		if got := asked(); got != want {
			t.Errorf("%s: the go command was asked %q, want %q", what, got, want)
		}
	}
	step("first", "tool-n list-export list-deps")
	step("again", "")
	g.GoEnv = `{"GOVERSION":"go2"}`
	step("other settings", "tool-n list-export list-deps")
	step("other settings again", "")
	if err := os.WriteFile(src, []byte("package p // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("a file of the module changed", "list-export list-deps")
	// A copy of the module holds the same files: its listings name its
	// own directories.
	cp := filepath.Join(dir, "copy")
	if err := os.MkdirAll(filepath.Join(cp, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cp, "p", "p.go"), []byte("package p // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := *g
	other.Root = cp
	if _, err := other.ListDirs(ctx, "./p/"); err != nil {
		t.Fatal(err)
	}
	if got := asked(); got != "list-deps" {
		t.Errorf("a copy of the module: the go command was asked %q, want %q", got, "list-deps")
	}
	if err := os.Remove(export); err != nil {
		t.Fatal(err)
	}
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
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if _, err := g.ListDirs(ctx, "./p/"); err != nil {
		t.Fatal(err)
	}
	if got := asked(); got != "list-deps" {
		t.Errorf("a directory gone: the go command was asked %q, want %q", got, "list-deps")
	}
	// Without a directory nothing is kept.
	g.KeptDir = ""
	step("no directory", "tool-n list-export list-deps")
	step("no directory again", "tool-n list-export list-deps")
}
