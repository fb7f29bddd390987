package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// A module root reached through a symbolic link (a checkout linked into
// place) is walked as the directory it leads to: its table test is found,
// under the root as given (WalkDir does not follow a link it starts at,
// and no test was found at all).
func TestFindSuiteThroughALink(t *testing.T) {
	real := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":                  "module example.com/m\n",
		"wt/waitsim_test.go":      "package wt\n\nimport (\n\t\"testing\"\n\n\t\"github.com/waitsim/waitsim\"\n)\n\nfunc TestTable(t *testing.T) { waitsim.Run(t, waitsim.Params{}) }\n",
		"wt/testdata/waitsim/a.y": "",
	} {
		p := filepath.Join(real, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	s, err := FindSuite(link, "", "")
	if err != nil || s.Root != link || s.Pkg != "./wt/" || s.Test != "TestTable" {
		t.Errorf("FindSuite through a link: %+v, %v; want ./wt/ TestTable under %s", s, err, link)
	}
}
