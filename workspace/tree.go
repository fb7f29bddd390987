package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Commit is the commit checked out in dir, with "-dirty" when the work tree
// has changes or untracked files git does not ignore (outside dir's OutDir,
// see ownOutputs); "" outside git.
func Commit(ctx context.Context, dir string) string {
	c, _ := commitOf(func(args ...string) ([]byte, error) {
		return exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-C", dir}, args...)...).Output()
	}, dir)
	return c
}

// ErrNoCommit: the git repository has no commit yet (a new one).
// TreeState still hashes its work tree.
var ErrNoCommit = errors.New("no commit yet")

// commitOf is Commit through git, a function that runs git in dir.
func commitOf(git func(args ...string) ([]byte, error), dir string) (string, error) {
	out, err := git("rev-parse", "HEAD")
	if err != nil {
		if _, gerr := git("rev-parse", "--git-dir"); gerr == nil {
			return "", fmt.Errorf("%w in %s", ErrNoCommit, dir)
		}
		return "", fmt.Errorf("git rev-parse HEAD in %s: %v", dir, err)
	}
	commit := strings.TrimSpace(string(out))
	st, err := git(append([]string{"status", "--porcelain", "--untracked-files=normal", "--"}, ownOutputs...)...)
	if err != nil {
		return "", fmt.Errorf("git status in %s: %v", dir, err)
	}
	if len(bytes.TrimSpace(st)) > 0 {
		commit += "-dirty"
	}
	return commit, nil
}

// ownOutputs is the pathspec of what TreeState and Commit look at, run in
// a module's root: the whole work tree but the module's OutDir. What waitsim
// writes there (results, reports, its cache) is never part of the tree it
// judges: before, in a module that did not ignore out/, `waitsim run --json`
// saw its own results file change the tree and refused every run.
var ownOutputs = []string{":/", ":(exclude)" + OutDir}

// TreeState is what a result was run on: the git commit of the work tree
// at dir (with "-dirty" when it has changes or untracked files git does not
// ignore) and Tree, the sha256 of the tree's content: every tracked and
// every untracked, not ignored file, by path and content (a deleted tracked
// file counts as deleted). Both leave out dir's OutDir (ownOutputs), so dir
// is the module's root. Two runs on the same commit with different edits
// have the same Commit and different Trees; Tree is what results are
// compared by (issue 11 items 4 and 5). Outside git both are "" and err
// says why; in a repository with no commit yet, commit is "" and Tree the
// work tree's hash, with no error. Read-only: git takes no optional lock.
func TreeState(ctx context.Context, dir string) (commit, tree string, err error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-C", dir}, args...)...)
		return cmd.Output()
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", fmt.Errorf("not a git work tree: %s", dir)
	}
	root := strings.TrimSpace(string(top))
	if commit, err = commitOf(git, dir); err != nil && !errors.Is(err, ErrNoCommit) {
		return "", "", err
	}
	ls, err := git(append([]string{"ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard", "--"}, ownOutputs...)...)
	if err != nil {
		return "", "", fmt.Errorf("git ls-files in %s: %v", root, err)
	}
	names := strings.Split(strings.TrimRight(string(ls), "\x00"), "\x00")
	sort.Strings(names)
	h := sha256.New()
	prev := ""
	for _, n := range names {
		if n == "" || n == prev {
			continue
		}
		prev = n
		fmt.Fprintf(h, "%s\x00%s\x00", n, entryState(filepath.Join(root, filepath.FromSlash(n))))
	}
	return commit, hex.EncodeToString(h.Sum(nil)), nil
}

// entryState is what TreeState hashes of one path git lists: a regular
// file's content hash, read in blocks (bounded memory, whatever its size);
// a symbolic link's target, never what it points to (a link to /dev/zero or
// to a FIFO would never end); other kinds (a FIFO, a device, a directory
// such as a submodule) by kind alone, never opened; "deleted" and
// "unreadable" for what cannot be seen.
func entryState(path string) string {
	fi, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err):
		return "deleted"
	case err != nil:
		return "unreadable"
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return "unreadable"
		}
		return "symlink\x00" + target
	case !fi.Mode().IsRegular():
		return "special " + fi.Mode().Type().String()
	}
	sum, err := HashFile(path)
	if err != nil {
		return "unreadable"
	}
	return sum
}

// HashFile is the hex sha256 of the file at path, read in blocks: bounded
// memory whatever the file's size (a file is never held whole to hash it).
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := sha256.New()
	if _, err := io.Copy(s, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(s.Sum(nil)), nil
}

// ResolveCommit is the commit ref names in the git repository at dir, for
// a command's flag (flag, e.g. "--diff", names it in the error): the one
// rule for a git ref given on the command line. A ref that is empty or
// starts with '-' is refused before git sees it (git would read it as an
// option: `--output=FILE` writes a file); any other is resolved with `git
// rev-parse --verify --end-of-options REF^{commit}`, and one that names no
// commit is refused. Pass the commit it returns to git, never ref, and
// after --end-of-options. Read-only: git takes no optional lock.
func ResolveCommit(ctx context.Context, dir, flag, ref string) (string, error) {
	switch {
	case ref == "":
		return "", fmt.Errorf("%s: empty: want a git ref (a branch, a tag or a commit)", flag)
	case strings.HasPrefix(ref, "-"):
		return "", fmt.Errorf("%s %q: a git ref never starts with '-' (git would read it as an option)", flag, ref)
	case strings.ContainsAny(ref, "\x00\n"):
		return "", fmt.Errorf("%s %q: not a git ref", flag, ref)
	}
	cmd := exec.CommandContext(ctx, "git", "--no-optional-locks", "-C", dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(bytes.TrimSpace(ee.Stderr)) > 0 {
			return "", fmt.Errorf("%s %q: git rev-parse in %s: %s", flag, ref, dir, bytes.TrimSpace(ee.Stderr))
		}
		return "", fmt.Errorf("%s %q is not a commit of the git repository at %s", flag, ref, dir)
	}
	return strings.TrimSpace(string(out)), nil
}
