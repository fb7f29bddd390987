//go:build unix

package testbin

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestEnumerationKeptFIFO: a named pipe where a kept enumeration should be
// is not opened (limits.ReadBytes refuses a file that is not a regular one
// before it opens it; reading it would wait for a writer for ever): the
// enumeration runs again, and its output takes the pipe's place.
func TestEnumerationKeptFIFO(t *testing.T) {
	g, _, kept := enumModule(t)
	ctx := context.Background()
	out := []byte(`{"run":1}`)
	dry := func(context.Context) ([]byte, error) { return out, nil }
	if _, _, err := g.Enumerate(ctx, "./", dry); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(kept, "gremlins-enum-*.json"))
	if len(files) != 1 {
		t.Fatalf("kept enumerations %q, want 1", files)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		b      []byte
		reused bool
		err    error
	}
	done := make(chan result, 1)
	go func() {
		b, reused, err := g.Enumerate(ctx, "./", dry)
		done <- result{b, reused, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || r.reused || string(r.b) != string(out) {
			t.Fatalf("with a named pipe kept: %s, reused %t, %v; want a new run", r.b, r.reused, r.err)
		}
	case <-time.After(10 * time.Second): // bounds a test that would otherwise hang; not a timing assertion
		t.Fatal("Enumerate opened the named pipe kept in the enumeration's place and waits on it")
	}
	if st, err := os.Lstat(files[0]); err != nil || !st.Mode().IsRegular() {
		t.Errorf("after the new run, %s is %v (%v), want the run's output", files[0], st.Mode(), err)
	}
}
