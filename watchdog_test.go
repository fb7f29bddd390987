package waitsim

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/sim"
)

// spinIn is the input of spinTool: spin makes it loop without ever
// blocking, a world that never reaches quiescence.
type spinIn struct {
	Spin bool `json:"spin,omitempty"`
}

func spinTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "spin"}, func(ctx context.Context, _ *mcp.CallToolRequest, in spinIn) (*mcp.CallToolResult, map[string]any, error) {
		for in.Spin {
			runtime.Gosched()
		}
		return &mcp.CallToolResult{}, map[string]any{}, nil
	})
}

// When the wall-clock watchdog ends a table's process (a tool that spins
// without ever blocking), the results file still holds the cases that ran,
// the case that stopped the table as an ERROR that says what the watchdog
// found and how many cases did not run; before, the process ended with no
// results, and `waitsim run` said only that the table did not run.
func TestWatchdogStopsTable(t *testing.T) {
	dir := os.Getenv("WAITSIM_TEST_SPIN_DIR")
	if dir != "" {
		Run(t, Params{Tool: spinTool, Dir: dir})
		return
	}
	dir = t.TempDir()
	writeFile(t, dir, "a.yaml", "# protects: nothing\n- name: quick\n  callers:\n    - name: A\n"+
		"- name: spins\n  callers:\n    - {name: A, args: {spin: true}}\n"+
		"- name: never-run\n  callers:\n    - name: A\n")
	out := filepath.Join(t.TempDir(), "results.json")
	f := filepath.Join(t.TempDir(), "params.json")
	if err := results.WriteParams(f, results.Params{Results: out, WatchdogMs: 500}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestWatchdogStopsTable$", "-test.count=1", "-test.timeout=30s")
	cmd.Env = append(os.Environ(), "WAITSIM_TEST_SPIN_DIR="+dir, results.ParamsEnv+"="+f)
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != sim.WatchdogExit {
		t.Fatalf("the child: %v, want exit %d\n%.3000s", err, sim.WatchdogExit, b)
	}
	rr, err := results.ReadRun(out)
	if err != nil {
		t.Fatalf("no results after the watchdog: %v\n%.3000s", err, b)
	}
	var got []string
	for _, c := range rr.Cases {
		got = append(got, c.ID+" "+c.Verdict)
	}
	if strings.Join(got, ", ") != "quick "+results.VerdictPass+", spins "+results.VerdictError || rr.Errors != 1 {
		t.Fatalf("cases %v (errors %d); want quick PASS, then spins ERROR", got, rr.Errors)
	}
	e := rr.Cases[1].Error
	for _, want := range []string{"1 case(s) after it did not run", `world "spins" did not reach quiescence within 500ms`, "goroutine "} {
		if !strings.Contains(e, want) {
			t.Errorf("the stopped case's error lacks %q:\n%.2000s", want, e)
		}
	}
	// Its re-run line is the one a case that ran gets, for its own name.
	if want := strings.ReplaceAll(rr.Cases[0].Repro, "quick", "spins"); rr.Cases[1].Repro != want || want == "" {
		t.Errorf("the stopped case's re-run line %q, want %q", rr.Cases[1].Repro, want)
	}
}
