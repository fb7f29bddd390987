package campaign

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// A verdict is a property of a mutant. A build, vet or run of the suite can
// also fail because of the machine the campaign runs on: no space left for
// the linker's output, a compiler killed by the OOM killer or by hand, a
// toolchain the go command cannot fetch. Such a failure says nothing about
// the mutant, and taken for "not viable" it would leave the score (an
// operator mutant that is not viable is not scored), hide a survivor, and
// stay in the cache for every later campaign. So it is a distinct outcome,
// an *EnvError: the campaign stops with ExitEnvironment, naming the step,
// the mutant and the cause, and nothing is cached or written.

// ErrEnvironment is wrapped by every error that blames the machine a
// campaign runs on rather than a mutant or the configuration (exit code
// ExitEnvironment): an *EnvError, or another campaign holding the tree
// (*LockedError).
var ErrEnvironment = errors.New("environment error")

// EnvError is a step of a campaign that failed because of the machine, not
// because of the code under test. It is never a verdict.
type EnvError struct {
	Step   string // what failed: "building the test binary", "go vet", "running the test binary", …
	Mutant string // the mutant whose step it was; "" for the baseline or the campaign's setup
	Cause  string // why the machine is to blame: the OS error, the signal, the missing toolchain
	Output string // the end of the step's output, for the reader
}

func (e *EnvError) Error() string {
	var b strings.Builder
	b.WriteString("environment error, not a verdict: ")
	b.WriteString(e.Step)
	if e.Mutant != "" {
		b.WriteString(" of mutant " + e.Mutant)
	}
	b.WriteString(" failed because of its environment, not the code: " + e.Cause)
	if out := strings.TrimSpace(e.Output); out != "" && !strings.Contains(e.Cause, out) {
		b.WriteString("\n    " + strings.ReplaceAll(Tail(out, 1200), "\n", "\n    "))
	}
	b.WriteString("\nnothing was cached or written; fix the environment (free space, the toolchain, the module's setup) and run again")
	return b.String()
}

// Unwrap makes an EnvError an ErrEnvironment.
func (e *EnvError) Unwrap() error { return ErrEnvironment }

// machineErrors are the words with which the OS says a resource of the
// machine failed (Go's strings of ENOSPC, EDQUOT, EROFS, EMFILE, ENFILE,
// ENOMEM, EAGAIN and EIO), as the go command, a compiler or a test prints
// them at the end of an error chain ("write /tmp/…: no space left on
// device").
var machineErrors = []string{
	": no space left on device",
	": disk quota exceeded",
	": read-only file system",
	": too many open files",
	": cannot allocate memory",
	": resource temporarily unavailable",
	": input/output error",
}

// toolErrors are what the go command prints when the toolchain itself
// failed: a tool ended by a signal ("…/compile: signal: killed"), a
// toolchain it could not fetch or find.
var toolErrors = []string{
	"signal: ",
	"toolchain not available",
	"go: cannot find GOROOT",
	"go: download go",
}

// diagnosticLine is a line of a compiler's or vet's diagnostics: it names a
// Go file and a line ("calc/calc.go:12:9: undefined: x"); "import cycle
// not allowed" is the one build error about the code that names none.
var diagnosticLine = regexp.MustCompile(`\.go:\d+(:\d+)?: |import cycle not allowed`)

// MachineCause is why a command that ended with err and printed out failed
// because of the machine, or "" when nothing says so: the command could not
// be started (a missing go command), it was ended by a signal that was not
// ours (a caller that killed it on purpose checks its context first), or a
// line of its output that is not a diagnostic of the code holds an error of
// the machine or of the toolchain.
func MachineCause(err error, out string) string {
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return "could not run: " + err.Error()
		}
		if ee.ExitCode() < 0 {
			return "ended by " + ee.ProcessState.String()
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if diagnosticLine.MatchString(l) {
			continue
		}
		for _, s := range append(machineErrors[:len(machineErrors):len(machineErrors)], toolErrors...) {
			if strings.Contains(l, s) {
				return shortLine(l)
			}
		}
	}
	return ""
}

// BuildFailure is what a failed build or vet of a mutant (step, e.g.
// "building the test binary") means: *NotViable (what: "does not
// compile", "fails vet") when its output holds the diagnostics of the code
// and nothing of the machine; else an *EnvError. A build that failed
// without a single diagnostic failed for a reason outside the code. err is
// the command's (nil when only the output is known).
func BuildFailure(step, what string, err error, out string) error {
	cause := MachineCause(err, out)
	if cause == "" && !diagnosticLine.MatchString(out) {
		cause = "it failed without a diagnostic of the code"
		if l := verdict.FirstLine(strings.TrimSpace(out)); l != "" {
			cause += " (" + shortLine(l) + ")"
		} else {
			cause += " and without any output"
		}
	}
	if cause != "" {
		return &EnvError{Step: step, Cause: cause, Output: out}
	}
	return &NotViable{What: what, Out: out}
}

// RunMachineCause is why a run of a test binary that exited code with
// output out failed because of the machine, or "": an error of the machine
// in its output (a test or the binary that could not write, open or
// allocate). Unlike a build's, every line counts: a test's own log line
// names its file and line too. An OS error ends its line ("write /tmp/x:
// no space left on device"); what a failing case prints of its scenario —
// a want or got, a reply, a bridge error — is quoted, so quoted text is
// left out and the error must end what is left (a scenario whose bridge
// error read "…: no space left on device" turned a kill into an
// environment error that stopped the campaign, on every run).
func RunMachineCause(code int, out string) string {
	if code == 0 {
		return ""
	}
	for _, l := range strings.Split(out, "\n") {
		rest := strings.TrimSpace(quoted.ReplaceAllString(l, `""`))
		for _, s := range machineErrors {
			if strings.HasSuffix(rest, s) {
				return shortLine(l)
			}
		}
	}
	return ""
}

// quoted matches a double-quoted string as Go's %q and JSON write it.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// ToolFailure wraps the failure of a go command the campaign needs (go env,
// go list): an *EnvError when the machine is to blame, else err with what.
func ToolFailure(what string, err error) error {
	var out string
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		out = string(ee.Stderr)
	}
	if cause := MachineCause(err, out); cause != "" {
		return &EnvError{Step: what, Cause: cause, Output: out}
	}
	if out != "" {
		return fmt.Errorf("%s: %v: %s", what, err, strings.TrimSpace(Tail(out, 1500)))
	}
	return fmt.Errorf("%s: %v", what, err)
}

// shortLine is l trimmed and cut to 300 bytes.
func shortLine(l string) string {
	l = strings.TrimSpace(l)
	if len(l) > 300 {
		return l[:300] + "…"
	}
	return l
}

// machineErrnos are the OS errors that say a resource of the machine
// failed (see machineErrors).
var machineErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EIO}

// AsEnvError is err, or an *EnvError when err is an OS error of the
// machine's (machineErrnos) that no step judged yet: the runner's own
// files (an overlay, a params file, the case order) that could not be
// written on a full disk.
func AsEnvError(err error) error {
	var errno syscall.Errno
	if err == nil || errors.Is(err, ErrEnvironment) || !errors.As(err, &errno) || !slices.Contains(machineErrnos, errno) {
		return err
	}
	return &EnvError{Step: "the runner's own file work", Cause: err.Error()}
}

// WithMutant names mutant id in err when it is an *EnvError that names none.
func WithMutant(err error, id string) error {
	var ee *EnvError
	if errors.As(err, &ee) && ee.Mutant == "" {
		ee.Mutant = id
	}
	return err
}

// NotViable is a mutant that does not compile or fails vet: a verdict,
// not a failure of the machine.
type NotViable struct {
	What string // the step and what it showed: "does not compile", "fails vet"
	Out  string // the compiler's or vet's output
}

func (e *NotViable) Error() string { return e.What + ":\n" + e.Out }

// Tail keeps the last n bytes of s (trimmed), never cut inside a
// character, with "…" where it was cut.
func Tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++ // never half a character
	}
	return "…" + s[i:]
}

// Head is the first n bytes of s (trimmed), never cut inside a character,
// with "…" where it was cut.
func Head(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
