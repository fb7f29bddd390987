package mutants

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/mutation"
)

// measured runs f and returns its wall time and the bytes it allocated.
func measured(f func()) (time.Duration, uint64) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	f()
	el := time.Since(start)
	runtime.ReadMemStats(&m1)
	return el, m1.TotalAlloc - m0.TotalAlloc
}

// nested is a YAML value of n nested flow lists.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestCatalogFilesBounded (issue 20 item 2): the catalog entries, the
// equivalents file and the gremlins config are checked against limits
// before their parser sees them, as a scenario file is, and a refusal names
// file:line:column and the field. Before: they had none (20,000 nesting
// levels in the equivalents file: 14 s and 667 MB; a 200 KB catalog entry of
// nested brackets took `waitsim mutate` past 6.6 GB). Each bomb here is
// 20,000 levels (40 KB).
func TestCatalogFilesBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("p.go", "package p\n")
	write("catalog/nested.yaml", "intent: "+nested(20000)+"\n")
	eq := write("equivalent.yaml", "- id: "+nested(20000)+"\n")
	cfg := write("gremlins.yaml", "unleash:\n  threshold:\n    efficacy: "+nested(20000)+"\n")
	for _, tc := range []struct {
		name string
		load func() error
		want string
	}{
		{"catalog entry", func() error { _, err := mutation.LoadCatalog(dir, "catalog"); return err }, "catalog/nested.yaml:1:16: yaml: nested more than 8 levels deep"},
		{"equivalents", func() error { _, err := mutation.LoadEquivalents(eq); return err }, eq + ":1:13: yaml: nested more than 8 levels deep"},
		{"gremlins config", func() error { _, err := mutation.LoadThresholds(cfg); return err }, cfg + ":3:28: yaml: nested more than 16 levels deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			el, alloc := measured(func() { err = tc.load() })
			t.Logf("%v, %d KB allocated: %v", el.Round(time.Millisecond), alloc>>10, err)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %s", err, tc.want)
			}
			if alloc > 20<<20 {
				t.Errorf("%d MB allocated to refuse it, want under 20", alloc>>20)
			}
		})
	}
}

// TestCatalogNonRegularAndBOM (issue 20 item 2): a FIFO among the catalog's
// files is refused by name, at once (before: LoadCatalog, and so `waitsim
// mutate`, hung on it); a UTF-8 byte order mark is read as nothing, in a
// catalog entry, the equivalents file and the gremlins config (before: the
// entry was refused, its first key read as "\ufeffintent").
func TestCatalogNonRegularAndBOM(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := filepath.Join(dir, "catalog")
	if err := os.Mkdir(cat, 0o755); err != nil {
		t.Fatal(err)
	}
	good := "intent: x\nspec: y\nfile: p.go\npatch: |\n" + indent(patchB)
	if err := os.WriteFile(filepath.Join(cat, "a-bom.yaml"), []byte("\ufeff"+good), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := mutation.LoadCatalog(dir, "catalog")
	if err != nil || len(entries) != 1 || entries[0].Intent != "x" {
		t.Errorf("an entry with a BOM: %d entries, %v", len(entries), err)
	}
	eq := filepath.Join(dir, "equivalent.yaml")
	if err := os.WriteFile(eq, []byte("\ufeff- id: a\n  source: \"x\"\n  reason: y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := mutation.LoadEquivalents(eq); err != nil || len(m) != 1 {
		t.Errorf("equivalents with a BOM: %v, %v", m, err)
	}
	cfg := filepath.Join(dir, "gremlins.yaml")
	if err := os.WriteFile(cfg, []byte("\ufeffunleash:\n  threshold:\n    efficacy: 90\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if th, err := mutation.LoadThresholds(cfg); err != nil || th.OperatorScore != 90 {
		t.Errorf("a config with a BOM: %v, %v", th, err)
	}

	fifo := filepath.Join(cat, "b-pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := mutation.LoadCatalog(dir, "catalog"); done <- err }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("LoadCatalog hung on a FIFO named *.yaml")
	}
	var ce *mutation.CatalogError
	if want := "catalog/b-pipe.yaml:1:1: file: is a named pipe (FIFO), not a regular file"; !errors.As(err, &ce) || len(ce.Problems) != 1 || !strings.HasPrefix(ce.Problems[0], want) {
		t.Errorf("got %v, want one problem %s…", err, want)
	}
	for _, load := range []func(string) error{
		func(p string) error { _, err := mutation.LoadEquivalents(p); return err },
		func(p string) error { _, err := mutation.LoadThresholds(p); return err },
	} {
		if err := load(fifo); err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file") {
			t.Errorf("a FIFO: %v", err)
		}
	}
}
