package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/suitebin"
)

// Fixed costs paid once (issue 21 item 2). A test binary built with an
// overlay (the schemata binary, a mutant built on its own) is a function of
// the suite's inputs (hashInputs: go.mod, go.sum and every file of every
// package directory of the module that its test binary imports, with the
// go command's settings in the salt) and of the overlay's
// bytes: it is kept in the suite binaries' cache directory
// (Config.BinDir) under the hash of both, and reused while neither
// changed, as the unmutated suite's binary is (suitebin). A build whose
// inputs changed while it ran is used once and not kept. Verdicts are
// never kept here: --no-cache runs every mutant again, on binaries that
// are the same bytes a new build would give.

// binCacheVersion changes whenever the meaning of a kept binary does (v2:
// linked with suitebin.LinkFlags).
const binCacheVersion = "waitsim-mutant-bin-v2"

// KeptDir is the cache directory of kept binaries and enumerations
// ("" : none) for the suite binaries' directory binDir (Config.BinDir; ""
// : the user's cache directory): the directory mutants/ in it, whose own
// pruning (one package's binaries, by name) never meets them.
func KeptDir(binDir string) string {
	if binDir != "" {
		return filepath.Join(binDir, "mutants")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "waitsim", "suitebin", "mutants")
	}
	return ""
}

// ModuleKey is the key of the suite's inputs (InputsKey), hashed again
// from their directories: an edit since the campaign's start, or during a
// build, changes it.
func (g *Go) ModuleKey(ctx context.Context) (string, error) {
	if g.InputDirs == nil {
		return "", errors.New("the suite's inputs are not known yet")
	}
	in, err := HashDirs(g.Root, g.InputDirs)
	if err != nil {
		return "", err
	}
	return InputsKey(g.Salt, in), nil
}

// overlayKey hashes the module's key, the build's kind and the overlay's
// files (path and bytes).
func overlayKey(modKey, kind string, files map[string][]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", binCacheVersion, modKey, kind)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		s := sha256.Sum256(files[p])
		fmt.Fprintf(h, "%s\x00%x\x00", p, s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// KeptBuild builds the suite's test binary with the overlay ov of files
// into bin, or finds the one kept under the same key. It returns the
// binary's path, where it is kept ("" : nowhere) and whether it was kept
// from an earlier build. kind names
// the build in the file name ("schemata", "mutant"); keep is how many of
// that kind the directory keeps.
func (g *Go) KeptBuild(ctx context.Context, kind string, keep int, files map[string][]byte, ov, bin string) (string, string, bool, error) {
	dir := g.KeptDir
	modKey, err := g.InputsKey, error(nil) // phase 1's key, when the campaign has it
	if modKey == "" {
		modKey, err = g.ModuleKey(ctx)
	}
	if dir == "" || err != nil || os.MkdirAll(dir, 0o755) != nil {
		return bin, "", false, g.Build(ctx, ov, bin)
	}
	key := overlayKey(modKey, kind, files)
	name := g.keptName(kind)
	p := filepath.Join(dir, name+"-"+key[:32]+".test")
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		now := time.Now()
		_ = os.Chtimes(p, now, now)
		return Private(p, filepath.Join(g.Tmp, "kept")), p, true, nil
	}
	if err := g.Build(ctx, ov, bin); err != nil {
		return bin, "", false, err
	}
	if again, err := g.ModuleKey(ctx); err != nil || again != modKey {
		return bin, "", false, nil // the sources moved while it built: used once
	}
	if copyFile(bin, p) != nil {
		return bin, "", false, nil
	}
	suitebin.Prune(dir, name, p, keep, CheckedMark)
	return bin, p, false, nil
}

// Private gives the campaign its own name for the kept binary p, in the
// directory dir of its temporary directory: a hard link (or, across file
// systems, a copy), which another campaign's pruning of the cache cannot
// take away while this one still starts processes from it. p itself when
// neither can be made.
func Private(p, dir string) string {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return p
	}
	q := filepath.Join(dir, filepath.Base(p))
	if os.Link(p, q) == nil || copyFile(p, q) == nil {
		return q
	}
	return p
}

// CheckedMark is the file that says the kept schemata binary bin passed
// its run with no mutant switched on.
func CheckedMark(bin string) string { return bin + ".checked" }

// copyFile copies src to dst through a temporary file renamed into place.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return campaign.WriteAtomicMode(dst, b, suitebin.TempKeep+"*", 0o755)
}
