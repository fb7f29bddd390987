package verdict

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/workspace"
)

// The ratchet (issue 21 item 3): a committed file of accepted survivors
// (mutants/accepted.yaml here, waitsim/accepted.yaml in a module of one's
// own; --accepted names another), each entry a mutant's stable id and the
// reason it may survive:
//
//	- id: label-changes
//	  reason: Label is a debugging aid that nothing reads
//
// A survivor (survived or timed out: the statuses the score counts as not
// killed) that the file lists does not fail the gate: a catalog survivor it
// lists is not the gate's failure, and the operator threshold is judged
// without the operator survivors it lists. Every other survivor is new. The
// file is read before the campaign starts (a problem in it is a usage error,
// exit 2, naming file:line:column and the field); the result records its
// entries (Result.Ratchet), and Evaluate derives from them and the mutant
// list which survivors are new, which accepted ones still survive, which
// accepted ones are killed now (their entries can go) and which entries
// name no mutant of the campaign any more (stale). Neither of the last two
// fails the gate.

// Accepted is one entry of the accepted-survivors file.
type Accepted struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	// Line is the entry's line in the file (for people and annotations).
	Line int `json:"line,omitempty"`
}

// Ratchet is the accepted-survivors file a campaign ran with and what the
// gate made of it. File and Accepted are the input; the rest Evaluate
// derives from them and the mutant list (a reader recomputes them).
type Ratchet struct {
	// File is the accepted file, relative to the module root; Accepted its
	// entries in file order (none when the file does not exist).
	File     string     `json:"file"`
	Accepted []Accepted `json:"accepted"`
	// New are the survivors the file does not list, Held the ones it does.
	New  []string `json:"new,omitempty"`
	Held []string `json:"held,omitempty"`
	// Resolved are accepted mutants that no longer survive (killed now,
	// or equivalent): their entries can go.
	Resolved []Resolved `json:"resolved,omitempty"`
	// Stale are accepted ids that no mutant of the campaign has any more
	// (judged only on a whole campaign: not a shard, nor with --only or
	// --diff, and only for the kinds of mutant it ran).
	Stale []string `json:"stale,omitempty"`
}

// Resolved is an accepted mutant that no longer survives, and its status.
type Resolved struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// AcceptedError is every problem of the accepted file, one a line as
// "file:line:column: field: message", at most MaxProblems of them
// (More counts the rest). It is a usage error: errors.Is(err, ErrUsage).
type AcceptedError struct{ ProblemList }

func (e *AcceptedError) Error() string { return e.Text("the accepted survivors") }

// Unwrap makes an AcceptedError a usage error (exit 2).
func (e *AcceptedError) Unwrap() error { return ErrUsage }

// LoadRatchet reads the accepted file path (relative to root unless
// absolute; it must lie inside the module) through the loaders' limits
// (limits.Accepted: bytes, nesting, entries, values, UTF-8), and checks
// it whole: a YAML list whose every entry is a mapping of a non-empty
// one-line id and reason and nothing else, no id twice, never the sanity
// mutant. A missing file accepts nothing. Problems are an *AcceptedError.
func LoadRatchet(root, path string) (*Ratchet, error) {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, filepath.FromSlash(path))
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, fmt.Errorf("%w: --accepted %s: not a file of the module at %s (the accepted survivors are committed with it)", ErrUsage, path, root)
	}
	rel = filepath.ToSlash(rel)
	r := &Ratchet{File: rel, Accepted: []Accepted{}}
	text, err := limits.Read(abs, limits.Accepted)
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	var bad AcceptedError
	var le *limits.Error
	if errors.As(err, &le) {
		bad.Add(results.Problem{File: rel, Line: le.Line, Column: le.Column, Field: le.Field, Message: le.Message}.String())
		return nil, &bad
	}
	src := text.Src
	if err != nil {
		return nil, fmt.Errorf("%w: accepted survivors: %v", ErrUsage, err)
	}
	var problems []string
	r.Accepted, problems = parseAccepted(rel, src)
	bad.Add(problems...)
	if len(bad.Problems) > 0 {
		return nil, &bad
	}
	return r, nil
}

// acceptedList is the accepted file's shape (ParseList).
var acceptedList = ListSpec{
	Name: "accepted", Fields: []string{"id", "reason"}, Key: "id",
	Empty: map[string]string{
		"id":     "empty: want the mutant's id (as out/mutation.json names it)",
		"reason": "empty: say why the survivor may stay (the reason is required)",
	},
	Dup: "%q is accepted already by accepted[%d]",
	Check: func(field, v string) string {
		switch {
		case field == "id" && strings.ContainsFunc(v, unicode.IsSpace):
			return fmt.Sprintf("%q: a mutant's id has no white space", v)
		case field == "id" && v == "sanity":
			return "the sanity mutant must be killed: it cannot be accepted"
		}
		return ""
	},
}

// parseAccepted parses the accepted file src (named rel) into its entries,
// or every problem of it in file order.
func parseAccepted(rel string, src []byte) ([]Accepted, []string) {
	entries, problems := ParseList(rel, src, acceptedList)
	if problems != nil {
		return nil, problems
	}
	out := make([]Accepted, len(entries))
	for i, e := range entries {
		out[i] = Accepted{ID: e.Values["id"], Reason: e.Values["reason"], Line: e.Line}
	}
	return out, nil
}

// survives reports whether a status is a survivor's for the ratchet: not
// killed although it ran (the statuses the score counts against it).
func survives(status string) bool {
	return status == StatusSurvived || status == StatusTimedOut
}

// input is r's input part (File and Accepted), without what Evaluate
// derived; nil for nil.
func (r *Ratchet) input() *Ratchet {
	if r == nil {
		return nil
	}
	return &Ratchet{File: r.File, Accepted: append([]Accepted{}, r.Accepted...)}
}

// sameInput reports whether a and b ran with the same accepted file.
func sameInput(a, b *Ratchet) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.File == b.File && slices.Equal(a.Accepted, b.Accepted)
}

// describeRatchet names r's accepted file and its entries, for merge's
// errors.
func describeRatchet(r *Ratchet) string {
	if r == nil {
		return "no accepted survivors recorded"
	}
	return fmt.Sprintf("%s (%d entries)", r.File, len(r.Accepted))
}

// accepted is the entry of id, if r lists it.
func (r *Ratchet) accepted(id string) (Accepted, bool) {
	if r == nil {
		return Accepted{}, false
	}
	for _, a := range r.Accepted {
		if a.ID == id {
			return a, true
		}
	}
	return Accepted{}, false
}

// evaluateRatchet replaces res.Ratchet with its input and what the mutant
// list makes of it: new, held, resolved and stale entries (see Ratchet).
func evaluateRatchet(res *Result) {
	r := res.Ratchet.input()
	res.Ratchet = r
	if r == nil || res.Baseline != nil {
		return
	}
	ids := map[string]bool{}
	judged := true
	for _, m := range res.Mutants {
		if m.Source == SourceSanity {
			judged = judged && m.Status == StatusKilled // mutants not run are missing
			continue
		}
		ids[m.ID] = true
		a, ok := r.accepted(m.ID)
		switch {
		case survives(m.Status) && ok:
			r.Held = append(r.Held, m.ID)
		case survives(m.Status):
			r.New = append(r.New, m.ID)
		case ok && (m.Status == StatusKilled || m.Status == StatusEquivalent):
			r.Resolved = append(r.Resolved, Resolved{ID: a.ID, Status: m.Status})
		}
	}
	if !judged || res.Shard != "" || res.DiffRef != "" || option(res.Options, "only") != "" || option(res.Options, "diff") != "" {
		return
	}
	for _, a := range r.Accepted {
		if ids[a.ID] {
			continue
		}
		if strings.HasPrefix(a.ID, "gremlins:") {
			if option(res.Options, "no-operators") == "true" || !InTarget(a.ID, option(res.Options, "target")) {
				continue // another campaign's: the accepted file may serve several
			}
		} else if option(res.Options, "no-catalog") == "true" {
			continue
		}
		r.Stale = append(r.Stale, a.ID)
	}
}

// option is the value of key in a result's Options ("" when absent; a
// quoted value unquoted: only="" is "").
func option(options, key string) string {
	for _, f := range strings.Fields(options) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			if v == `""` {
				return ""
			}
			return v
		}
	}
	return ""
}

// checkRatchet is Result.Check's part for the ratchet: a local file path,
// and entries with an id (unique) and a reason.
func checkRatchet(r *Ratchet) error {
	if r == nil {
		return nil
	}
	if r.File != "" {
		if err := workspace.CheckLocalPath(r.File); err != nil {
			return &FieldError{"ratchet.file", err.Error()}
		}
	}
	seen := map[string]int{}
	for i, a := range r.Accepted {
		f := fmt.Sprintf("ratchet.accepted[%d]", i)
		if strings.TrimSpace(a.ID) == "" {
			return &FieldError{f + ".id", "empty"}
		}
		if strings.TrimSpace(a.Reason) == "" {
			return &FieldError{f + ".reason", fmt.Sprintf("empty (accepted survivor %s): every accepted survivor has a reason", a.ID)}
		}
		if j, dup := seen[a.ID]; dup {
			return &FieldError{f + ".id", fmt.Sprintf("%q repeats ratchet.accepted[%d]", a.ID, j)}
		}
		seen[a.ID] = i
	}
	return nil
}

// where is "file:line" of an accepted entry.
func (r *Ratchet) where(a Accepted) string {
	if a.Line > 0 {
		return fmt.Sprintf("%s:%d", r.File, a.Line)
	}
	return r.File
}

// RatchetMutantNote prints, under a survivor's summary line, that it is
// accepted and why, or that it is new.
func RatchetMutantNote(w io.Writer, res *Result, m MutantResult) {
	r := res.Ratchet
	if r == nil || !survives(m.Status) {
		return
	}
	if a, ok := r.accepted(m.ID); ok {
		fmt.Fprintf(w, "    accepted (%s): %s\n", r.where(a), a.Reason)
		return
	}
	fmt.Fprintf(w, "    new: not in %s (add a case that kills it, or accept it there with a reason)\n", r.File)
}

// RatchetSummary prints the ratchet's verdict for people: how many
// survivors are accepted and new, then each accepted entry that can go.
func RatchetSummary(w io.Writer, res *Result) {
	r := res.Ratchet
	if r == nil || res.Baseline != nil || len(r.Accepted) == 0 && len(r.New) == 0 {
		return
	}
	fmt.Fprintf(w, "ratchet: %d new survivor(s), %d accepted survivor(s) of %d entries in %s\n", len(r.New), len(r.Held), len(r.Accepted), r.File)
	for _, x := range r.Resolved {
		a, _ := r.accepted(x.ID)
		fmt.Fprintf(w, "accepted survivor %s is %s now: its entry can go (%s)\n", x.ID, x.Status, r.where(a))
	}
	for _, id := range r.Stale {
		a, _ := r.accepted(id)
		fmt.Fprintf(w, "stale accepted entry %s: no mutant has this id any more; remove it (%s)\n", id, r.where(a))
	}
}

// InTarget reports whether the operator mutant id ("gremlins:<file>:…")
// lies in a file directly inside the package directory target ("./dir/").
func InTarget(id, target string) bool {
	file, _, _ := strings.Cut(strings.TrimPrefix(id, "gremlins:"), ":")
	return filepath.ToSlash(filepath.Dir(file)) == strings.Trim(filepath.ToSlash(filepath.Clean(target)), "/")
}

// Selection lists what narrowed the campaign of r to part of its mutants,
// as the options were given: "--only PATTERN", "--diff REF",
// "--no-operators", "--no-catalog", "shard k/n"; nil for a whole campaign.
// A gate of a partial campaign judges only the mutants it ran, and a report
// says so beside it.
func (r *Result) Selection() []string {
	var s []string
	if v := option(r.Options, "only"); v != "" {
		s = append(s, "--only "+v)
	}
	if r.DiffRef != "" {
		s = append(s, "--diff "+r.DiffRef)
	} else if v := option(r.Options, "diff"); v != "" {
		s = append(s, "--diff "+v)
	}
	if option(r.Options, "no-operators") == "true" {
		s = append(s, "--no-operators")
	}
	if option(r.Options, "no-catalog") == "true" {
		s = append(s, "--no-catalog")
	}
	if r.Shard != "" {
		s = append(s, "shard "+r.Shard)
	}
	return s
}
