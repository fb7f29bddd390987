package workspace

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
