package mutants

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/cli"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"
)

// TestDiffOptionRefRefused: `waitsim mutate --diff=--output=FILE` used to
// hand the ref to git diff as an option, which wrote FILE (a source file of
// the module too) and passed the gate. Now a ref that starts with '-', or
// names no commit, is refused before anything runs: exit 2, a message
// naming --diff, no file written, the tree as it was.
func TestDiffOptionRefRefused(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", root, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	files := map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.22\n",
		"tool/tool.go": "package tool\n\nfunc F(x int) bool { return x > 1 }\n",
		".gitignore":   "out/\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "a")
	ctx := context.Background()
	_, before, err := workspace.TreeState(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "x")
	for _, ref := range []string{"--output=tool/tool.go", "--output=" + other, "-p", "nosuch"} {
		var stdout, stderr bytes.Buffer
		code := cli.Command(ctx, []string{"--root", root, "--pkg", "./tool/", "--target", "./tool/", "--progress", "off", "--no-cache", "--diff=" + ref}, &stdout, &stderr, Run)
		if code != verdict.ExitUsage || !strings.Contains(stderr.String(), "--diff") || !strings.Contains(stderr.String(), "nothing ran") {
			t.Errorf("--diff=%s: exit %d, stderr %q; want exit %d naming --diff, nothing ran", ref, code, stderr.String(), verdict.ExitUsage)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "tool", "tool.go")); string(b) != files["tool/tool.go"] {
		t.Errorf("tool/tool.go was overwritten: %q", b)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("%s was written", other)
	}
	if _, after, _ := workspace.TreeState(ctx, root); after != before {
		t.Error("the tree changed")
	}
}
