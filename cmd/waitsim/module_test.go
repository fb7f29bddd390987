package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutsideTheModule (issue 11 item 18): run inside another module,
// waitsim says it works only inside its own, and README.md quotes that
// message where the commands are introduced.
func TestOutsideTheModule(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	t.Chdir(dir)
	_, err := moduleRoot()
	if err == nil || !strings.Contains(err.Error(), "not inside the waitsim module") || !strings.Contains(err.Error(), modulePath) {
		t.Fatalf("moduleRoot in another module: %v", err)
	}
	t.Chdir(wd)
	if root, err := moduleRoot(); err != nil || filepath.Base(filepath.Join(root, "cmd", "waitsim")) != "waitsim" {
		t.Fatalf("moduleRoot here: %q, %v", root, err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	intro := string(readme)
	if i := strings.Index(intro, "## What this is"); i > 0 {
		intro = intro[:i]
	}
	if !strings.Contains(intro, "waitsim: not inside the waitsim module") || !strings.Contains(intro, "works only inside this module") {
		t.Error("README.md does not say, where the commands are introduced, that waitsim works only inside its module and what it says elsewhere")
	}
}
