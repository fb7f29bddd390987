package campaign

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestBuildFailureBlames: which failed builds are the mutant's (not
// viable) and which the machine's, from what the go command prints.
func TestBuildFailureBlames(t *testing.T) {
	for _, c := range []struct {
		name, out string
		machine   bool
	}{
		{"compile error", "# example.com/calc\ncalc/calc.go:12:9: undefined: x", false},
		{"vet", "# example.com/calc\n# [example.com/calc]\ncalc/calc.go:32:9: fmt.Sprintf format %d has arg v of wrong type string", false},
		{"import cycle", "package example.com/calc\n\timports example.com/calc/x\n\timports example.com/calc: import cycle not allowed", false},
		// A diagnostic may quote anything the mutated source holds.
		{"quoted in a diagnostic", `calc/calc.go:3:2: invalid operation: "x: no space left on device" + 1 (mismatched types untyped string and untyped int)`, false},
		{"link on a full disk", "# example.com/calc.test\n/usr/local/go/pkg/tool/linux_amd64/link: flushing $WORK/b001/exe/a.out: write /tmp/go-build1/b001/exe/a.out: no space left on device", true},
		{"compile on a full disk beside a diagnostic", "calc/calc.go:12:9: undefined: x\ncompile: writing output: write $WORK/b001/_pkg_.a: no space left on device", true},
		{"compiler killed", "# example.com/calc\n/usr/local/go/pkg/tool/linux_amd64/compile: signal: killed", true},
		{"quota", "go: creating work dir: mkdir /tmp/go-build2: disk quota exceeded", true},
		{"no toolchain", "go: downloading go1.99.0 (linux/amd64)\ngo: download go1.99.0 for linux/amd64: toolchain not available", true},
		{"no output", "", true},
		{"no diagnostic", "go: updates to go.mod needed; to update it:\n\tgo mod tidy", true},
	} {
		err := BuildFailure("building", "does not compile", nil, c.out)
		var ee *EnvError
		var nv *NotViable
		switch {
		case c.machine && !errors.As(err, &ee):
			t.Errorf("%s: %v, want the machine blamed", c.name, err)
		case !c.machine && !errors.As(err, &nv):
			t.Errorf("%s: %v, want not viable", c.name, err)
		}
	}
	if RunMachineCause(1, "    table_test.go:40: write /tmp/x: no space left on device") == "" {
		t.Error("a test that could not write: not blamed on the machine")
	}
	if RunMachineCause(1, `    table_test.go:40: call A#1: bridgeError: want "ok", got "disk full"`) != "" {
		t.Error("an ordinary failure blamed on the machine")
	}
	// A scenario's text in a failing case's lines is no error of the
	// machine: quoted (a want, a got, a reply), or not ending the line.
	for _, l := range []string{
		`    table_test.go:40: call A#1: bridgeError: want "write /var/lib/agents/state: no space left on device", got "write /var/lib/agents/state: no space left on device!"`,
		`        12000 ms caller:A   call 1: reply {"bridgeError":"write /x: no space left on device","done":true}`,
		`        expectation: x: no space left on device#1: resolved at 5 ms, want 4 ms`,
	} {
		if c := RunMachineCause(1, l); c != "" {
			t.Errorf("a case's own text blamed on the machine: %q", l)
		}
	}
	if RunMachineCause(1, "fatal error: runtime: cannot allocate memory\n") == "" {
		t.Error("a binary that could not allocate: not blamed on the machine")
	}
	if RunMachineCause(0, "x: no space left on device") != "" {
		t.Error("a run that passed blamed on the machine")
	}
	// The runner's own files (an overlay, a params file) on a full disk.
	full := fmt.Errorf("overlay: %w", &os.PathError{Op: "write", Path: "/tmp/waitsim-mutate-1/w0/overlay.json", Err: syscall.ENOSPC})
	if err := AsEnvError(full); !errors.Is(err, ErrEnvironment) || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("a write of the runner's own on a full disk: %v", err)
	}
	if err := AsEnvError(os.ErrNotExist); errors.Is(err, ErrEnvironment) {
		t.Errorf("a missing file blamed on the machine: %v", err)
	}
}
