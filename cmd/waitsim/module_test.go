package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/workspace"
)

// In another module, waitsim finds that module's table test (the test that
// calls waitsim.Run), whatever its module path; with none it says how to
// get one; outside any module it says so.
func TestAnyModule(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/other\n\ngo 1.26\n")
	t.Chdir(dir)
	root, err := workspace.ModuleRoot()
	if err != nil {
		t.Fatalf("moduleRoot in another module: %v", err)
	}
	if _, err := workspace.FindSuite(root, "", ""); err == nil || !strings.Contains(err.Error(), "waitsim init") {
		t.Errorf("a module with no table test: %v, want a pointer to waitsim init", err)
	}
	write("tool/tool_test.go", `package tool_test

import (
	"testing"

	ws "github.com/waitsim/waitsim"
)

func TestOther(t *testing.T) { t.Log("no door") }

func TestMine(t *testing.T) { ws.Run(t, ws.Params{}) }
`)
	write("nested/go.mod", "module example.com/nested\n")
	write("nested/n_test.go", "package n\nimport \"github.com/waitsim/waitsim\"\nfunc TestN(t *testing.T) { waitsim.Run(t, waitsim.Params{}) }\n")
	s, err := workspace.FindSuite(root, "", "")
	if err != nil || s.Pkg != "./tool/" || s.Test != "TestMine" {
		t.Errorf("findSuite: %+v, %v; want ./tool/ TestMine (a nested module is another module)", s, err)
	}
	empty := t.TempDir()
	t.Chdir(empty)
	t.Setenv("GOFLAGS", "")
	t.Setenv("GO111MODULE", "on")
	if _, err := workspace.ModuleRoot(); err == nil || !strings.Contains(err.Error(), "not inside a Go module") {
		t.Errorf("outside any module: %v", err)
	}
}
