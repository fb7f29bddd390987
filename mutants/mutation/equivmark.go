package mutation

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
)

// An operator mutant can be marked equivalent in the source, on the line
// above the mutated line (issue 21 item 3), as Stryker's
// `// Stryker disable next-line <mutator>: <reason>` does:
//
//	//waitsim:equivalent [KIND[,KIND…]:] reason
//	if d > c.cost {
//
// A marked mutant is reported as equivalent with the reason, and not run.
// KIND is one of gremlins' mutation types (CONDITIONALS_BOUNDARY, …; the
// last field of a gremlins id): without one, the mark covers every operator
// mutant on the line. The comment is a line of its own (a Go directive: no
// space after //), and marks the next line that is not itself a mark, so
// that marks of several kinds stack; lines and columns are the file's own
// (a //line directive does not move a mark). The reason is required, and
// is not a word shaped like a kind (CONDITIONALS_BOUNDRY: a kind without
// its colon, or misspelt). A mark that is not so (no reason, a kind-shaped
// reason, an unknown kind, a mark after code on its line) is a usage error
// naming file:line:column; a mark that matches no operator mutant is a
// note (the line moved, or the mutant is gone). Catalog mutants are not
// marked so: a catalog entry is a defect on purpose.

// MarkDirective opens a source mark of an equivalent mutant.
const MarkDirective = "//waitsim:equivalent"

// SourceMark is one //waitsim:equivalent comment.
type SourceMark struct {
	file   string   // root-relative, slash-separated
	line   int      // the comment's line
	marks  int      // the line it marks
	kinds  []string // gremlins mutation types; nil: every one
	reason string
	used   bool
}

var markKinds = regexp.MustCompile(`^([A-Z][A-Z_]*(?:\s*,\s*[A-Z][A-Z_]*)*)\s*:\s*(.*)$`)

// kindShaped is a reason that is only words shaped like mutation kinds
// (CONDITIONALS_BOUNDRY, or a list of them): the kinds without their
// colon, or misspelt, never a reason.
var kindShaped = regexp.MustCompile(`^[A-Z][A-Z_]+(?:\s*,\s*[A-Z][A-Z_]+)*$`)

// GoFiles lists the Go files of the package in dir that gremlins mutates:
// its non-test files, sorted.
func GoFiles(dir string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return slices.DeleteFunc(names, func(n string) bool { return strings.HasSuffix(n, "_test.go") }), nil
}

// LoadMarks reads the marks of the target package's Go files (test files
// left out: gremlins mutates none). Problems are one error wrapping
// verdict.ErrUsage, one line each: "file:line:column: //waitsim:equivalent: …".
func LoadMarks(root, target string) ([]*SourceMark, error) {
	dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(target, "./")))
	names, err := GoFiles(dir)
	if err != nil {
		return nil, err
	}
	var marks []*SourceMark
	var problems []string
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(src), MarkDirective) {
			continue
		}
		ms, ps := ParseMarks(RelTo(root, name), src)
		marks, problems = append(marks, ms...), append(problems, ps...)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %d problem(s) in %s marks; nothing ran:\n  %s", verdict.ErrUsage, len(problems), MarkDirective, strings.Join(verdict.First(problems, verdict.MaxProblems), "\n  "))
	}
	return marks, nil
}

// ParseMarks finds the marks of one Go file, src, named rel.
func ParseMarks(rel string, src []byte) ([]*SourceMark, []string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil // gremlins and the build say what is wrong with it
	}
	lines := SplitLines(src)
	var marks []*SourceMark
	var problems []string
	isMark := map[int]bool{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if c.Text != MarkDirective && !strings.HasPrefix(c.Text, MarkDirective+" ") && !strings.HasPrefix(c.Text, MarkDirective+"\t") {
				continue
			}
			// The file's own line and column: a //line directive
			// before the mark must not move it (nor index past a
			// line's end: it used to panic).
			pos := fset.PositionFor(c.Slash, false)
			bad := func(format string, args ...any) {
				problems = append(problems, fmt.Sprintf("%s:%d:%d: %s: %s", rel, pos.Line, pos.Column, MarkDirective, fmt.Sprintf(format, args...)))
			}
			if before, ok := lineBefore(lines, pos.Line, pos.Column); ok && strings.TrimSpace(before) != "" {
				bad("after code: a mark is a line of its own, above the line it marks")
				continue
			}
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, MarkDirective))
			m := &SourceMark{file: rel, line: pos.Line, reason: text}
			if k := markKinds.FindStringSubmatch(text); k != nil {
				for _, kind := range strings.Split(k[1], ",") {
					kind = strings.TrimSpace(kind)
					if _, ok := operatorSwaps[kind]; !ok {
						bad("%q is not a gremlins mutation type (one of %s); a reason that starts with a word and a colon needs the kinds before it", kind, strings.Join(mutationTypes(), ", "))
						m = nil
						break
					}
					m.kinds = append(m.kinds, kind)
				}
				if m == nil {
					continue
				}
				m.reason = strings.TrimSpace(k[2])
			}
			if m.reason == "" {
				bad("no reason: want %s [KIND[,KIND…]:] <why no test can tell the mutant from the code>", MarkDirective)
				continue
			}
			if kindShaped.MatchString(m.reason) {
				bad("%s", kindShapedReason(m.reason))
				continue
			}
			isMark[pos.Line] = true
			marks = append(marks, m)
		}
	}
	for _, m := range marks {
		m.marks = m.line + 1
		for isMark[m.marks] {
			m.marks++
		}
	}
	return marks, problems
}

// lineBefore is the text of the 1-based line before the 1-based column
// col; ok is false when the file has no such place.
func lineBefore(lines []string, line, col int) (before string, ok bool) {
	if line < 1 || line > len(lines) || col < 1 || col-1 > len(lines[line-1]) {
		return "", false
	}
	return lines[line-1][:col-1], true
}

// kindShapedReason says why reason, shaped like mutation kinds, is no
// reason: with the kind it names or is closest to, if any.
func kindShapedReason(reason string) string {
	var hints []string
	for _, w := range strings.Split(reason, ",") {
		w = strings.TrimSpace(w)
		if _, ok := operatorSwaps[w]; ok {
			continue
		}
		if near := results.Nearest(w, mutationTypes()); near != "" {
			hints = append(hints, fmt.Sprintf("did you mean %q for %q?", near, w))
		} else {
			hints = append(hints, fmt.Sprintf("%q is not a gremlins mutation type (one of %s)", w, strings.Join(mutationTypes(), ", ")))
		}
	}
	msg := fmt.Sprintf("the reason %q looks like a mutation kind, not a reason: write %s KIND: <reason> (the kinds, a colon, then why no test can tell the mutant from the code), or a reason of more words", reason, MarkDirective)
	if len(hints) > 0 {
		msg += "; " + strings.Join(hints, "; ")
	}
	return msg
}

func mutationTypes() []string {
	ks := make([]string, 0, len(operatorSwaps))
	for k := range operatorSwaps {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// markFor is the mark that covers the operator mutant of type kind at
// file:line, nil when none does.
func markFor(marks []*SourceMark, file string, line int, kind string) *SourceMark {
	for _, m := range marks {
		if m.file == file && m.marks == line && (m.kinds == nil || slices.Contains(m.kinds, kind)) {
			return m
		}
	}
	return nil
}

// UseMark finds the mark that covers the operator mutant of site s and
// marks it used; detail says why the mutant is equivalent and not run.
// ok is false when no mark covers it.
func UseMark(marks []*SourceMark, s OperatorSite) (detail string, ok bool) {
	k := markFor(marks, s.File, s.Line, s.Type)
	if k == nil {
		return "", false
	}
	k.used = true
	return fmt.Sprintf("equivalent: %s (%s at %s:%d; not run)", k.reason, MarkDirective, k.file, k.line), true
}

// UnusedMarks are notes on the marks that matched no operator mutant.
func UnusedMarks(marks []*SourceMark) []string {
	var notes []string
	for _, m := range marks {
		if !m.used {
			what := "operator mutant"
			if m.kinds != nil {
				what = strings.Join(m.kinds, " or ") + " mutant"
			}
			notes = append(notes, fmt.Sprintf("%s:%d: %s marks no %s on line %d (it moved, or the mutant is gone): remove the mark", m.file, m.line, MarkDirective, what, m.marks))
		}
	}
	return notes
}
