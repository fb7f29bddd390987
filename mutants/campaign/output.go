package campaign

import (
	"fmt"
	"os"
	"path/filepath"
)

// CheckOutputFile is nil when a file can be written at path, as
// writeAtomic writes one (a temporary file in its directory, renamed over
// it): path is not a directory, and its directory is one this process can
// create a file in — or, when that directory does not exist yet, the
// nearest one above it that exists is (the missing ones are made when the
// file is written). Otherwise the error names flag, path and the directory
// at fault. A campaign checks its outputs with it before it starts, so that
// a read-only or non-directory out/ is not found after the whole campaign
// ran.
func CheckOutputFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %s is a directory: want the path of a file", flag, path)
	}
	return checkDirWritable(flag, path, filepath.Dir(path))
}

// CheckOutputDir is CheckOutputFile for a directory the campaign writes
// files into (--suggest-dir).
func CheckOutputDir(flag, dir string) error {
	return checkDirWritable(flag, dir, dir)
}

// checkDirWritable checks that a file can be made in dir, or in the nearest
// directory above it that exists when dir does not (see CheckOutputFile),
// by making one and removing it: only that answers for read-only mounts,
// ACLs and the like. path is what flag names, for the error.
func checkDirWritable(flag, path, dir string) error {
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
			}
			break
		}
		// Missing, or under something that is not a directory: look
		// above (a file there is named as such).
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("%s %s: %v", flag, path, err)
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".waitsim-write-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot create a file in %s: %v", flag, path, dir, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("%s %s: cannot remove a file from %s: %v", flag, path, dir, err)
	}
	return nil
}

// WriteAtomic writes b to path through a temporary file in its directory,
// named by pattern (os.CreateTemp), renamed over path once complete.
func WriteAtomic(path string, b []byte, pattern string) error {
	return WriteAtomicMode(path, b, pattern, 0o644)
}

// WriteAtomicMode is WriteAtomic with the file's permissions (0o755 for a
// kept test binary).
func WriteAtomicMode(path string, b []byte, pattern string, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(b)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name()) // not left behind, also when path cannot be replaced (a directory)
	}
	return err
}
