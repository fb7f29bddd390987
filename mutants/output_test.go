package mutants

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestOutputLocationCheckedFirst: an output location that cannot be
// written — --out under a file, --out naming a directory, a directory
// nobody may write, the cache file under a file — is refused before the
// campaign starts (exit 2, naming the path; no mutant runs),
// not found after the whole campaign ran.
func TestOutputLocationCheckedFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("may run campaigns")
	}
	root := copyFixture(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, flag, path, names string }{
		{"out-under-a-file", "--out", filepath.Join(file, "m.json"), file},
		{"out-is-a-directory", "--out", dir, dir},
		{"cache-under-a-file", "--cache", filepath.Join(file, "sub", "cache.json"), file},
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "read-only")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, flag, path, names string }{"read-only-directory", "--out", filepath.Join(ro, "out", "m.json"), ro})
	}
	if st, err := os.Stat("/proc/self"); err == nil && st.IsDir() {
		// Nobody, root included, may create a file in /proc.
		cases = append(cases, struct{ name, flag, path, names string }{"unwritable-directory", "--out", "/proc/waitsim-m.json", "/proc"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			args := fixtureArgs(root, "--only", "add-subtracts", "--workers", "1", "--no-cache", "--progress", "plain")
			if c.flag == "--cache" {
				args = slices.DeleteFunc(args, func(a string) bool { return a == "--no-cache" })
			}
			if c.flag != "--out" {
				args = append(args, "--out", filepath.Join(t.TempDir(), "m.json"))
			}
			args = append(args, c.flag, c.path)
			var so, se bytes.Buffer
			start := time.Now()
			code := Command(context.Background(), args, &so, &se)
			if code != verdict.ExitUsage || !strings.Contains(se.String(), c.names) {
				t.Errorf("exit %d, stderr %q; want %d naming %s", code, se.String(), verdict.ExitUsage, c.names)
			} else {
				t.Logf("%s", se.String())
			}
			if strings.Contains(se.String(), "[1/") || strings.Contains(so.String(), "mutants:") {
				t.Errorf("the campaign ran (%v) before the output location was found unwritable; stdout:\n%s", time.Since(start).Round(time.Millisecond), so.String())
			}
		})
	}
	// mutate merge writes a result too.
	var so, se bytes.Buffer
	if code := Command(context.Background(), []string{"merge", "-o", filepath.Join(file, "m.json"), "shard.json"}, &so, &se); code != verdict.ExitUsage || !strings.Contains(se.String(), file) {
		t.Errorf("merge -o under a file: exit %d, stderr %q; want %d naming %s", code, se.String(), verdict.ExitUsage, file)
	}
}
