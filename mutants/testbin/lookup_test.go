package testbin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeptLookups: test2json's path and the export listing are asked of the
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
	if err := os.MkdirAll(filepath.Join(mod, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(mod, "p", "p.go")
	if err := os.WriteFile(src, []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
echo "$1" >> '` + calls + `'
case "$1" in
tool) echo '` + t2j + `' ;;
list) printf 'a\t%s\t/a\t\nexample.com/m/p\t\t` + filepath.Join(mod, "p") + `\tp.go\n' '` + export + `' ;;
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
		if got := asked(); got != want {
			t.Errorf("%s: the go command was asked %q, want %q", what, got, want)
		}
	}
	step("first", "tool list")
	step("again", "")
	g.GoEnv = `{"GOVERSION":"go2"}`
	step("other settings", "tool list")
	step("other settings again", "")
	if err := os.WriteFile(src, []byte("package p // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("a file of the module changed", "list")
	if err := os.Remove(export); err != nil {
		t.Fatal(err)
	}
	if _, err := g.listExport(ctx, "./p/", "{{.ImportPath}}"); err != nil {
		t.Fatal(err)
	}
	if got := asked(); got != "list" {
		t.Errorf("an export file gone: the go command was asked %q, want %q", got, "list")
	}
	if err := os.Remove(t2j); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Test2json(ctx); err != nil {
		t.Fatal(err)
	}
	if got := asked(); got != "tool" {
		t.Errorf("test2json gone: the go command was asked %q, want %q", got, "tool")
	}
	if m, _ := filepath.Glob(filepath.Join(kept, ".lookup-*")); len(m) > 0 {
		t.Errorf("temporary files left: %q", m)
	}
	// Without a directory nothing is kept.
	g.KeptDir = ""
	step("no directory", "tool list")
	step("no directory again", "tool list")
}
