package campaign

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/waitsim/waitsim/workspace"
)

// CheckInPackage is nil when p is a local path (CheckLocalPath) of a file
// directly inside the package directory pkg ("./waittool/" or "waittool").
func CheckInPackage(p, pkg string) error {
	if err := workspace.CheckLocalPath(p); err != nil {
		return err
	}
	dir := pkgDir(pkg)
	if path.Dir(p) != dir {
		return fmt.Errorf("path %q is not a file of the target package %s", p, pkg)
	}
	return nil
}

// SamePackage reports whether the package paths a and b ("./dir/",
// relative to the module root) name the same directory.
func SamePackage(a, b string) bool { return pkgDir(a) == pkgDir(b) }

// pkgDir is the package path pkg ("./waittool/" or "waittool") as a clean
// slash-separated directory relative to the module root ("waittool", ".").
func pkgDir(pkg string) string { return path.Clean(strings.TrimPrefix(filepath.ToSlash(pkg), "./")) }

// InSubpackage reports whether p (a local path, CheckLocalPath) lies in a
// directory below the package directory pkg: a package of its own (e.g.
// packs/waitagents/bridge under ./packs/waitagents/), whose files gremlins,
// walking the target's tree, enumerates too. They are not the target's.
func InSubpackage(p, pkg string) bool {
	if workspace.CheckLocalPath(p) != nil {
		return false
	}
	dir := pkgDir(pkg)
	d := path.Dir(p)
	return d != dir && (dir == "." || strings.HasPrefix(d, dir+"/"))
}

// Within joins rel (a local path, CheckLocalPath) to dir and checks that the
// result stays inside dir: the last guard before a file is written.
func Within(dir, rel string) (string, error) {
	if err := workspace.CheckLocalPath(rel); err != nil {
		return "", err
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	r, err := filepath.Rel(dir, p)
	if err != nil || !filepath.IsLocal(r) {
		return "", fmt.Errorf("path %q leaves %s", rel, dir)
	}
	return p, nil
}
