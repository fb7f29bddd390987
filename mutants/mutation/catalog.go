package mutation

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// CatalogEntry is one semantic mutant of the catalog (contract §5): one YAML file
// under mutants/catalog/, whose name without ".yaml" is the mutant's stable id.
//
//	intent: one line: the defect it models
//	spec:   where the defect comes from, e.g. "contract §5 (original review): no cap"
//	file:   the target file, relative to the module root (waittool/tool.go)
//	patch: |
//	  a unified diff of that one file against the waittool source
type CatalogEntry struct {
	ID     string `yaml:"-"`
	Intent string `yaml:"intent"`
	Spec   string `yaml:"spec"`
	File   string `yaml:"file"`
	Patch  string `yaml:"patch"`
	// Path is the catalog file the entry was read from, relative to the
	// module root.
	Path string `yaml:"-"`
	// Where is "path:line:column" of the entry's file: value (or of the
	// entry when it has none), for problems found after loading.
	Where string `yaml:"-"`
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// MaxCatalogFileBytes is the size of a catalog file: a larger one is
// refused unread. A catalog file is read through limits.Read, with the
// limits of limits.CatalogEntry (bytes, depth, entries, values).
var MaxCatalogFileBytes = int(limits.CatalogEntry.MaxBytes)

// CatalogError is every problem found in the catalog files, one a line as
// "file:line:column: field: message" (the file relative to the module
// root), in file order, at most verdict.MaxProblems of them; More counts the
// rest. It is a usage error: errors.Is(err, ErrUsage) holds.
type CatalogError struct{ verdict.ProblemList }

func (e *CatalogError) Error() string { return e.Text("the mutation catalog") }

// Unwrap makes a CatalogError a usage error (exit 2).
func (e *CatalogError) Unwrap() error { return verdict.ErrUsage }

// LoadCatalog reads every *.yaml and *.yml file of dir (root-relative paths
// are reported relative to root), sorted by id; dir must exist. Every file
// is checked before it returns: on any authoring error it returns a
// *CatalogError listing them all — unknown or missing fields, a value that
// is not a string, two files of one id (x.yaml and x.yml), an id (the
// file's name) that is not lower-case kebab-case, an intent that is empty
// or not one line, a file that is not a local path (CheckLocalPath) or not
// an existing regular file under root, an empty patch, and a patch whose
// headers name another file than file, or that creates, deletes, renames or
// copies a file: a catalog mutant changes one existing file, in place; a
// malformed patch (parsePatch: a hunk header whose counts do not match its
// lines, a second file header, a hunk start out of range, an empty hunk)
// is refused here too, at its line. Only a well-formed patch whose lines
// the source no longer has ends as a mutant that no longer applies.
func LoadCatalog(root, dir string) ([]CatalogEntry, error) {
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, dir)
	}
	if err := CheckDir(abs); err != nil {
		return nil, err
	}
	var names []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, err := filepath.Glob(filepath.Join(abs, pat))
		if err != nil {
			return nil, err
		}
		names = append(names, m...)
	}
	sort.Strings(names) // problems in file order
	var out []CatalogEntry
	var bad CatalogError
	seen := map[string]string{}
	for _, name := range names {
		e, problems := loadEntry(root, name)
		if len(problems) > 0 {
			bad.Add(problems...)
			continue
		}
		if other, dup := seen[e.ID]; dup {
			bad.Add(fmt.Sprintf("%s:1:1: id: %q is also the id of %s (one id, one catalog file)", e.Path, e.ID, other))
			continue
		}
		seen[e.ID] = e.Path
		out = append(out, e)
	}
	if len(bad.Problems) > 0 {
		return nil, &bad
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// catalogField is a field of a catalog entry, and whether it is required.
type catalogField struct {
	name     string
	required bool
}

// catalogFields are the fields of a catalog entry.
var catalogFields = []catalogField{{"intent", true}, {"spec", false}, {"file", true}, {"patch", true}}

// loadEntry reads and checks one catalog file: the entry, or every problem
// of it as "file:line:column: field: message", in the order of the file.
func loadEntry(root, name string) (CatalogEntry, []string) {
	rel := RelTo(root, name)
	e := CatalogEntry{ID: strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".yaml"), ".yml"), Path: rel}
	fp := verdict.NewFileProblems(rel)
	prob, at, problems := fp.Add, fp.At, fp.List
	text, err := limits.Read(name, limits.CatalogEntry)
	var le *limits.Error
	if errors.As(err, &le) {
		prob(le.Line, le.Column, le.Field, "%s", le.Message)
		return e, problems()
	}
	if err != nil {
		prob(1, 1, "file", "%v", err)
		return e, problems()
	}
	b := text.Src
	if !idPattern.MatchString(e.ID) {
		prob(1, 1, "id", "%q (the file's name) is not lower-case kebab-case", e.ID)
	}
	f, err := parser.ParseBytes(b, 0)
	if err != nil {
		fp.YAMLError(err)
		return e, problems()
	}
	var body ast.Node
	if len(f.Docs) == 1 {
		body = f.Docs[0].Body
	}
	pairs, ok := verdict.EntryPairs(body)
	if !ok {
		prob(1, 1, "entry", "want one mapping of intent, spec, file and patch")
		return e, problems()
	}
	values := map[string]string{}
	nodes := map[string]ast.Node{} // the value node of each string field
	given := map[string]bool{}
	for _, kv := range pairs {
		key := kv.Key.String()
		known := slices.ContainsFunc(catalogFields, func(f catalogField) bool { return f.name == key })
		switch v, isString := verdict.StringValue(kv.Value); {
		case !known:
			at(kv.Key, key, "unknown field (known here: intent, spec, file, patch)")
		case !isString:
			given[key] = true
			at(kv.Value, key, "want a string")
		default:
			given[key] = true
			values[key], nodes[key] = v, kv.Value
		}
	}
	for _, f := range catalogFields {
		if f.required && !given[f.name] {
			// Placed at the mapping that lacks it: its first key.
			at(pairs[0].Key, f.name, "required field is missing")
		}
	}
	e.Intent, e.Spec, e.File, e.Patch = strings.TrimSpace(values["intent"]), values["spec"], values["file"], values["patch"]
	e.Where = fmt.Sprintf("%s:%d:%d", rel, pairs[0].Key.GetToken().Position.Line, pairs[0].Key.GetToken().Position.Column)
	if n := nodes["intent"]; n != nil && (e.Intent == "" || strings.Contains(e.Intent, "\n")) {
		at(n, "intent", "must be one non-empty line")
	}
	if n := nodes["file"]; n != nil {
		tk := n.GetToken()
		e.Where = fmt.Sprintf("%s:%d:%d", rel, tk.Position.Line, tk.Position.Column)
		if err := workspace.CheckLocalPath(e.File); err != nil {
			at(n, "file", "%v", err)
		} else if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(e.File))); err != nil || !st.Mode().IsRegular() {
			at(n, "file", "%s is not a file of the module: a catalog mutant changes an existing file, never adds one", e.File)
		}
	}
	if n := nodes["patch"]; n != nil {
		if strings.TrimSpace(e.Patch) == "" {
			at(n, "patch", "empty: want a unified diff of the entry's file")
		} else {
			patchProblems(n, b, e.Patch, e.File, prob)
		}
	}
	return e, problems()
}

// patchProblems checks an entry's patch, the value node n of the catalog
// file src, and reports each problem to prob: every path its headers name
// must be file (when the entry gives one), it may not create, delete,
// rename or copy a file, and it must parse as ApplyPatch parses it
// (parsePatch: one file, hunks whose headers count their lines).
// A problem is placed at its header line when the patch is a block scalar
// (patch: |), else at the value.
func patchProblems(n ast.Node, src []byte, patch, file string, prob func(line, col int, field, format string, args ...any)) {
	found := false
	srcLines := strings.Split(string(src), "\n")
	place := func(i int) (int, int) {
		tk := n.GetToken()
		if _, block := n.(*ast.LiteralNode); block {
			// A block scalar's text begins on the line after its indicator.
			line := tk.Position.Line + 1 + i
			if line <= len(srcLines) {
				l := srcLines[line-1]
				return line, len(l) - len(strings.TrimLeft(l, " ")) + 1
			}
		}
		return tk.Position.Line, tk.Position.Column
	}
	at := func(i int, format string, args ...any) {
		line, col := place(i)
		prob(line, col, "patch", format, args...)
		found = true
	}
	for i, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "@@") {
			break
		}
		for _, kind := range []string{"new file mode", "deleted file mode", "rename from", "rename to", "copy from", "copy to"} {
			if strings.HasPrefix(l, kind) {
				at(i, "%q: a catalog mutant changes one existing file in place; it never creates, deletes, renames or copies one", l)
			}
		}
		for _, name := range headerNames(l) {
			if name == "/dev/null" {
				what := "creates"
				if strings.HasPrefix(l, "+++ ") {
					what = "deletes"
				}
				at(i, "%q: the patch %s a file; a catalog mutant changes one existing file (%s) in place", l, what, file)
				continue
			}
			if err := workspace.CheckLocalPath(name); err != nil {
				at(i, "the header names %v", err)
			} else if file != "" && name != file {
				at(i, "the header names %q, the entry's file is %q", name, file)
			}
		}
	}
	if !found && file != "" && PatchFile(patch) != file {
		at(0, "names no file: want the headers --- a/%s and +++ b/%s", file, file)
	}
	if found {
		return
	}
	// The patch is parsed as ApplyPatch will parse it: a malformed one is
	// the catalog's problem, here, never a mutant that no longer applies
	// after the baseline has run.
	if _, err := parsePatch(patch); err != nil {
		var pe *PatchError
		if errors.As(err, &pe) && pe.Line > 0 {
			at(pe.Line-1, "malformed: %s", pe.Message)
		} else {
			at(0, "malformed: %v", err)
		}
	}
}

// headerNames returns the paths a header line of a unified diff names
// ("--- a/x", "+++ b/x", "diff --git a/x b/x"; a/ and b/ stripped).
func headerNames(l string) []string {
	var names []string
	if n, ok := strings.CutPrefix(l, "--- "); ok {
		names = []string{n}
	} else if n, ok := strings.CutPrefix(l, "+++ "); ok {
		names = []string{n}
	} else if n, ok := strings.CutPrefix(l, "diff --git "); ok {
		names = strings.Fields(n)
	}
	for i, n := range names {
		n, _, _ = strings.Cut(n, "\t")
		n = strings.TrimSpace(n)
		if s, ok := strings.CutPrefix(n, "a/"); ok {
			n = s
		} else if s, ok := strings.CutPrefix(n, "b/"); ok {
			n = s
		}
		names[i] = n
	}
	return names
}

// Equivalent is one line of mutants/equivalent.yaml: an operator mutant
// judged equivalent (no test can tell it from the original), with the
// trimmed source line it was judged on and one reason. When the line at the
// mutant's position no longer reads Source, the justification is stale and is
// not applied (the mutant is run like any other).
type Equivalent struct {
	ID     string `yaml:"id"`
	Source string `yaml:"source"`
	Reason string `yaml:"reason"`
}

// EquivalentsError is every problem of the equivalents file, one a line as
// "file:line:column: field: message" (equivalents[0].source: …), at most
// verdict.MaxProblems of them. It is a usage error: errors.Is(err,
// ErrUsage) holds.
type EquivalentsError struct{ verdict.ProblemList }

func (e *EquivalentsError) Error() string { return e.Text("the equivalent mutants") }

// Unwrap makes an EquivalentsError a usage error (exit 2).
func (e *EquivalentsError) Unwrap() error { return verdict.ErrUsage }

// equivalentsList is the equivalents file's shape (verdict.ParseList).
var equivalentsList = verdict.ListSpec{
	Name: "equivalents", Fields: []string{"id", "source", "reason"}, Key: "id",
	Empty: map[string]string{
		"id":     "empty: want the operator mutant's id (as out/mutation.json names it)",
		"source": "empty: want the trimmed source line the mutant was judged on",
		"reason": "empty: say why no test can tell the mutant from the code (the reason is required)",
	},
	Dup: "%q is listed already by equivalents[%d]",
	Check: func(field, v string) string {
		if field == "id" && strings.ContainsFunc(v, unicode.IsSpace) {
			return fmt.Sprintf("%q: a mutant's id has no white space", v)
		}
		return ""
	},
}

// LoadEquivalents reads the committed list of equivalent operator mutants; a
// missing file is an empty list. It is a YAML list whose every entry is a
// mapping of a non-empty one-line id, source (the trimmed line the mutant
// was judged on) and reason, all strings, and nothing else; no id twice.
// Problems are an *EquivalentsError naming path:line:column and the field,
// as the accepted file's are (verdict.ParseList).
func LoadEquivalents(path string) (map[string]Equivalent, error) {
	text, err := limits.Read(path, limits.Equivalents)
	if os.IsNotExist(err) {
		return map[string]Equivalent{}, nil
	}
	var le *limits.Error
	if errors.As(err, &le) {
		var bad EquivalentsError
		bad.Add(fmt.Sprintf("%s:%d:%d: %s: %s", path, le.Line, le.Column, le.Field, le.Message))
		return nil, &bad
	}
	if err != nil {
		return nil, err
	}
	entries, problems := verdict.ParseList(path, text.Src, equivalentsList)
	if len(problems) > 0 {
		var bad EquivalentsError
		bad.Add(problems...)
		return nil, &bad
	}
	out := make(map[string]Equivalent, len(entries))
	for _, e := range entries {
		out[e.Values["id"]] = Equivalent{ID: e.Values["id"], Source: e.Values["source"], Reason: e.Values["reason"]}
	}
	return out, nil
}

// Thresholds are the gate's settings read from .gremlins.yaml, so that the one
// file configures both gremlins and this gate. OperatorScore is
// unleash.threshold.efficacy, in percent. Unlike gremlins, which fails a
// score equal to its threshold, the gate passes a score ≥ OperatorScore.
type Thresholds struct {
	OperatorScore float64
}

// LoadThresholds reads .gremlins.yaml. A missing file, a missing
// unleash.threshold.efficacy, or one that is not a number in 0..100 is an
// error naming the file: a wrong path must not switch the gate off.
func LoadThresholds(path string) (Thresholds, error) {
	text, err := limits.Read(path, limits.GremlinsConfig)
	if os.IsNotExist(err) {
		return Thresholds{}, fmt.Errorf("config %s does not exist (it sets unleash.threshold.efficacy, the operator-score threshold): %w", path, os.ErrNotExist)
	}
	if err != nil {
		return Thresholds{}, LimitsError(path, err)
	}
	var cfg struct {
		Unleash struct {
			Threshold struct {
				Efficacy *float64 `yaml:"efficacy"`
			} `yaml:"threshold"`
		} `yaml:"unleash"`
	}
	if err := yaml.Unmarshal(text.Src, &cfg); err != nil {
		return Thresholds{}, fmt.Errorf("%s: %v", path, err)
	}
	e := cfg.Unleash.Threshold.Efficacy
	switch {
	case e == nil:
		return Thresholds{}, fmt.Errorf("%s: no unleash.threshold.efficacy (the operator-score threshold, 0..100)", path)
	case !(*e >= 0 && *e <= 100):
		return Thresholds{}, fmt.Errorf("%s: unleash.threshold.efficacy %v is not in 0..100", path, *e)
	}
	return Thresholds{OperatorScore: *e}, nil
}

// LimitsError names path in err, a refusal of limits.Read as
// "path:line:column: field: message".
func LimitsError(path string, err error) error {
	var le *limits.Error
	if errors.As(err, &le) {
		return fmt.Errorf("%s:%w", path, err)
	}
	return err
}

// RelTo is p relative to root, slash-separated; p itself when it is not
// under root.
func RelTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// CheckDir is nil when p is a directory, else an error naming p.
func CheckDir(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("directory %s does not exist", p)
		}
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", p)
	}
	return nil
}
