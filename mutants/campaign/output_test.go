package campaign

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteAtomicLeavesNoTemporaryFile: a write whose rename fails (the
// path is a directory) returns the error and leaves no temporary file.
func TestWriteAtomicLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("{}"), ".x-*"); err == nil {
		t.Fatal("WriteAtomic over a directory: no error")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".x-*")); len(m) > 0 {
		t.Errorf("temporary files left: %q", m)
	}
}
