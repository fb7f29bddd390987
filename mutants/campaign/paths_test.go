package campaign

import (
	"testing"

	"github.com/waitsim/waitsim/workspace"
)

// TestCheckLocalPath: the paths a file may name.
func TestCheckLocalPath(t *testing.T) {
	for _, p := range []string{"waittool/tool.go", "a.go", "a/b/c.go"} {
		if err := workspace.CheckLocalPath(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
	for _, p := range []string{"", "/etc/passwd", "../x.go", "a/../../x.go", "a/./b.go", "a//b.go", "a\\b.go", "a/", "..", "."} {
		if err := workspace.CheckLocalPath(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
	if err := CheckInPackage("waittool/tool.go", "./waittool/"); err != nil {
		t.Error(err)
	}
	if err := CheckInPackage("sim/clock.go", "./waittool/"); err == nil {
		t.Error("a file of another package accepted")
	}
	if err := CheckInPackage("packs/waitagents/bridge/bridge.go", "./packs/waitagents/"); err == nil {
		t.Error("a file of a subpackage accepted")
	}
	for _, c := range []struct {
		p, pkg string
		want   bool
	}{
		{"packs/waitagents/bridge/bridge.go", "./packs/waitagents/", true},
		{"packs/waitagents/model.go", "./packs/waitagents/", false},
		{"sim/clock.go", "./waittool/", false},
		{"waittoolx/a.go", "./waittool/", false},
		{"../waittool/x/a.go", "./waittool/", false},
	} {
		if got := InSubpackage(c.p, c.pkg); got != c.want {
			t.Errorf("InSubpackage(%q, %q) = %v, want %v", c.p, c.pkg, got, c.want)
		}
	}
}

func TestSamePackage(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"./waittool/", "./waittool", true},
		{"waittool", "./waittool/", true},
		{"./scenarios/", "./waittool/", false},
		{"./packs/waitagents/", "./packs/waitagents/bridge/", false},
		{".", "./", true},
	} {
		if got := SamePackage(c.a, c.b); got != c.want {
			t.Errorf("SamePackage(%q, %q) = %t, want %t", c.a, c.b, got, c.want)
		}
	}
}
