package mutants

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
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
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// LoadCatalog reads every *.yaml and *.yml file of dir (root-relative paths
// are reported relative to root), sorted by id; dir must exist. Two files of
// one id (x.yaml and x.yml) are an error. It rejects unknown fields, ids
// that are not lower-case kebab-case, an intent that is empty or not one
// line, a missing file or patch, and a patch that names another file than
// file: all authoring errors, reported with the catalog file's path.
func LoadCatalog(root, dir string) ([]CatalogEntry, error) {
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, dir)
	}
	if err := checkDir(abs); err != nil {
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
	var out []CatalogEntry
	seen := map[string]string{}
	for _, name := range names {
		e, err := loadEntry(root, name)
		if err != nil {
			return nil, err
		}
		if other, dup := seen[e.ID]; dup {
			return nil, fmt.Errorf("%s and %s: two catalog files of one id %q", other, e.Path, e.ID)
		}
		seen[e.ID] = e.Path
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func loadEntry(root, name string) (CatalogEntry, error) {
	rel := relTo(root, name)
	b, err := os.ReadFile(name)
	if err != nil {
		return CatalogEntry{}, err
	}
	var e CatalogEntry
	if err := yaml.UnmarshalWithOptions(b, &e, yaml.DisallowUnknownField()); err != nil {
		return CatalogEntry{}, fmt.Errorf("%s: %v", rel, err)
	}
	e.ID = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".yaml"), ".yml")
	e.Path = rel
	e.Intent = strings.TrimSpace(e.Intent)
	switch {
	case !idPattern.MatchString(e.ID):
		return e, fmt.Errorf("%s: id %q is not lower-case kebab-case", rel, e.ID)
	case e.Intent == "" || strings.Contains(e.Intent, "\n"):
		return e, fmt.Errorf("%s: intent must be one non-empty line", rel)
	case e.File == "":
		return e, fmt.Errorf("%s: no file", rel)
	case strings.TrimSpace(e.Patch) == "":
		return e, fmt.Errorf("%s: no patch", rel)
	}
	if err := CheckLocalPath(e.File); err != nil {
		return e, fmt.Errorf("%s: field file: %v", rel, err)
	}
	for _, name := range patchHeaderNames(e.Patch) {
		if err := CheckLocalPath(name); err != nil {
			return e, fmt.Errorf("%s: field patch: header names %v", rel, err)
		}
		if name != e.File {
			return e, fmt.Errorf("%s: field patch: the patch names %q, the entry's file is %q", rel, name, e.File)
		}
	}
	if PatchFile(e.Patch) != e.File {
		return e, fmt.Errorf("%s: field patch: the patch names %q, the entry's file is %q", rel, PatchFile(e.Patch), e.File)
	}
	return e, nil
}

// patchHeaderNames returns every path the header lines of a unified diff
// name ("--- a/x", "+++ b/x", "diff --git a/x b/x"; a/ and b/ stripped,
// /dev/null left out), up to its first hunk.
func patchHeaderNames(patch string) []string {
	var out []string
	strip := func(n string) string {
		n, _, _ = strings.Cut(n, "\t")
		n = strings.TrimSpace(n)
		if s, ok := strings.CutPrefix(n, "a/"); ok {
			return s
		}
		if s, ok := strings.CutPrefix(n, "b/"); ok {
			return s
		}
		return n
	}
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "@@") {
			break
		}
		var names []string
		if n, ok := strings.CutPrefix(l, "--- "); ok {
			names = []string{n}
		} else if n, ok := strings.CutPrefix(l, "+++ "); ok {
			names = []string{n}
		} else if n, ok := strings.CutPrefix(l, "diff --git "); ok {
			names = strings.Fields(n)
		}
		for _, n := range names {
			if n = strip(n); n != "/dev/null" {
				out = append(out, n)
			}
		}
	}
	return out
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

// LoadEquivalents reads the committed list of equivalent operator mutants; a
// missing file is an empty list. Every entry needs an id, a source line and a
// one-line reason.
func LoadEquivalents(path string) (map[string]Equivalent, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]Equivalent{}, nil
	}
	if err != nil {
		return nil, err
	}
	var list []Equivalent
	if err := yaml.UnmarshalWithOptions(b, &list, yaml.DisallowUnknownField()); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	out := make(map[string]Equivalent, len(list))
	for i, e := range list {
		if e.ID == "" || strings.TrimSpace(e.Source) == "" || strings.TrimSpace(e.Reason) == "" || strings.Contains(strings.TrimSpace(e.Reason), "\n") {
			return nil, fmt.Errorf("%s: entry %d needs id, source and a one-line reason", path, i+1)
		}
		if _, dup := out[e.ID]; dup {
			return nil, fmt.Errorf("%s: %s listed twice", path, e.ID)
		}
		out[e.ID] = e
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
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Thresholds{}, fmt.Errorf("config %s does not exist (it sets unleash.threshold.efficacy, the operator-score threshold)", path)
	}
	if err != nil {
		return Thresholds{}, err
	}
	var cfg struct {
		Unleash struct {
			Threshold struct {
				Efficacy *float64 `yaml:"efficacy"`
			} `yaml:"threshold"`
		} `yaml:"unleash"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
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

func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}
