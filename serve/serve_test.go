package serve

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/waittool"
)

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A bad file gets exactly the problems of the scenarios loader (`waitsim run`).
func TestBadFileSameProblemsAsRun(t *testing.T) {
	p := write(t, "bad.yaml", "# protects: nothing\nname: bad\nbridge:\n  list: [-5]\nagentz: []\ncallers:\n  - name: A\n")
	_, err := Select(p, "")
	var fe *results.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("Select: got %v, want a *results.FileError", err)
	}
	opts, err := waitagents.Reference().LoadOptions()
	if err != nil {
		t.Fatal(err)
	}
	_, want := scenario.Load([]string{p}, opts)
	var wfe *results.FileError
	if !errors.As(want, &wfe) || !slices.Equal(fe.Problems, wfe.Problems) || len(fe.Problems) != 2 {
		t.Fatalf("problems differ from the loader's:\n got %q\nwant %q", fe.Problems, wfe.Problems)
	}
	if !strings.HasPrefix(fe.Problems[0].String(), p+":4:10: bridge.list[0]:") {
		t.Errorf("problem does not name file:line:column and field: %q", fe.Problems[0])
	}
	if err := Run(context.Background(), Options{File: p}); !errors.As(err, &fe) {
		t.Errorf("Run: got %v, want the file problems", err)
	}
}

const matrixFile = `# protects: nothing
name: m
matrix: {t: [1000, 2000]}
callers:
  - name: A
    args: {timeoutMs: "${t}"}
`

func TestSelectCase(t *testing.T) {
	p := write(t, "m.yaml", matrixFile)
	if _, err := Select(p, ""); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "m[t=1000], m[t=2000]") {
		t.Errorf("several cases, no --case: got %v", err)
	}
	if _, err := Select(p, "m[t=3000]"); !errors.Is(err, ErrUsage) {
		t.Errorf("unknown case: got %v", err)
	}
	c, err := Select(p, "m[t=2000]")
	if err != nil || c.ID != "m[t=2000]" {
		t.Errorf("Select(m[t=2000]) = %v, %v", c, err)
	}
}

// The wall-clock scheduler (in a synctest bubble, whose clock is fake) runs
// nothing before the first call starts it, then runs events at their times,
// same-time events in the order scheduled, and never inside At.
func TestWallScheduler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newWallScheduler(io.Discard)
		stop := make(chan struct{})
		go s.loop(stop)
		defer close(stop)
		var got []string
		at := func(ms int64, name string) {
			s.At(ms, name, func() { got = append(got, name+"@"+time.Duration(s.NowMs()*int64(time.Millisecond)).String()) })
		}
		at(100, "b")
		at(0, "a")
		at(100, "c")
		time.Sleep(time.Second)
		synctest.Wait()
		if len(got) != 0 || s.NowMs() != 0 {
			t.Fatalf("before start: ran %v, NowMs %d", got, s.NowMs())
		}
		s.start()
		time.Sleep(50 * time.Millisecond)
		s.start() // a second call does not move the origin
		s.Soon("now", func() { got = append(got, "soon") })
		time.Sleep(time.Second)
		synctest.Wait()
		want := []string{"a@0s", "soon", "b@100ms", "c@100ms"}
		if !slices.Equal(got, want) {
			t.Fatalf("ran %v, want %v", got, want)
		}
	})
}

const serveFile = `# protects: nothing
name: s
bridge:
  list: [300]
agents:
  - {id: c, state: running, messages: [one]}
changes:
  - {atMs: 1100, op: state, id: c, state: completed}
callers:
  - name: A
    args: {timeoutMs: 5000, pollIntervalMs: 1000}
`

// The server of a case, over stdio pipes in a synctest bubble (its clock is
// the tool's real clock, faked): the scenario's bridge latency and roster
// change, counted from the first tool call, give the reply the simulation
// predicts for it: done at 1600 ms (lists at 0 and 1300, each 300 ms).
func TestServeCaseOverStdio(t *testing.T) {
	p := write(t, "s.yaml", serveFile)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cin, sout := io.Pipe()
		sin, cout := io.Pipe()
		done := make(chan error, 1)
		var log strings.Builder
		go func() {
			done <- Run(ctx, Options{File: p, Stdin: sin, Stdout: sout, Log: &log, Probe: true})
			sout.Close()
		}()
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cin, Writer: cout}, nil)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second) // before the first call, scenario time stands at 0
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: waittool.ToolName, Arguments: map[string]any{"timeoutMs": 5000, "pollIntervalMs": 1000}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %v", err, res)
		}
		if d := time.Since(start); d != 1600*time.Millisecond {
			t.Errorf("resolved after %v, want 1.6s", d)
		}
		rep := res.StructuredContent.(map[string]any)
		if rep["done"] != true || len(rep["outputs"].([]any)) != 1 {
			t.Errorf("reply %v: want done with c's output", rep)
		}
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run ended with %v, want nil (a clean end)", err)
		}
		// In the bubble every wake is on time: the probe saw no stall.
		if !strings.Contains(log.String(), "\n"+StallPrefix+"0.0 ms\n") {
			t.Errorf("the log has no probe line %q:\n%s", StallPrefix, log.String())
		}
	})
}
