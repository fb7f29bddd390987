package main

import (
	"os"
	"testing"
)

// TestDefaultToolchain: waitsim asks for GOTOOLCHAIN=auto only when the user
// has not chosen a toolchain (a machine whose go env says "local" would
// otherwise refuse every build of a module that needs a newer go).
func TestDefaultToolchain(t *testing.T) {
	t.Setenv("GOTOOLCHAIN", "")
	defaultToolchain()
	if got := os.Getenv("GOTOOLCHAIN"); got != "auto" {
		t.Errorf("unset GOTOOLCHAIN became %q, want auto", got)
	}
	t.Setenv("GOTOOLCHAIN", "go1.27.3")
	defaultToolchain()
	if got := os.Getenv("GOTOOLCHAIN"); got != "go1.27.3" {
		t.Errorf("the user's GOTOOLCHAIN became %q, want it kept", got)
	}
}
