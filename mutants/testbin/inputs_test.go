package testbin

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHashDirsRemovedDir: a directory removed since it was listed adds
// nothing, and ChangedInputs names its files as changed, instead of the
// hash failing on it.
func TestHashDirsRemovedDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := HashDirs(root, []string{dir})
	if err != nil || len(before) != 1 {
		t.Fatalf("before: %v, %d files", err, len(before))
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	after, err := HashDirs(root, []string{dir})
	if err != nil {
		t.Fatalf("after the directory was removed: %v", err)
	}
	if got := ChangedInputs(before, after); !slices.Equal(got, []string{"p/a.go"}) {
		t.Fatalf("changed %q, want [p/a.go]", got)
	}
}

// TestHashDirsVendorList: vendor/modules.txt, which decides which vendored
// version a build uses, is one of the inputs.
func TestHashDirsVendorList(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "vendor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "vendor", "modules.txt"), []byte("# example.com/dep v1.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := HashDirs(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := in["vendor/modules.txt"]; !ok {
		t.Errorf("inputs %v: no vendor/modules.txt", in)
	}
}
