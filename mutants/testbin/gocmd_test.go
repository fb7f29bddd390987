package testbin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildFlags: Build links without DWARF data unless GOFLAGS holds
// -ldflags (suitebin.LinkFlags), and leaves go test's vet out only when
// told that the suite's package holds no mutated file (NoVet). A stand-in go
// command records the arguments it is given.
func TestBuildFlags(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	script := "#!/bin/sh\necho \"$*\" > '" + args + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The go command is looked up on this process's PATH.
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range []struct {
		name    string
		g       Go
		want    []string
		notWant []string
	}{
		{"suite is the target", Go{}, []string{"test -c -o bin -ldflags=-w -overlay=ov.json ./p/"}, []string{"-vet=off"}},
		{"suite is another package", Go{NoVet: true}, []string{"-ldflags=-w -vet=off -overlay=ov.json ./p/"}, nil},
		{"GOFLAGS sets -ldflags", Go{GoFlags: "-ldflags=-X=main.v=1"}, []string{"test -c -o bin -overlay=ov.json ./p/"}, []string{"-ldflags=-w"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := c.g
			g.Root, g.Env, g.Pkg, g.Clean = dir, os.Environ(), "./p/", func(s string) string { return s }
			if err := g.Build(context.Background(), "ov.json", "bin"); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(args)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.TrimSpace(string(b))
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("go %s; want %q in it", got, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(got, w) {
					t.Errorf("go %s; want no %q", got, w)
				}
			}
		})
	}
}
