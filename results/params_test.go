package results

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadParamsAndRunBounded (issue 20 item 2): the params and results
// files are read through the limits every file waitsim reads goes through:
// refused by what they are when not regular files (before: ReadParams on a
// FIFO hung until something wrote to it), checked for depth with
// file:line:column before the JSON parser sees them (before: "exceeded max
// depth", no place), and a UTF-8 byte order mark is read as nothing
// (before: "invalid character 'ï'").
func TestReadParamsAndRunBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	readParams := func(file string) (Params, error) {
		t.Setenv(ParamsEnv, file)
		p, _, err := ReadParams()
		return p, err
	}
	bom := write("bom.json", "\ufeff{\"version\": 1, \"cases\": [\"a\"]}\n")
	if p, err := readParams(bom); err != nil || len(p.Cases) != 1 {
		t.Errorf("params with a BOM: %v, %v", p, err)
	}
	run := write("run.json", "\ufeff{\"version\": 1}\n")
	if _, err := ReadRun(run); err != nil {
		t.Errorf("results with a BOM: %v", err)
	}
	deep := write("deep.json", "{\"version\": 1,\n \"cases\": "+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+"}\n")
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	_, err := readParams(deep)
	el := time.Since(start)
	runtime.ReadMemStats(&m1)
	t.Logf("20,000 levels: %v, %d KB allocated: %v", el.Round(time.Microsecond), (m1.TotalAlloc-m0.TotalAlloc)>>10, err)
	if want := deep + ":2:18: json: nested more than 8 levels deep"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s…", err, want)
	}
	if _, err := ReadRun(deep); err == nil || !strings.HasPrefix(err.Error(), deep+":2:") || !strings.Contains(err.Error(), "json: nested more than 32 levels deep") {
		t.Errorf("results: got %v", err)
	}

	fifo := filepath.Join(dir, "params.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	t.Setenv(ParamsEnv, fifo)
	done := make(chan error, 1)
	go func() { _, _, err := ReadParams(); done <- err }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("ReadParams hung on a FIFO")
	}
	if want := fifo + ":1:1: file: is a named pipe (FIFO), not a regular file"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s…", err, want)
	}
	if _, err := ReadRun(fifo); err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file") {
		t.Errorf("ReadRun of a FIFO: %v", err)
	}
}

// A params file that is not one JSON object of Params says where: a file
// cut short, a value of the wrong type (and its field), and anything after
// the object (which was read as if it were not there).
func TestReadParamsNamesPlace(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, src, want string }{
		{"cut.json", "{\"version\":1,\n\"paths\":[\"a\"]", "cut.json:2:14"},
		{"type.json", "{\"version\":1,\n\"repeat\":\"x\"}", "type.json:2:12: repeat"},
		{"trailing.json", "{\"version\":1}\n{\"garbage", "trailing.json:2:1: not a waitsim params file: more after its JSON object"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(ParamsEnv, p)
		if _, _, err := ReadParams(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte("{\"version\":1}\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ParamsEnv, ok)
	if _, _, err := ReadParams(); err != nil {
		t.Errorf("a params file with white space after it: %v", err)
	}
}
