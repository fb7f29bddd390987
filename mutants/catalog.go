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

// CatalogEntry is one semantic mutant of the catalog (SPEC §5): one YAML file
// under mutants/catalog/, whose name without ".yaml" is the mutant's stable id.
//
//	intent: one line: the defect it models
//	spec:   where the defect comes from, e.g. "SPEC §5 (original review): no cap"
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

// LoadCatalog reads every *.yaml file of dir (root-relative paths are
// reported relative to root), sorted by id. It rejects unknown fields, ids
// that are not lower-case kebab-case, an intent that is empty or not one
// line, a missing file or patch, and a patch that names another file than
// file: all authoring errors, reported with the catalog file's path.
func LoadCatalog(root, dir string) ([]CatalogEntry, error) {
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, dir)
	}
	names, err := filepath.Glob(filepath.Join(abs, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []CatalogEntry
	for _, name := range names {
		e, err := loadEntry(root, name)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
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
	e.ID = strings.TrimSuffix(filepath.Base(name), ".yaml")
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
	case PatchFile(e.Patch) != e.File:
		return e, fmt.Errorf("%s: the patch names %q, the entry's file is %q", rel, PatchFile(e.Patch), e.File)
	}
	return e, nil
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

// LoadThresholds reads .gremlins.yaml; a missing file or key is 0 (no
// threshold).
func LoadThresholds(path string) (Thresholds, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Thresholds{}, nil
	}
	if err != nil {
		return Thresholds{}, err
	}
	var cfg struct {
		Unleash struct {
			Threshold struct {
				Efficacy float64 `yaml:"efficacy"`
			} `yaml:"threshold"`
		} `yaml:"unleash"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		return Thresholds{}, fmt.Errorf("%s: %v", path, err)
	}
	return Thresholds{OperatorScore: cfg.Unleash.Threshold.Efficacy}, nil
}

func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}
