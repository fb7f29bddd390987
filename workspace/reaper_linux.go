package workspace

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// spawnReaper starts the reaper (see reaper.go): this very binary
// (/proc/self/exe, which works even when its file was replaced meanwhile)
// with reaperArg, reading a pipe whose other end only this process holds
// (close-on-exec: no child inherits it), in a process group of its own (a
// kill of the run's group does not reach it) and without a parent-death
// signal (it must outlive the run). Its environment leaves out any run's
// mark, so that no other reaper takes it for a process to kill.
func spawnReaper() error {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	token := hex.EncodeToString(b[:])
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command("/proc/self/exe", reaperArg)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, runEnv+"=") && !strings.HasPrefix(kv, reaperEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, reaperEnv+"="+token)
	cmd.Stdin = pr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return err
	}
	pr.Close()
	reaperPipe = pw
	go func() { _ = cmd.Wait() }() // reaped if it ever ends first
	return os.Setenv(runEnv, token)
}

// reap is the reaper's life: wait for the run's end (the end of the pipe
// on stdin), then kill every process marked with the run's token until
// none is left (a process being started as the scan runs is found by the
// next one), for at most 5 s.
func reap(token string) {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP) // a terminal's signals are the run's, not ours
	_, _ = io.Copy(io.Discard, os.Stdin)
	mark := []byte(runEnv + "=" + token)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if killMarked(mark) == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// killMarked sends SIGKILL to every live process but this one whose
// environment holds the entry mark ("NAME=value"), and returns how many it
// found. A process of another user cannot be read and is not ours; a
// zombie shows an empty environment and is already dead.
func killMarked(mark []byte) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !hasEntry(env, mark) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
		n++
	}
	return n
}

// hasEntry reports whether env, NUL-separated entries as in
// /proc/PID/environ, holds the entry mark.
func hasEntry(env, mark []byte) bool {
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(kv, mark) {
			return true
		}
	}
	return false
}
