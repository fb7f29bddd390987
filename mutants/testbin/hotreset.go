package testbin

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// HotReset completes the schemata overlay files for a hot runner (mutants/hot.go):
// the body of the switch file's waitsimReset, which puts every variable of
// the target package back to its value at init — the variables without an
// initializer to their zero value, then every initializer run again in the
// package's initialization order (go/types' InitOrder), so that a value
// computed once (a sync.Once, a cache, a table) is computed again under
// the mutant turned on, as a process of its own would compute it at init.
// Each initializer runs from a function appended to its own file (so that
// it sees that file's imports); files not yet in the overlay are added to
// it. ok is false, with the reason, when the package cannot be reset so: it
// has init functions (they cannot be run again), or it does not
// type-check with the overlay.
func HotReset(tc *TypeChecker, root string, files map[string][]byte) (ok bool, why string) {
	if tc == nil || len(tc.files) == 0 {
		return false, "the target package was not type-checked"
	}
	dir := path.Dir(tc.files[0])
	sw := path.Join(dir, SwitchFileName)
	if _, ok := files[sw]; !ok {
		return false, "the schemata overlay has no switch file in " + dir
	}
	fset := token.NewFileSet()
	srcs := map[string][]byte{}
	var asts []*ast.File
	pf, err := parser.ParseFile(token.NewFileSet(), sw, files[sw], parser.PackageClauseOnly)
	if err != nil {
		return false, err.Error()
	}
	// The switch file as the type checker sees it: its names without its
	// imports, whose export data the target's own imports may not hold.
	stub := []byte(fmt.Sprintf("package %s\n\nvar %s int\n\nvar %s bool\n\nfunc %s(...int) {}\n\nfunc waitsimZero[T any](*T) {}\n"+
		"\ntype waitsimFlag struct{}\n\nfunc (waitsimFlag) Load() bool { return false }\n\nvar %s waitsimFlag\n\nfunc %s(...int) {}\n",
		pf.Name.Name, switchVar, recordingVar, reachFunc, sitesOnVar, siteFunc))
	for _, rel := range append(append([]string{}, tc.files...), sw) {
		src, ok := files[rel]
		if rel == sw {
			src = stub
		}
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				return false, err.Error()
			}
			src = b
		}
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			return false, err.Error()
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" && rel != sw {
				return false, fmt.Sprintf("%s has an init function, which a process cannot run again", rel)
			}
		}
		srcs[rel] = src
		asts = append(asts, f)
	}
	info := &types.Info{}
	var firstErr error
	conf := types.Config{Importer: tc.imp, Error: func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}}
	pkg, _ := conf.Check(tc.pkgPath, fset, asts, info)
	if firstErr != nil {
		return false, "the schemata overlay does not type-check: " + firstErr.Error()
	}
	own := func(name string) bool { return strings.HasPrefix(name, "waitsim") }
	initialized := map[*types.Var]bool{}
	var body strings.Builder
	appended := map[string]*strings.Builder{}
	var calls []string
	for i, in := range info.InitOrder {
		var lhs []string
		mine := true
		for _, v := range in.Lhs {
			initialized[v] = true
			lhs = append(lhs, v.Name())
			mine = mine && own(v.Name())
		}
		if mine {
			continue // the switch file's own
		}
		file := fset.Position(in.Rhs.Pos()).Filename
		f := fset.File(in.Rhs.Pos())
		src := srcs[file]
		rhs := string(src[f.Offset(in.Rhs.Pos()):f.Offset(in.Rhs.End())])
		b := appended[file]
		if b == nil {
			b = &strings.Builder{}
			appended[file] = b
		}
		name := fmt.Sprintf("waitsimInit%d", i)
		fmt.Fprintf(b, "\n\nfunc %s() {\n\t%s = %s\n}\n", name, strings.Join(lhs, ", "), rhs)
		calls = append(calls, name)
	}
	for _, name := range pkg.Scope().Names() {
		v, ok := pkg.Scope().Lookup(name).(*types.Var)
		if !ok || own(name) || initialized[v] {
			continue
		}
		fmt.Fprintf(&body, "\twaitsimZero(&%s)\n", name)
	}
	for _, c := range calls {
		fmt.Fprintf(&body, "\t%s()\n", c)
	}
	for file, b := range appended {
		src := srcs[file]
		out := append(append([]byte{}, src...), b.String()...)
		files[file] = out
	}
	files[sw] = switchFile(pf.Name.Name, dir, body.String())
	return true, ""
}
