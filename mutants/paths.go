package mutants

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// CheckLocalPath is nil when p, a path read from a file (a catalog entry's
// file:, a patch header, a result's file), names a file inside the module:
// relative, written with forward slashes, already clean (no "." or ".."
// element, no doubled or trailing slash) and not empty. Anything else is
// refused before it is joined to a directory, so that no path from a file
// can lead a run to read or write outside where it belongs (issue 11 item 1).
func CheckLocalPath(p string) error {
	switch {
	case p == "" || p == ".":
		return fmt.Errorf("path %q names no file", p)
	case strings.ContainsRune(p, '\\') || strings.ContainsRune(p, 0):
		return fmt.Errorf("path %q: want forward slashes only", p)
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return fmt.Errorf("path %q is absolute: want a path relative to the module root", p)
	case path.Clean(p) != p || !filepath.IsLocal(filepath.FromSlash(p)):
		return fmt.Errorf("path %q leaves the module or is not clean (want it as path.Clean writes it, with no ..)", p)
	}
	return nil
}

// checkInPackage is nil when p is a local path (CheckLocalPath) of a file
// directly inside the package directory pkg ("./waittool/" or "waittool").
func checkInPackage(p, pkg string) error {
	if err := CheckLocalPath(p); err != nil {
		return err
	}
	dir := path.Clean(strings.TrimPrefix(filepath.ToSlash(pkg), "./"))
	if path.Dir(p) != dir {
		return fmt.Errorf("path %q is not a file of the target package %s", p, pkg)
	}
	return nil
}

// within joins rel (a local path, CheckLocalPath) to dir and checks that the
// result stays inside dir: the last guard before a file is written.
func within(dir, rel string) (string, error) {
	if err := CheckLocalPath(rel); err != nil {
		return "", err
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	r, err := filepath.Rel(dir, p)
	if err != nil || !filepath.IsLocal(r) {
		return "", fmt.Errorf("path %q leaves %s", rel, dir)
	}
	return p, nil
}
