package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TreeState hashes what git lists without following it: a symbolic link to
// /dev/zero or to a FIFO, or a FIFO itself, is hashed by what it is (the
// link's target, the kind), never read (before, a link to /dev/zero grew
// `waitsim report` past 1.6 GB and a link to a FIFO hung it); a regular
// file by its content, and a changed link target or content changes the
// tree.
func TestTreeStateDoesNotFollow(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "one")
	if out, err := exec.Command("git", "-C", dir, "add", ".").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", dir, "commit", "-qm", "a").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo", filepath.Join(dir, "tofifo")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, first, err := TreeState(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, again, _ := TreeState(ctx, dir); again != first {
		t.Errorf("the same tree hashed twice: %s, then %s", first, again)
	}
	write("a.txt", "two")
	_, edited, _ := TreeState(ctx, dir)
	if edited == first {
		t.Error("a regular file's new content left the tree's hash as it was")
	}
	if err := os.Remove(filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if _, relinked, _ := TreeState(ctx, dir); relinked == edited {
		t.Error("a link's new target left the tree's hash as it was")
	}
}

// What waitsim writes under the module's out/ is not part of the tree:
// neither the commit (no "-dirty") nor the tree's hash changes when a
// results file appears there, in a module that does not ignore out/ and
// lies in a directory of its repository. Any other new file changes both,
// an out/ elsewhere in the repository too.
func TestTreeStateLeavesOutOwnOutputs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	mod := filepath.Join(repo, "tool")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("tool/go.mod", "module example.com/tool\n")
	git("add", ".")
	git("commit", "-qm", "a")
	ctx := context.Background()
	commit, tree, err := TreeState(ctx, mod)
	if err != nil || strings.HasSuffix(commit, "-dirty") {
		t.Fatalf("clean tree: commit %q, error %v", commit, err)
	}
	write("tool/out/scenarios.json", "{}")
	if c, tr, _ := TreeState(ctx, mod); c != commit || tr != tree {
		t.Errorf("a file under the module's out/ changed the tree: commit %q → %q, tree %s → %s", commit, c, tree, tr)
	}
	for _, rel := range []string{"tool/new.go", "out/other.txt"} {
		write(rel, "x")
		c, tr, _ := TreeState(ctx, mod)
		if !strings.HasSuffix(c, "-dirty") || tr == tree {
			t.Errorf("new file %s: commit %q, tree %s (unchanged: %t)", rel, c, tr, tr == tree)
		}
		tree = tr
	}
}

// In a new repository with no commit yet, TreeState gives no commit and
// the work tree's hash, with no error (a report then ties results to the
// tree's content); a new file changes the hash.
func TestTreeStateNoCommitYet(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	commit, tree, err := TreeState(ctx, dir)
	if err != nil || commit != "" || tree == "" {
		t.Fatalf("no commit yet: commit %q, tree %q, error %v; want no commit, a tree, no error", commit, tree, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, again, _ := TreeState(ctx, dir); again == tree {
		t.Error("a new file left the tree's hash as it was")
	}
}
