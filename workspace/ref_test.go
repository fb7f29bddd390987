package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveCommit: a ref that starts with '-' is refused before git
// sees it (git would read --output=FILE as an option and write FILE), as is
// one that names no commit; each error names the flag. A branch resolves to
// its commit. The tree is left as it was.
func TestResolveCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-qm", "a")
	head := git("rev-parse", "HEAD")
	ctx := context.Background()
	_, before, err := TreeState(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ResolveCommit(ctx, dir, "--diff", "HEAD"); err != nil || got != head {
		t.Errorf("HEAD: %q, %v; want %s", got, err, head)
	}
	out := filepath.Join(dir, "written")
	for _, ref := range []string{"--output=" + out, "--output=a.txt", "-p", "-", "", "nosuch", "HEAD:a.txt"} {
		got, err := ResolveCommit(ctx, dir, "--diff", ref)
		if err == nil || !strings.HasPrefix(err.Error(), "--diff") {
			t.Errorf("%q: %q, %v; want an error naming --diff", ref, got, err)
		}
		if strings.HasPrefix(ref, "-") && len(ref) > 1 && !strings.Contains(err.Error(), "never starts with '-'") {
			t.Errorf("%q: %v; want it refused as option-like", ref, err)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written (%v)", out, err)
	}
	if _, after, _ := TreeState(ctx, dir); after != before {
		t.Error("the tree changed")
	}
}
