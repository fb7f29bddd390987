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

// SuiteEnv hands each suite process an environment of its own: workers
// append to it side by side (a shared backing array raced when the user set
// GOGC), and the user's GOGC and GOMAXPROCS are kept; each is added once
// where the user set none.
func TestSuiteEnvCopies(t *testing.T) {
	for _, env := range [][]string{{"A=1"}, {"A=1", "GOGC=50"}, {"GOMAXPROCS=3", "A=1"}} {
		base := append(make([]string, 0, 10), env...)
		a := append(SuiteEnv(base), "X=a")
		b := append(SuiteEnv(base), "X=b")
		if a[len(a)-1] != "X=a" || b[len(b)-1] != "X=b" {
			t.Fatalf("%q: two environments share their storage: %q and %q", env, a, b)
		}
		for name, def := range map[string]string{"GOGC": SuiteGOGC, "GOMAXPROCS": SuiteGOMAXPROCS} {
			want := name + "=" + def
			if i := slices.IndexFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") }); i >= 0 {
				want = env[i]
			}
			got := slices.DeleteFunc(slices.Clone(a), func(kv string) bool { return !strings.HasPrefix(kv, name+"=") })
			if !slices.Equal(got, []string{want}) {
				t.Fatalf("%q: got %q, want %s once", env, a, want)
			}
		}
	}
}
