package testbin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHotResetRunsInitializersAgain: the switch file's reset puts every
// variable of the mutated package back to its value at init, under the
// switch turned on — a variable without an initializer to zero, a map
// filled at run time emptied, a sync.Once that ran ready to run again, an
// initializer with two variables and one that calls a mutated function
// run again in their order — and a package with an init function is
// refused. The package's test sets the switch flag as a hot process does.
func TestHotResetRunsInitializersAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	t.Parallel()
	root := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.24\n")
	src := `package p

import "sync"

var counter int

var seen = map[string]int{}

var once sync.Once

var built string

var a, b = pair()

var twice = double(a)

func pair() (int, int) { return 1, 2 }

func double(x int) int {
	return x * 2
}

// Use changes every variable, as a run would.
func Use() {
	counter++
	seen["x"]++
	once.Do(func() { built = "built" })
	a, b, twice = 10, 20, 30
}
`
	write("p/p.go", src)
	write("p/p_test.go", `package p

import (
	"flag"
	"testing"
)

func TestReset(t *testing.T) {
	Use()
	f := flag.Lookup("waitsim.mutant.p")
	if f == nil {
		t.Fatal("no switch flag")
	}
	if err := f.Value.Set("1"); err != nil {
		t.Fatal(err)
	}
	if counter != 0 || len(seen) != 0 || a != 1 || b != 2 || built != "" {
		t.Fatalf("after the reset: counter %d, seen %v, a %d, b %d, built %q", counter, seen, a, b, built)
	}
	if twice != 3 {
		t.Fatalf("twice = %d, want 3: the mutated double (x*2 → x+2) under switch 1", twice)
	}
	once.Do(func() { built = "again" })
	if built != "again" {
		t.Fatal("the sync.Once did not run again")
	}
	if err := f.Value.Set("0"); err != nil || twice != 2 {
		t.Fatalf("back to the original: twice = %d (%v)", twice, err)
	}
}
`)
	g := &Go{Root: root, Env: append(os.Environ(), "GOFLAGS=", "GOWORK=off")}
	ctx := context.Background()
	tc, err := g.NewTypeChecker(ctx, "./p/")
	if err != nil {
		t.Fatal(err)
	}
	mut := []byte(strings.Replace(src, "return x * 2", "return x + 2", 1))
	files, nums, _, _, err := Schemata([]map[string][]byte{{"p/p.go": mut}}, func(p string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, p))
	}, true)
	if err != nil || nums[0] != 1 {
		t.Fatalf("schemata: %v, %v", nums, err)
	}
	if ok, why := HotReset(tc, root, files); !ok {
		t.Fatalf("HotReset refused: %s", why)
	}
	ov, err := (&Go{Root: root}).OverlayFile(t.TempDir(), files)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-overlay="+ov, "./p/")
	cmd.Dir, cmd.Env = root, g.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test with the reset: %v\n%s\n%s", err, out, files["p/"+SwitchFileName])
	}

	write("p/init.go", "package p\n\nfunc init() { counter = 5 }\n")
	files, _, _, _, _ = Schemata([]map[string][]byte{{"p/p.go": mut}}, func(p string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, p))
	}, true)
	tc, err = g.NewTypeChecker(ctx, "./p/")
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := HotReset(tc, root, files); ok || !strings.Contains(why, "init function") {
		t.Fatalf("a package with an init function: ok %t (%s), want refused", ok, why)
	}
}
