package mutants

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/results"
)

// shellArgs runs line with sh in a fresh directory, the go command replaced
// by a function that prints its arguments, and returns the arguments go
// got and whether anything else happened (a file appeared).
func shellArgs(t *testing.T, line string) (args []string, files []string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	cmd := exec.Command(sh, "-c", `go() { printf '%s\0' "$@"; }; `+line)
	cmd.Dir = dir
	out, _ := cmd.Output()
	if s := strings.TrimSuffix(string(out), "\x00"); s != "" {
		args = strings.Split(s, "\x00")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		files = append(files, filepath.Join(dir, e.Name()))
	}
	return args, files
}

// TestReproShellQuoted: the command printed to reproduce a failed baseline
// (Summary's "repro:" line, mutation.json's baseline repro) gives go
// exactly the suite's package and -run pattern when pasted into a shell,
// whatever the pattern holds: a quote in it cannot end the quoting and run
// a command of its own.
func TestReproShellQuoted(t *testing.T) {
	for _, c := range []struct{ pkg, run string }{
		{"./scenarios/", "^TestTable$"},
		{"./scenarios/", `^TestTable$/^x\[p=x'; touch pwned; echo '\]$`},
		{"./scenarios/", `^TestTable$/^it's$`},
		{"./my pkg/", "a b$(touch pwned)`touch pwned`"},
		{"./scenarios/", ""},
	} {
		r := &runner{suite: verdict.Suite{Pkg: c.pkg, Run: c.run}}
		line := r.repro()
		want := []string{"test", c.pkg}
		if c.run != "" {
			want = append(want, "-run", c.run)
		}
		args, files := shellArgs(t, line)
		if !slices.Equal(args, want) || len(files) > 0 {
			t.Errorf("%s\n  pasted, go gets %q (want %q) and the shell made %q", line, args, want, files)
		}
	}
	if got := (&runner{suite: verdict.Suite{Pkg: "./scenarios/", Run: "^TestTable$"}}).repro(); got != "go test ./scenarios/ -run '^TestTable$'" {
		t.Errorf("the plain repro line changed: %s", got)
	}
}

// TestShellCommandRoundTrip: whatever the words hold, the line ShellCommand
// makes gives a shell back exactly those words, and does nothing else.
func TestShellCommandRoundTrip(t *testing.T) {
	words := []string{"test", "", "'", `"`, `\`, "$HOME", "`id`", "$(touch pwned)", "*", "~", "!", "a b", "a\tb", "line\nbreak",
		"x'; touch pwned; echo '", "ünïcödé", "\u200b", "a=b", "-run=^x$", "#comment", ";", "&", "|", "<", ">", "(", ")", "{a,b}", "[ab]"}
	line := results.Command(append([]string{"go"}, words...)...)
	args, files := shellArgs(t, line)
	if !slices.Equal(args, words) || len(files) > 0 {
		t.Errorf("%s\n  gives go %q (want %q) and made %q", line, args, words, files)
	}
	if got := results.Command("a=b", "c"); got != "'a=b' c" {
		t.Errorf("a first word with = is an assignment unless quoted: %s", got)
	}
}
