package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ownerFile is the file in a run directory that names the process owning it.
const ownerFile = ".waitsim-owner"

// MakeRunDir creates a private temporary directory prefix+"<random>" in the
// system temp dir, with a file naming its owner (this process's id and,
// on Linux, its start time). First it removes the directories of the same
// prefix that an earlier run left behind when it was killed (SIGKILL leaves
// no chance to clean up): only those whose owner file names a process that
// is gone. A directory without an owner file, or whose owner still runs, is
// never touched.
func MakeRunDir(prefix string) (string, error) {
	RemoveStaleRunDirs(os.TempDir(), prefix)
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if err := Own(dir); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// Own writes dir's owner file naming this process (its id and, on Linux,
// its start time): while the process lives, RemoveStaleRunDirs leaves dir
// alone.
func Own(dir string) error {
	me := os.Getpid()
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(fmt.Sprintf("%d %s\n", me, processStart(me))), 0o644)
}

// RemoveStaleRunDirs removes the directories prefix* of tmp whose owner
// process is gone (see MakeRunDir) and returns the paths removed.
func RemoveStaleRunDirs(tmp, prefix string) []string {
	m, _ := filepath.Glob(filepath.Join(tmp, prefix+"*"))
	var removed []string
	for _, d := range m {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 0 {
			continue
		}
		start := ""
		if len(f) > 1 {
			start = f[1]
		}
		if processGone(pid, start) {
			if os.RemoveAll(d) == nil {
				removed = append(removed, d)
			}
		}
	}
	return removed
}

// processGone is true when no process pid runs, or one runs that started at
// another time than start (the id was reused); start "" compares nothing.
func processGone(pid int, start string) bool {
	if !processAlive(pid) || processZombie(pid) {
		return true
	}
	if start != "" {
		if now := processStart(pid); now != "" && now != start {
			return true
		}
	}
	return false
}

// processStart is the start time of process pid in clock ticks since boot
// (field 22 of /proc/pid/stat), or "" where there is no /proc.
func processStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	// After the command come state (field 3) … starttime (field 22).
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// processZombie is true when process pid has exited but was not yet reaped.
func processZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	return i >= 0 && len(f) > 0 && f[0] == "Z"
}
