package workspace

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// doorPath is the import path of the door every table runs through.
const doorPath = "github.com/waitsim/waitsim"

// Suite is the test that runs a module's scenario table: a test function
// that calls waitsim.Run, in a package of the module.
type Suite struct {
	Root string // the module root (the directory of go.mod)
	Pkg  string // the package, "./dir/" relative to Root ("./" for the root)
	Test string // the test function, e.g. TestTable
}

// Dir is the Suite package's directory (where go test runs its binary).
func (s Suite) Dir() string {
	return filepath.Join(s.Root, filepath.FromSlash(strings.TrimPrefix(s.Pkg, "./")))
}

// RunPattern is the -test.run pattern that selects the suite's test.
func (s Suite) RunPattern() string { return "^" + s.Test + "$" }

// ModuleRoot returns the directory of the main module's go.mod (the go
// command's view from the working directory).
func ModuleRoot() (string, error) { return ModuleRootOf("") }

// ModuleRootOf returns the directory of the go.mod of the module that holds
// dir (the go command's view from dir; "" is the working directory).
func ModuleRootOf(dir string) (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a Go module (no go.mod found): run waitsim inside the module whose tool it tests (waitsim init sets one up)")
	}
	return filepath.Dir(gomod), nil
}

// FindSuite finds the module's table test: the test functions that call
// waitsim.Run (found by reading the module's _test.go files, nested modules
// left out). pkg and test, when not "", pick among them; with neither, there
// must be exactly one.
func FindSuite(root, pkg, test string) (Suite, error) {
	var found []Suite
	// A root reached through a symbolic link is walked as the directory it
	// leads to (WalkDir does not follow a link it starts at, and found no
	// test at all), its paths still written under root.
	walk := root
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		walk = root + string(filepath.Separator)
	}
	err := filepath.WalkDir(walk, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory holds no Suite we can run
		}
		if d.IsDir() {
			name := d.Name()
			if path != walk && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules" || name == OutDir) {
				return filepath.SkipDir
			}
			if path != walk {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, fn := range doorTests(path) {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			p := "./"
			if rel != "." {
				p = "./" + filepath.ToSlash(rel) + "/"
			}
			found = append(found, Suite{Root: root, Pkg: p, Test: fn})
		}
		return nil
	})
	if err != nil {
		return Suite{}, err
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].Pkg != found[j].Pkg {
			return found[i].Pkg < found[j].Pkg
		}
		return found[i].Test < found[j].Test
	})
	var picked []Suite
	for _, s := range found {
		if (pkg == "" || samePkg(s.Pkg, pkg)) && (test == "" || s.Test == test) {
			picked = append(picked, s)
		}
	}
	switch {
	case len(picked) == 1:
		return picked[0], nil
	case len(found) == 0:
		return Suite{}, fmt.Errorf("no test of this module calls waitsim.Run (%s): `waitsim init` writes one", root)
	case len(picked) == 0:
		return Suite{}, fmt.Errorf("no test calls waitsim.Run in package %q with name %q; the tests that do: %s", pkg, test, listSuites(found))
	}
	return Suite{}, fmt.Errorf("several tests call waitsim.Run (%s): choose one with --pkg and --test", listSuites(picked))
}

func samePkg(a, b string) bool {
	norm := func(p string) string { return strings.Trim(filepath.ToSlash(filepath.Clean(p)), "/") }
	return norm(a) == norm(b)
}

func listSuites(ss []Suite) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Pkg + " " + s.Test
	}
	return strings.Join(out, ", ")
}

// doorTests lists the test functions of a _test.go file that call
// waitsim.Run (or a function of a package imported from waitsim's module
// path under another name: only the door's own Run counts).
func doorTests(file string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == doorPath {
			name = "waitsim"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" || name == "_" {
		return nil
	}
	var tests []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
			continue
		}
		calls := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Run" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
						calls = true
					}
				}
			}
			return !calls
		})
		if calls {
			tests = append(tests, fn.Name.Name)
		}
	}
	return tests
}

// DoorTests lists the test functions of the _test.go files in dir that call
// waitsim.Run (the door), sorted.
func DoorTests(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	var out []string
	for _, f := range m {
		out = append(out, doorTests(f)...)
	}
	sort.Strings(out)
	return out
}

// SuiteGOGC is the garbage collector's target (GOGC) of the suite processes
// that run worlds on virtual time (waitsim run, a campaign's runs and hot
// processes, --suggest's), unless the environment sets its own; never
// serve's, whose real clock sees the collector. The worlds make short-lived
// garbage, and a warm run of the table (192 cases, 2 December 2026, this
// machine) took 1.39 s of CPU at 400 against 1.79–1.86 s at the default
// 100, its peak memory 101–105 MB against 58 MB; 800 saved little more
// (1.31 s) for 139 MB. It decides nothing a world does: virtual time does
// not see the collector.
const SuiteGOGC = "400"

// SuiteGOMAXPROCS is the number of processors (GOMAXPROCS) of the same
// suite processes, unless the environment sets its own; never serve's. A
// world runs one goroutine at a time, and the cases of a table run one
// after the other, so a second processor buys only the handing of the
// world's goroutines from one to the other (futex and yield calls). On
// this machine (2 cores, 2 December 2026), three interleaved rounds of
// the same tree with and without it: `waitsim mutate --no-cache`, whose
// two workers keep both cores busy, took 11.2–11.3 s against 13.3–14.6 s
// (the same verdicts), a warm `waitsim run` 2.65–2.85 s against 2.91–2.93
// s; with the whole command at GOMAXPROCS 1, a warm `waitsim run
// scenarios/table scenarios/sweep` took 5.05–5.22 s against 6.21–6.73 s.
// A campaign's workers each run such a process: one processor each
// shares the cores among them. It decides nothing a world does: its
// traces are the same at any GOMAXPROCS (make determinism).
const SuiteGOMAXPROCS = "1"

// SuiteEnv is a copy of env for a suite process (the caller may append to
// it): GOGC=SuiteGOGC and GOMAXPROCS=SuiteGOMAXPROCS added where env has
// none of its own.
func SuiteEnv(env []string) []string {
	out := append(make([]string, 0, len(env)+3), env...)
	for _, kv := range [...][2]string{{"GOGC", SuiteGOGC}, {"GOMAXPROCS", SuiteGOMAXPROCS}} {
		if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, kv[0]+"=") }) {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	return out
}
