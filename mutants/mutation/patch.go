package mutation

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
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
	f, err := parsePatch(patch)
	if err != nil {
		return nil, Applied{}, fmt.Errorf("malformed patch: %w", err)
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

// PatchError is a malformed patch: one that is not a unified diff of
// exactly one existing text file, hunks whose headers count the lines they
// hold. Line is the 1-based line of the patch it is at, 0 for the whole
// patch. LoadCatalog refuses such a patch, at its catalog file's place;
// ErrNoLongerApplies is only ever a well-formed patch whose lines the
// source no longer has.
type PatchError struct {
	Line    int
	Message string
}

func (e *PatchError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d of the patch: %s", e.Line, e.Message)
	}
	return e.Message
}

// gitdiffLine is go-gitdiff's parse error, "gitdiff: line N: message".
var gitdiffLine = regexp.MustCompile(`^gitdiff: line (\d+): (.*)$`)

// parsePatch parses patch as ApplyPatch applies it: a unified diff of one
// existing text file, changed in place, with at least one hunk, every
// hunk's header counting its lines exactly (go-gitdiff refuses a header
// that counts more lines than follow it; a line left after a hunk, which
// it would drop, is refused here), and no file header but the one. A
// problem is a *PatchError.
func parsePatch(patch string) (*gitdiff.File, error) {
	norm := normalizePatch(patch)
	files, _, err := gitdiff.Parse(strings.NewReader(norm))
	if err != nil {
		if m := gitdiffLine.FindStringSubmatch(err.Error()); m != nil {
			if n, aerr := strconv.Atoi(m[1]); aerr == nil {
				if strings.Contains(m[2], "fragment") {
					// A hunk's problem is placed at its header, the
					// nearest one at or above where go-gitdiff stopped.
					ls := strings.Split(norm, "\n")
					for h := min(n, len(ls)); h >= 1; h-- {
						if strings.HasPrefix(ls[h-1], "@@") {
							n = h
							break
						}
					}
				}
				return nil, &PatchError{Line: n, Message: m[2]}
			}
		}
		return nil, &PatchError{Message: strings.TrimPrefix(err.Error(), "gitdiff: ")}
	}
	ls := strings.Split(strings.TrimSuffix(norm, "\n"), "\n")
	if len(files) == 0 {
		return nil, &PatchError{Message: "no file header and hunk: want --- a/FILE, +++ b/FILE, then @@ -l,n +l,n @@ hunks"}
	}
	f := files[0]
	// Walk the lines: a header before the first hunk at most once each;
	// each hunk exactly the lines its header counts, then only the next
	// hunk's header (or blank lines).
	seen := map[string]bool{}
	i := 0
	for ; i < len(ls) && !strings.HasPrefix(ls[i], "@@"); i++ {
		for _, h := range fileHeaders {
			if strings.HasPrefix(ls[i], h) {
				if seen[h] {
					return nil, &PatchError{Line: i + 1, Message: secondHeader(ls[i])}
				}
				seen[h] = true
			}
		}
	}
	for k, frag := range f.TextFragments {
		if i >= len(ls) || !strings.HasPrefix(ls[i], "@@") {
			break // go-gitdiff read it: cannot happen
		}
		header := strings.TrimSpace(ls[i])
		i++
		for n := 0; n < len(frag.Lines) && i < len(ls); i++ {
			if !strings.HasPrefix(ls[i], "\\") {
				n++
			}
		}
		for ; i < len(ls) && strings.HasPrefix(ls[i], "\\"); i++ {
		}
		for ; i < len(ls) && strings.TrimSpace(ls[i]) == ""; i++ {
		}
		if i < len(ls) && !strings.HasPrefix(ls[i], "@@") {
			l := ls[i]
			for _, h := range fileHeaders {
				if strings.HasPrefix(l, h) {
					return nil, &PatchError{Line: i + 1, Message: secondHeader(l)}
				}
			}
			return nil, &PatchError{Line: i + 1, Message: fmt.Sprintf("%q is outside every hunk: the header of hunk %d (%s) counts fewer lines than follow it (%d old, %d new)", l, k+1, header, frag.OldLines, frag.NewLines)}
		}
	}
	if len(files) != 1 {
		return nil, &PatchError{Message: fmt.Sprintf("want exactly one file, got %d", len(files))}
	}
	if f.IsNew || f.IsDelete || f.IsRename || f.IsCopy {
		// LoadCatalog refuses these by their headers; this guard keeps any
		// other caller from creating, deleting or moving a file through a
		// patch.
		return nil, &PatchError{Message: "it creates, deletes, renames or copies a file; a mutant changes one existing file in place"}
	}
	if f.IsBinary || len(f.TextFragments) == 0 {
		return nil, &PatchError{Message: "no text hunks: want @@ -l,n +l,n @@ hunks after the --- and +++ headers"}
	}
	return f, nil
}

// fileHeaders open the header lines of a file in a unified diff.
var fileHeaders = []string{"--- ", "+++ ", "diff --git "}

// secondHeader says that the header line l is one too many.
func secondHeader(l string) string {
	return fmt.Sprintf("%q: a second file header: a patch changes one file, with one --- and one +++ header", l)
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
