package mutation

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// ErrNoLongerApplies is wrapped by every error of ApplyPatch that means the
// source moved under the patch: a hunk's old lines (context and deletions) are
// found nowhere in the file. Such a mutant ends as StatusNoApply, which fails
// the gate (issue 5: "a clear error naming the mutant, not a pass").
var ErrNoLongerApplies = errors.New("patch no longer applies")

// Applied describes where a patch went: the 1-based line numbers of the source
// lines it removed or replaced (for a pure insertion, the line it was inserted
// before), and the line offset at which its first relocated hunk applied (0
// when every hunk applied at its stated position).
type Applied struct {
	Lines  []int
	Offset int
	// Line is the mutant's line: the first line the patch removed or
	// replaced, or its first insertion when it removes nothing (a patch
	// that adds an import and changes a line is at the changed line).
	Line int
}

// ApplyPatch applies patch, a unified diff of exactly one text file, to src
// and returns the patched bytes. Parsing and application are go-gitdiff's;
// because go-gitdiff applies strictly at the stated positions, each hunk is
// first relocated the way `patch`/`git apply` do: if its old lines do not
// match at the stated line, the nearest line where they all match exactly is
// used (searching outward, never before the end of the previous hunk). So a
// patch survives unrelated edits above it, and fails with ErrNoLongerApplies
// only when its own lines changed. A blank line inside a hunk is read as an
// empty context line (editors strip the lone space). Other errors (a
// malformed patch, several files) are authoring errors.
func ApplyPatch(src []byte, patch string) ([]byte, Applied, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(normalizePatch(patch)))
	if err != nil {
		return nil, Applied{}, fmt.Errorf("malformed patch: %w", err)
	}
	if len(files) != 1 {
		return nil, Applied{}, fmt.Errorf("malformed patch: want exactly one file, got %d", len(files))
	}
	f := files[0]
	if f.IsNew || f.IsDelete || f.IsRename || f.IsCopy {
		// LoadCatalog refuses these; this guard keeps any other caller from
		// creating, deleting or moving a file through a patch.
		return nil, Applied{}, fmt.Errorf("malformed patch: it creates, deletes, renames or copies a file; a mutant changes one existing file in place")
	}
	if f.IsBinary || len(f.TextFragments) == 0 {
		return nil, Applied{}, fmt.Errorf("malformed patch: no text hunks")
	}
	lines := SplitLines(src)
	var ap Applied
	next := 0 // first 0-based source line a hunk may start at
	shift := int64(0)
	for i, frag := range f.TextFragments {
		old := oldLines(frag)
		want := int(frag.OldPosition-1) + int(shift)
		if frag.OldPosition == 0 {
			want = 0
		}
		at := locate(lines, old, want, next)
		if at < 0 {
			return nil, Applied{}, fmt.Errorf("%w: hunk %d (%s) does not match the source: %s",
				ErrNoLongerApplies, i+1, strings.TrimSpace(frag.Header()), firstMismatch(lines, old, want))
		}
		off := int64(at - int(frag.OldPosition-1))
		if frag.OldPosition == 0 {
			off = 0
		}
		if ap.Offset == 0 && off != 0 {
			ap.Offset = int(off)
		}
		shift = off
		frag.OldPosition += off
		frag.NewPosition += off
		ln := at
		changed := false // the previous line of the hunk was a deletion or an addition
		for _, l := range frag.Lines {
			switch l.Op {
			case gitdiff.OpContext:
				ln++
				changed = false
			case gitdiff.OpDelete:
				ap.Lines = append(ap.Lines, ln+1)
				if ap.Line == 0 || ln+1 < ap.Line {
					ap.Line = ln + 1
				}
				ln++
				changed = true
			case gitdiff.OpAdd:
				if !changed {
					ap.Lines = append(ap.Lines, ln+1) // a pure insertion: the line it goes before
				}
				changed = true
			}
		}
		next = at + len(old)
	}
	sort.Ints(ap.Lines)
	ap.Lines = uniqueSorted(ap.Lines)
	if ap.Line == 0 && len(ap.Lines) > 0 {
		ap.Line = ap.Lines[0]
	}
	var out bytes.Buffer
	if err := gitdiff.Apply(&out, bytes.NewReader(src), f); err != nil {
		if errors.Is(err, &gitdiff.Conflict{}) {
			return nil, Applied{}, fmt.Errorf("%w: %v", ErrNoLongerApplies, err)
		}
		return nil, Applied{}, fmt.Errorf("apply: %w", err)
	}
	return out.Bytes(), ap, nil
}

// PatchFile returns the path a one-file unified diff names (its new name,
// without the a/ or b/ prefix), or "" when it names none.
func PatchFile(patch string) string {
	for _, l := range strings.Split(patch, "\n") {
		if name, ok := strings.CutPrefix(l, "+++ "); ok {
			name, _, _ = strings.Cut(name, "\t")
			name = strings.TrimSpace(name)
			if name == "/dev/null" {
				return ""
			}
			name = strings.TrimPrefix(strings.TrimPrefix(name, "b/"), "a/")
			return name
		}
	}
	return ""
}

// normalizePatch turns empty lines inside hunks into empty context lines and
// makes sure the patch ends with a newline.
func normalizePatch(p string) string {
	ls := strings.Split(strings.TrimRight(p, "\n"), "\n")
	inHunk := false
	for i, l := range ls {
		switch {
		case strings.HasPrefix(l, "@@ "):
			inHunk = true
		case strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "diff "):
			inHunk = false
		case inHunk && l == "":
			ls[i] = " "
		}
	}
	return strings.Join(ls, "\n") + "\n"
}

func oldLines(f *gitdiff.TextFragment) []string {
	var out []string
	for _, l := range f.Lines {
		if l.Old() {
			out = append(out, l.Line)
		}
	}
	return out
}

// locate returns the 0-based line at which old matches lines, searching from
// want outward (want, want+1, want-1, …) and never before floor; -1 if none.
func locate(lines, old []string, want, floor int) int {
	match := func(at int) bool {
		if at < floor || at+len(old) > len(lines) {
			return false
		}
		for i, o := range old {
			if lines[at+i] != o {
				return false
			}
		}
		return true
	}
	for d := 0; d <= len(lines); d++ {
		if match(want + d) {
			return want + d
		}
		if d > 0 && match(want-d) {
			return want - d
		}
	}
	return -1
}

func firstMismatch(lines, old []string, at int) string {
	for i, o := range old {
		j := at + i
		if j < 0 || j >= len(lines) {
			return fmt.Sprintf("line %d is past the end of the file (want %q)", j+1, strings.TrimRight(o, "\n"))
		}
		if lines[j] != o {
			return fmt.Sprintf("line %d is %q, the patch wants %q, and the hunk's lines are found nowhere else",
				j+1, strings.TrimRight(lines[j], "\n"), strings.TrimRight(o, "\n"))
		}
	}
	return "the hunk overlaps the previous one"
}

// SplitLines splits b into lines that keep their "\n" (the last may lack it).
func SplitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

func uniqueSorted(xs []int) []int {
	if len(xs) == 0 {
		return nil
	}
	out := make([]int, 0, len(xs))
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}
