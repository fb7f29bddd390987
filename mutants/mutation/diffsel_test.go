package mutation

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// TestChangedLinesRefusesOptionRef: --diff's ref goes to git diff, where
// --output=FILE used to overwrite FILE (a source file of the module, with
// the gate passing). Now a ref that starts with '-' or names no commit is
// a usage error naming --diff, no file is written and the tree is as it
// was; a commit still gives the lines changed since it.
func TestChangedLinesRefusesOptionRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", root, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	src := filepath.Join(root, "tool.go")
	orig := "package tool\n\nvar x = 1\n"
	if err := os.WriteFile(src, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "a")
	edited := "package tool\n\nvar x = 2\n"
	if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	other := filepath.Join(root, "other")
	for _, ref := range []string{"--output=tool.go", "--output=" + other, "-R", "nosuch"} {
		_, err := ChangedLines(ctx, root, ref)
		if !errors.Is(err, verdict.ErrUsage) || !strings.Contains(err.Error(), "--diff") {
			t.Errorf("--diff %q: %v; want a usage error naming --diff", ref, err)
		}
	}
	if b, _ := os.ReadFile(src); string(b) != edited {
		t.Errorf("tool.go was overwritten: %q", b)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("%s was written", other)
	}
	ch, err := ChangedLines(ctx, root, "HEAD")
	if err != nil || !ch.Touches("tool.go", []int{3}) || ch.Touches("tool.go", []int{1}) {
		t.Errorf("HEAD: %v, %v; want line 3 of tool.go", ch, err)
	}
}
