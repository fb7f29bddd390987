package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/workspace"
)

// MutantKey is a mutant's cache key: the salt, the hash of every input of the
// suite except the overlaid files, and the overlaid files' mutated bytes.
func MutantKey(salt string, inputs map[string]string, files map[string][]byte) string {
	h := sha256.New()
	h.Write([]byte(salt))
	paths := make([]string, 0, len(inputs))
	for p := range inputs {
		if _, over := files[p]; !over {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(h, "\x00in %s %s", p, inputs[p])
	}
	over := make([]string, 0, len(files))
	for p := range files {
		over = append(over, p)
	}
	sort.Strings(over)
	for _, p := range over {
		s := sha256.Sum256(files[p])
		fmt.Fprintf(h, "\x00mut %s %x", p, s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HashDirs hashes go.mod, go.sum, vendor/modules.txt and every regular
// file under dirs (but
// hidden directories and out/): the suite's inputs (hashInputs). A
// directory that does not exist (removed since it was listed) adds nothing,
// so that its files are missing from the hashes, not an error.
func HashDirs(root string, dirs []string) (map[string]string, error) {
	inputs := map[string]string{}
	add := func(p string) error {
		sum, err := workspace.HashFile(p)
		if err != nil {
			return err
		}
		inputs[mutation.RelTo(root, p)] = sum
		return nil
	}
	for _, f := range []string{"go.mod", "go.sum", filepath.Join("vendor", "modules.txt")} {
		if err := add(filepath.Join(root, f)); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if p == dir && os.IsNotExist(err) {
				return filepath.SkipDir // removed: its files are missing from the hashes
			}
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == workspace.OutDir) {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				return add(p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

// InputsKey hashes the salt (the go command's settings, the suite, the
// options that change a verdict) and the suite's inputs: what a test
// binary of the suite is built from, but an overlay.
func InputsKey(salt string, inputs map[string]string) string {
	h := sha256.New()
	h.Write([]byte(salt))
	paths := make([]string, 0, len(inputs))
	for p := range inputs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(h, "\x00%s %s", p, inputs[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ChangedInputs lists the paths whose hashes differ between two input sets.
func ChangedInputs(a, b map[string]string) []string {
	var out []string
	for p, h := range a {
		if b[p] != h {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
