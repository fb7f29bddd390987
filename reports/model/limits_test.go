package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/waitsim/waitsim/results"
)

// TestInputsThroughLimits (issue 20 item 2): the reports read their JSON
// inputs through the limits every file waitsim reads goes through: a FIFO
// is refused by name at once (before: LoadScenarios blocked on one until
// something wrote to it), nesting beyond the results file's limit is an
// *InputError at its line and column, and a UTF-8 byte order mark is read
// as nothing (before: "invalid character 'ï'").
func TestInputsThroughLimits(t *testing.T) {
	dir := t.TempDir()
	bom := filepath.Join(dir, "bom.json")
	if err := os.WriteFile(bom, fmt.Appendf(nil, "\ufeff{\"version\": %d}\n", results.ResultVersion), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScenarios(bom); err != nil {
		t.Errorf("a BOM: %v", err)
	}
	deep := filepath.Join(dir, "deep.json")
	if err := os.WriteFile(deep, []byte("{\"version\": 1,\n \"cases\": "+strings.Repeat("[", 100)+strings.Repeat("]", 100)+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ie *InputError
	if _, err := LoadScenarios(deep); !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), deep+":2:42: json: nested more than 32 levels deep") {
		t.Errorf("deep: %v", err)
	}
	fifo := filepath.Join(dir, "scenarios.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// Called directly (reports starts no goroutine, not even in a test):
	// before, this call blocked until something wrote to the FIFO.
	_, err := LoadScenarios(fifo)
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), fifo+":1:1: file: is a named pipe (FIFO), not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}
}
