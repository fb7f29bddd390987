package waitsim

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/check"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
	"github.com/waitsim/waitsim/serve"
)

// registerEcho registers "echo", a tool of a user's module as the door sees
// it: it replies with its text.
func registerEcho(s *mcp.Server) {
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, map[string]any, error) {
		return nil, map[string]any{"echo": a.Text}, nil
	})
}

const echoFile = `# protects: nothing
name: e
matrix: {n: [1, 2]}
callers:
  - name: A
    tool: echo
    args: {text: "t${n}"}
`

// serveResult runs the door in serve mode with sp under a nested test and
// returns whether the test passed and the results file.
func serveResult(t *testing.T, p Params, sp results.ServeParams) (bool, results.RunResult) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results.json")
	withParams(t, results.Params{Results: out, Serve: &sp})
	passed := nested(t, nil, func(t *testing.T) { Run(t, p) })
	run, err := results.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	return passed, run
}

// Serving a case that cannot be served is a usage error in the results
// file, the test failed and nothing served: a file with problems (every
// problem a record, as `waitsim run` gets them), a missing or ambiguous
// case id (the file's cases listed), a bad address, a pack that cannot
// serve.
func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "e.yaml", echoFile)
	bad := writeFile(t, dir, "bad.yaml", "# protects: nothing\nname: bad\nhorizonMs: -5\ncallers:\n  - name: A\n    tool: echo\n    startMs: -1\n")
	echo := Params{Tool: registerEcho}
	for _, tc := range []struct {
		name string
		p    Params
		sp   results.ServeParams
		want string
	}{
		{"ambiguous", echo, results.ServeParams{File: good}, "holds 2 cases; choose one with --case: e[n=1], e[n=2]"},
		{"missing", echo, results.ServeParams{File: good, Case: "e[n=3]"}, `has no case "e[n=3]"; its cases: e[n=1], e[n=2]`},
		{"address", echo, results.ServeParams{File: good, Case: "e[n=1]", HTTP: "127.0.0.1"}, `--http "127.0.0.1": want HOST:PORT`},
		{"pack", Params{Pack: &fakePack{}}, results.ServeParams{File: good, Case: "e[n=1]"}, "the pack fake cannot serve"},
		{"problems", echo, results.ServeParams{File: bad}, "2 problem(s) in the scenario file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			passed, run := serveResult(t, tc.p, tc.sp)
			if passed || run.Serve == nil || run.Serve.Outcome != results.ServeUsage || !strings.Contains(run.Serve.Error, tc.want) {
				t.Fatalf("passed %v, serve %+v; want a usage error saying %q", passed, run.Serve, tc.want)
			}
			if tc.name != "problems" {
				return
			}
			opts, err := check.Generic{Register: registerEcho}.LoadOptions()
			if err != nil {
				t.Fatal(err)
			}
			_, want := scenario.Load([]string{bad}, opts)
			var fe *results.FileError
			if !errors.As(want, &fe) || len(run.Problems) != 2 || !slices.Equal(run.Problems, fe.Problems) {
				t.Errorf("problems %+v, want the loader's %+v", run.Problems, want)
			}
		})
	}
}

// The door serves a case of a user's tools over stdio in the test binary
// (a child process here, as `waitsim serve` starts it): the client's stdio
// on file descriptors 3 and 4, never the binary's own stdout; a real call
// gets the tool's reply; the client's end stops it (outcome stopped, the
// test passed). Over HTTP it logs its URL on stderr, and SIGTERM stops it.
func TestServeChild(t *testing.T) {
	if os.Getenv("WAITSIM_TEST_SERVE_CHILD") == "1" {
		Run(t, Params{Tool: registerEcho})
		return
	}
	file := writeFile(t, t.TempDir(), "e.yaml", echoFile)
	child := func(t *testing.T, sp results.ServeParams) (*exec.Cmd, string) {
		t.Helper()
		dir := t.TempDir()
		pf, out := filepath.Join(dir, "params.json"), filepath.Join(dir, "results.json")
		if err := results.WriteParams(pf, results.Params{Results: out, Serve: &sp}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		t.Cleanup(cancel)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestServeChild$", "-test.count=1", "-test.timeout=0")
		cmd.Env = append(os.Environ(), "WAITSIM_TEST_SERVE_CHILD=1", results.ParamsEnv+"="+pf)
		return cmd, out
	}
	outcome := func(t *testing.T, out string) *results.ServeResult {
		t.Helper()
		run, err := results.ReadRun(out)
		if err != nil || run.Serve == nil {
			t.Fatalf("results: %v %+v", err, run)
		}
		return run.Serve
	}
	call := func(t *testing.T, cs *mcp.ClientSession, text string) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
		if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"echo":"`+text+`"}` {
			t.Errorf("reply %s", b)
		}
	}

	t.Run("stdio", func(t *testing.T) {
		cmd, out := child(t, results.ServeParams{File: file, Case: "e[n=2]", StdinFD: 3, StdoutFD: 4})
		cin, sout, _ := os.Pipe() // the server's stdout: the client reads cin
		sin, cout, _ := os.Pipe() // the server's stdin: the client writes cout
		cmd.ExtraFiles = []*os.File{sin, sout}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sin.Close()
		sout.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: cin, Writer: cout}, nil)
		if err != nil {
			t.Fatal(err)
		}
		call(t, cs, "over stdio")
		cs.Close() // closes cout: the server reads EOF
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the child: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		if s := outcome(t, out); s.Outcome != results.ServeStopped || s.Case != "e[n=2]" {
			t.Errorf("serve result %+v, want stopped, case e[n=2]", s)
		}
		if strings.Contains(stdout.String(), "jsonrpc") {
			t.Errorf("MCP messages on the test binary's stdout:\n%s", stdout.String())
		}
		if !strings.Contains(stderr.String(), "waitsim serve: case e[n=2] over stdio\n") || !strings.Contains(stderr.String(), "waitsim serve: stopped\n") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
	})

	t.Run("http", func(t *testing.T) {
		cmd, out := child(t, results.ServeParams{File: file, Case: "e[n=1]", HTTP: "127.0.0.1:0"})
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(pipe)
		url := ""
		for url == "" && sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), serve.ListeningPrefix); ok {
				url = strings.Fields(u)[0]
			}
		}
		if url == "" {
			cmd.Process.Kill()
			t.Fatalf("no %q line: %v", serve.ListeningPrefix, cmd.Wait())
		}
		go func() {
			for sc.Scan() {
			}
		}()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		call(t, cs, "over HTTP")
		cs.Close()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the child after SIGTERM: %v", err)
		}
		if s := outcome(t, out); s.Outcome != results.ServeStopped || s.Case != "e[n=1]" {
			t.Errorf("serve result %+v, want stopped, case e[n=1]", s)
		}
	})
}
