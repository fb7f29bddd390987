package mutation

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"
)

// Changes are the lines changed since a git ref: by root-relative path, the
// set of lines (1-based, in the working tree) that were added or modified;
// a nil set means the whole file is new (untracked).
type Changes map[string]map[int]bool

// Touches reports whether any of lines of file changed; with no lines, whether
// the file changed at all.
func (c Changes) Touches(file string, lines []int) bool {
	set, ok := c[file]
	if !ok {
		return false
	}
	if set == nil || len(lines) == 0 {
		return true
	}
	for _, l := range lines {
		if set[l] {
			return true
		}
	}
	return false
}

// ChangedLines runs `git diff -U0 ref` (read-only) in root and parses it with
// go-gitdiff, adding untracked files (`git ls-files --others
// --exclude-standard`) as wholly changed. Lines only deleted leave no mark:
// a mutant needs a line that exists. ref is --diff's: it is resolved to a
// commit first (workspace.ResolveCommit: a ref that starts with '-' or
// names no commit is a usage error naming --diff), and git diff is given
// that commit after --end-of-options, so that nothing of ref is read as an
// option.
func ChangedLines(ctx context.Context, root, ref string) (Changes, error) {
	commit, err := workspace.ResolveCommit(ctx, root, "--diff", ref)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", verdict.ErrUsage, err)
	}
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		out, err := cmd.Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = strings.TrimSpace(string(ee.Stderr))
			}
			return nil, fmt.Errorf("%w: git %s: %v %s", verdict.ErrUsage, strings.Join(args, " "), err, msg)
		}
		return out, nil
	}
	out, err := git("diff", "--relative", "--no-color", "--no-ext-diff", "--no-renames", "-U0", "--end-of-options", commit, "--")
	if err != nil {
		return nil, err
	}
	files, _, err := gitdiff.Parse(strings.NewReader(string(out)))
	if err != nil {
		return nil, fmt.Errorf("git diff %s: %v", ref, err)
	}
	ch := Changes{}
	for _, f := range files {
		if f.IsDelete {
			continue
		}
		set := map[int]bool{}
		for _, frag := range f.TextFragments {
			n := int(frag.NewPosition)
			for _, l := range frag.Lines {
				switch l.Op {
				case gitdiff.OpAdd:
					set[n] = true
					n++
				case gitdiff.OpContext:
					n++
				}
			}
		}
		ch[filepath.ToSlash(f.NewName)] = set
	}
	out, err = git("ls-files", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	for _, p := range strings.Fields(string(out)) {
		ch[filepath.ToSlash(p)] = nil
	}
	return ch, nil
}
