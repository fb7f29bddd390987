package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The gremlins version waitsim runs in another module is the one its own
// go.mod pins; a module with gremlins as a tool runs its own.
func TestGremlinsPinned(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "github.com/go-gremlins/gremlins "+GremlinsVersion) {
		t.Errorf("go.mod does not pin gremlins %s", GremlinsVersion)
	}
	if got := GremlinsArgs(".."); !slices.Equal(got, []string{"tool", "gremlins"}) {
		t.Errorf("in waitsim's module: %q", got)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.26\n"), 0o644)
	if got := GremlinsArgs(dir); !slices.Equal(got, []string{"run", GremlinsPkg + "@" + GremlinsVersion}) {
		t.Errorf("in a module without the tool: %q", got)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.26\n\ntool (\n\texample.com/a\n\t"+GremlinsPkg+"\n)\n"), 0o644)
	if got := GremlinsArgs(dir); !slices.Equal(got, []string{"tool", "gremlins"}) {
		t.Errorf("a tool block: %q", got)
	}
	if !IsOwn("..") || IsOwn(dir) {
		t.Error("IsOwn")
	}
}
