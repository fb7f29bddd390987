package testbin

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strings"
)

// Mutant schemata. Building one test binary per mutant costs seconds (the
// binary links the MCP SDK), running it a fraction of one. So mutants whose
// changes lie inside function bodies are compiled together into ONE test
// binary, each behind a switch read from the environment: every changed
// function F gets, at the start of its body, on the same line,
//
//	switch waitsimMutant { case 7: return F__wsm7(args…) }
//
// and the mutated copy of F, renamed F__wsm7, is appended to the same file
// (so it sees the same imports). Running the binary with WAITSIM_MUTANT=7
// runs mutant 7; without it, the original code.
//
// A mutant that changes only the value of a lone package-level declaration
// (no parentheses, one name) gets a switch too, when the value's type can be
// read off the source: a string constant made of string literals (a tool
// description), or a variable with a written type or a composite literal of
// one. The declaration becomes a variable chosen once, at package init:
//
//	var Name = func() T { switch waitsimMutant { case 7: return Name__wsm7() }; return <original value> }()
//
// with func Name__wsm7() T { return <mutated value> } appended. A string
// constant so turned into a variable of type string keeps its value, and
// every use that compiles both ways means the same; a use that needs a
// constant (an array length, another constant) fails the schemata build,
// which is then built again without these mutants (they are built on their
// own). Mutants that change anything else (an integer constant, a grouped
// declaration, an import, a signature), or whose function calls recover()
// directly, are built on their own through an overlay. The switch adds
// nothing to a mutant's behaviour but one integer comparison per call (or,
// for a value, one at init).

// SchemaEnv is the environment variable that selects a mutant of a schemata
// binary; SwitchVar is the package variable it sets.
const (
	SchemaEnv      = "WAITSIM_MUTANT"
	switchVar      = "waitsimMutant"
	copySuffix     = "__wsm"
	HotEnv         = "WAITSIM_HOT"
	recordingVar   = "waitsimRecording"
	reachFunc      = "waitsimReach"
	SwitchFileName = "zz_waitsim_mutant_switch.go"
	hotFlagPrefix  = "waitsim.mutant." // hot.SwitchFlagPrefix
)

// funcEdit is one top-level declaration changed by a mutant: its index among
// the file's declarations and the mutated text — of a function, the whole
// declaration (from the func keyword to the closing brace); of a value
// (typ != ""), the mutated value expression alone, whose type is typ.
type funcEdit struct {
	decl    int
	mutated string
	typ     string // a value's type ("string", "[]T", …); "" for a function
}

// declEdits returns the declarations that mutated changes in orig, when
// every change is confined to a function body or, with values, to the value
// of a lone value declaration whose type can be read (see valueType): same
// declarations in the same order, same text outside the changed bodies and
// values, same signatures, and no direct recover() in a changed function.
// ok is false otherwise.
func declEdits(orig, mutated []byte, values bool) (edits []funcEdit, ok bool) {
	fo, err1 := parser.ParseFile(token.NewFileSet(), "o.go", orig, parser.SkipObjectResolution)
	fm, err2 := parser.ParseFile(token.NewFileSet(), "m.go", mutated, parser.SkipObjectResolution)
	if err1 != nil || err2 != nil || len(fo.Decls) != len(fm.Decls) {
		return nil, false
	}
	off := func(f *ast.File, p token.Pos) int { return int(p - f.FileStart) }
	var rebuilt bytes.Buffer
	prev := 0
	for i := range fo.Decls {
		so, eo := off(fo, fo.Decls[i].Pos()), off(fo, fo.Decls[i].End())
		sm, em := off(fm, fm.Decls[i].Pos()), off(fm, fm.Decls[i].End())
		if string(orig[so:eo]) == string(mutated[sm:em]) {
			continue
		}
		if go1, gm := valueSpec(fo.Decls[i]), valueSpec(fm.Decls[i]); go1 != nil && gm != nil {
			if !values {
				return nil, false
			}
			vo, vm := go1.Values[0], gm.Values[0]
			typ := valueType(orig, fo, fo.Decls[i].(*ast.GenDecl))
			if typ == "" || typ != valueType(mutated, fm, fm.Decls[i].(*ast.GenDecl)) ||
				string(orig[so:off(fo, vo.Pos())]) != string(mutated[sm:off(fm, vm.Pos())]) ||
				string(orig[off(fo, vo.End()):eo]) != string(mutated[off(fm, vm.End()):em]) {
				return nil, false
			}
			edits = append(edits, funcEdit{decl: i, mutated: string(mutated[off(fm, vm.Pos()):off(fm, vm.End())]), typ: typ})
			rebuilt.Write(mutated[prev:sm])
			rebuilt.Write(orig[so:eo])
			prev = em
			continue
		}
		do, okO := fo.Decls[i].(*ast.FuncDecl)
		dm, okM := fm.Decls[i].(*ast.FuncDecl)
		if !okO || !okM {
			return nil, false
		}
		if do.Body == nil || dm.Body == nil || do.Name.Name != dm.Name.Name ||
			string(orig[so:off(fo, do.Body.Lbrace)]) != string(mutated[sm:off(fm, dm.Body.Lbrace)]) ||
			callsRecover(dm.Body) {
			return nil, false
		}
		edits = append(edits, funcEdit{decl: i, mutated: string(mutated[sm:em])})
		rebuilt.Write(mutated[prev:sm])
		rebuilt.Write(orig[so:eo])
		prev = em
	}
	rebuilt.Write(mutated[prev:])
	if len(edits) == 0 || !bytes.Equal(rebuilt.Bytes(), orig) {
		return nil, false
	}
	return edits, true
}

// valueSpec returns the one spec of a lone value declaration — const or
// var, no parentheses, one name (not _), one value — or nil.
func valueSpec(d ast.Decl) *ast.ValueSpec {
	g, ok := d.(*ast.GenDecl)
	if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) || g.Lparen.IsValid() || len(g.Specs) != 1 {
		return nil
	}
	vs := g.Specs[0].(*ast.ValueSpec)
	if len(vs.Names) != 1 || vs.Names[0].Name == "_" || len(vs.Values) != 1 {
		return nil
	}
	return vs
}

// valueType is the type, as source text, of a lone value declaration's
// value when it can be read off the source: "string" for an untyped
// constant made of string literals (its default type); a variable's written
// type, or else its composite literal's. "" otherwise (a typed or numeric
// constant: turned into a variable, its arithmetic could change).
func valueType(src []byte, f *ast.File, g *ast.GenDecl) string {
	vs := g.Specs[0].(*ast.ValueSpec)
	text := func(n ast.Node) string { return string(src[n.Pos()-f.FileStart : n.End()-f.FileStart]) }
	if g.Tok == token.CONST {
		if vs.Type == nil && stringLits(vs.Values[0]) {
			return "string"
		}
		return ""
	}
	if vs.Type != nil {
		return text(vs.Type)
	}
	if cl, ok := vs.Values[0].(*ast.CompositeLit); ok && cl.Type != nil {
		return text(cl.Type)
	}
	return ""
}

// stringLits reports whether e is string literals joined by +.
func stringLits(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.ParenExpr:
		return stringLits(e.X)
	case *ast.BinaryExpr:
		return e.Op == token.ADD && stringLits(e.X) && stringLits(e.Y)
	}
	return false
}

// callsRecover reports whether body calls recover() outside function
// literals: such a call only works when made directly by a deferred
// function, which the switch would break.
func callsRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "recover" {
				found = true
			}
		}
		return !found
	})
	return found
}

// schemaMutant is one mutant of a schemata file: its switch number and its
// edits of the file.
type schemaMutant struct {
	n     int
	edits []funcEdit
}

// schemataFile returns orig with the switch prologue in every function some
// mutant changes and the mutated copies appended. Parameters and receivers
// that are unnamed or blank are named (_wsp0, _wsr) so that the prologue can
// pass them on; nothing else of orig moves, so line numbers stay.
func schemataFile(orig []byte, muts []schemaMutant) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "o.go", orig, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return int(p - f.FileStart) }
	type splice struct {
		at, end int
		text    string
	}
	var splices []splice
	byDecl := map[int][]int{}  // decl index → switch numbers, in order
	values := map[int]string{} // decl index → a changed value's type
	sitesAt := map[int][]int{} // a site's statement offset → switch numbers (sites.go)
	fnSites := map[int][]int{} // decl index → switch numbers marked at its start
	var copies strings.Builder
	for _, m := range muts {
		for _, e := range m.edits {
			if e.typ != "" {
				vs := valueSpec(f.Decls[e.decl])
				if vs == nil {
					return nil, fmt.Errorf("declaration %d is not a lone value", e.decl)
				}
				byDecl[e.decl] = append(byDecl[e.decl], m.n)
				values[e.decl] = e.typ
				fmt.Fprintf(&copies, "\n\nfunc %s%s%d() %s {\n\treturn %s\n}", vs.Names[0].Name, copySuffix, m.n, e.typ, e.mutated)
				continue
			}
			fd, ok := f.Decls[e.decl].(*ast.FuncDecl)
			if !ok {
				return nil, fmt.Errorf("declaration %d is not a function", e.decl)
			}
			byDecl[e.decl] = append(byDecl[e.decl], m.n)
			start := off(fd.Pos())
			lo, hi := changed(string(orig[start:off(fd.End())]), e.mutated)
			if at := siteOf(f, fd, start+lo, start+hi); at >= 0 {
				sitesAt[at] = append(sitesAt[at], m.n)
			} else {
				fnSites[e.decl] = append(fnSites[e.decl], m.n)
			}
			// Rename the copy: its name is the first occurrence of
			// "Name" after the receiver in the mutated text.
			text := e.mutated
			nameAt := off(fd.Name.Pos()) - off(fd.Pos())
			if !strings.HasPrefix(text[nameAt:], fd.Name.Name) {
				return nil, fmt.Errorf("cannot find the name of %s in its mutated copy", fd.Name.Name)
			}
			fmt.Fprintf(&copies, "\n\n%s%s%s%d%s", text[:nameAt], fd.Name.Name, copySuffix, m.n, text[nameAt+len(fd.Name.Name):])
		}
	}
	decls := make([]int, 0, len(byDecl))
	for d := range byDecl {
		decls = append(decls, d)
	}
	sort.Ints(decls)
	for _, d := range decls {
		if typ, ok := values[d]; ok {
			// var Name = func() T { switch … }; return <value> }()
			g := f.Decls[d].(*ast.GenDecl)
			vs := g.Specs[0].(*ast.ValueSpec)
			if g.Tok == token.CONST {
				splices = append(splices, splice{at: off(g.TokPos), end: off(g.TokPos) + len("const"), text: "var"})
			}
			var sw strings.Builder
			fmt.Fprintf(&sw, "func() %s { switch %s {", typ, switchVar)
			for _, n := range byDecl[d] {
				fmt.Fprintf(&sw, " case %d: return %s%s%d();", n, vs.Names[0].Name, copySuffix, n)
			}
			sw.WriteString(" }; return ")
			splices = append(splices, splice{at: off(vs.Values[0].Pos()), end: off(vs.Values[0].Pos()), text: sw.String()},
				splice{at: off(vs.Values[0].End()), end: off(vs.Values[0].End()), text: " }()"})
			continue
		}
		fd := f.Decls[d].(*ast.FuncDecl)
		var args []string
		recv := ""
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			r := fd.Recv.List[0]
			if len(r.Names) == 0 {
				splices = append(splices, splice{at: off(r.Type.Pos()), end: off(r.Type.Pos()), text: "_wsr "})
				recv = "_wsr."
			} else if r.Names[0].Name == "_" {
				splices = append(splices, splice{at: off(r.Names[0].Pos()), end: off(r.Names[0].End()), text: "_wsr"})
				recv = "_wsr."
			} else {
				recv = r.Names[0].Name + "."
			}
		}
		i := 0
		variadic := false
		for _, p := range fd.Type.Params.List {
			if _, ok := p.Type.(*ast.Ellipsis); ok {
				variadic = true
			}
			if len(p.Names) == 0 {
				name := fmt.Sprintf("_wsp%d", i)
				splices = append(splices, splice{at: off(p.Type.Pos()), end: off(p.Type.Pos()), text: name + " "})
				args = append(args, name)
				i++
				continue
			}
			for _, n := range p.Names {
				name := n.Name
				if name == "_" {
					name = fmt.Sprintf("_wsp%d", i)
					splices = append(splices, splice{at: off(n.Pos()), end: off(n.End()), text: name})
				}
				args = append(args, name)
				i++
			}
		}
		if variadic && len(args) > 0 {
			args[len(args)-1] += "..."
		}
		targs := ""
		if fd.Type.TypeParams != nil {
			var tps []string
			for _, tp := range fd.Type.TypeParams.List {
				for _, n := range tp.Names {
					tps = append(tps, n.Name)
				}
			}
			targs = "[" + strings.Join(tps, ", ") + "]"
		}
		results := fd.Type.Results != nil && len(fd.Type.Results.List) > 0
		var sw strings.Builder
		// In a hot runner's process, a function that runs before its
		// first request records its switches (switchFile).
		if ns := fnSites[d]; len(ns) > 0 {
			sw.WriteString(" " + strings.TrimSpace(siteMark(ns)))
		}
		fmt.Fprintf(&sw, " if %s { %s(", recordingVar, reachFunc)
		for i, n := range byDecl[d] {
			if i > 0 {
				sw.WriteString(", ")
			}
			fmt.Fprintf(&sw, "%d", n)
		}
		fmt.Fprintf(&sw, ") }; switch %s {", switchVar)
		for _, n := range byDecl[d] {
			call := fmt.Sprintf("%s%s%s%d%s(%s)", recv, fd.Name.Name, copySuffix, n, targs, strings.Join(args, ", "))
			if results {
				fmt.Fprintf(&sw, " case %d: return %s;", n, call)
			} else {
				fmt.Fprintf(&sw, " case %d: %s; return;", n, call)
			}
		}
		sw.WriteString(" };")
		at := off(fd.Body.Lbrace) + 1
		splices = append(splices, splice{at: at, end: at, text: sw.String()})
	}
	for at, ns := range sitesAt {
		splices = append(splices, splice{at: at, end: at, text: siteMark(ns)})
	}
	sort.SliceStable(splices, func(i, j int) bool { return splices[i].at < splices[j].at })
	var out bytes.Buffer
	prev := 0
	for _, s := range splices {
		out.Write(orig[prev:s.at])
		out.WriteString(s.text)
		prev = s.end
	}
	out.Write(orig[prev:])
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteByte('\n')
	}
	out.WriteString(copies.String())
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// switchFile is the added file that declares the switch variable of the
// package pkg in directory dir. In a cold run (one process a mutant) the
// switch is WAITSIM_MUTANT, read at init. In a hot runner's process
// (WAITSIM_HOT set; package hot) the file also registers the flag
// hot.SwitchFlagPrefix+dir: setting it turns a mutant on and runs reset,
// the body of waitsimReset, which puts every variable of the package back
// to its value at init (HotReset writes it); its Get lists the switches
// whose functions ran before the first such setting.
func switchFile(pkg, dir, reset string) []byte {
	return []byte(fmt.Sprintf(`// Code generated by waitsim mutate (mutant schemata); DO NOT EDIT.

package %[1]s

import (
	"flag"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
)

// %[2]s selects the mutant to run (%[3]s at init, a hot runner's
// requests later); 0 runs the original code.
var %[2]s, _ = strconv.Atoi(os.Getenv(%[3]q))

// %[4]s: in a hot runner's process, until its first request, the
// switches of the functions that run are recorded.
var %[4]s = os.Getenv(%[5]q) != ""

// waitsimSet is a set of switch numbers, safe for concurrent use.
type waitsimSet struct {
	mu sync.Mutex
	m  map[int]bool
}

func (s *waitsimSet) add(ns ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[int]bool{}
	}
	for _, n := range ns {
		s.m[n] = true
	}
}

// list returns the set's numbers, sorted; take empties it.
func (s *waitsimSet) list(take bool) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := make([]int, 0, len(s.m))
	for n := range s.m {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	if take {
		clear(s.m)
	}
	return ns
}

var waitsimReached, waitsimSitesRan waitsimSet

func %[6]s(ns ...int) { waitsimReached.add(ns...) }

type waitsimSwitch struct{}

func (waitsimSwitch) String() string { return "" }

func (waitsimSwitch) Get() any { return waitsimReached.list(false) }

func (waitsimSwitch) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return err
	}
	%[4]s = false
	%[2]s = n
	waitsimReset()
	return nil
}

// %[10]s: the sites that run are recorded (the door turns it on through
// the sites flag, whose Get lists the sites that ran since it last did).
var %[10]s atomic.Bool

func %[11]s(ns ...int) { waitsimSitesRan.add(ns...) }

type waitsimSites struct{}

func (waitsimSites) String() string { return "" }

func (waitsimSites) Get() any { return waitsimSitesRan.list(true) }

func (waitsimSites) Set(s string) error {
	%[10]s.Store(s == "on")
	return nil
}

func init() {
	flag.Var(waitsimSwitch{}, %[7]q, "the mutant switch of a hot mutation runner (waitsim mutate)")
	flag.Var(waitsimSites{}, %[9]q, "the mutation sites that ran (waitsim mutate)")
}

// waitsimReset puts the package's variables back to their values at init,
// under the switch now on.
func waitsimReset() {
%[8]s}

func waitsimZero[T any](p *T) {
	var z T
	*p = z
}
`, pkg, switchVar, SchemaEnv, recordingVar, HotEnv, reachFunc, hotFlagPrefix+dir, reset, sitesFlagPre+dir, sitesOnVar, siteFunc))
}

// Schemata assembles the overlay of a schemata binary for the mutants that
// fit (numbered from 1 in order), and returns it with the number given to
// each fitting mutant (by index into muts). Each of muts is a mutant's
// overlay (root-relative path → mutated bytes); nil is a mutant to leave
// out. orig reads an original file.
//
// With allowValues, mutants that change a lone declaration's value fit too
// (see the top of this file); values reports whether any of them was
// taken, valued which fitting mutants (by index) change a value, chosen at
// init.
func Schemata(muts []map[string][]byte, orig func(string) ([]byte, error), allowValues bool) (files map[string][]byte, nums map[int]int, valued map[int]bool, values bool, err error) {
	perFile := map[string][]schemaMutant{}
	nums = map[int]int{}
	valued = map[int]bool{}
	dirs := map[string]bool{}
	n := 0
	for i, m := range muts {
		if m == nil {
			continue
		}
		edits := map[string][]funcEdit{}
		fits := true
		for p, b := range m {
			o, err := orig(p)
			if err != nil {
				return nil, nil, nil, false, err
			}
			e, ok := declEdits(o, b, allowValues)
			if !ok {
				fits = false
				break
			}
			edits[p] = e
		}
		if !fits {
			continue
		}
		for _, es := range edits {
			for _, e := range es {
				values = values || e.typ != ""
				valued[i] = valued[i] || e.typ != ""
			}
		}
		n++
		nums[i] = n
		for p, e := range edits {
			perFile[p] = append(perFile[p], schemaMutant{n: n, edits: e})
			dirs[path.Dir(p)] = true
		}
	}
	if n == 0 {
		return nil, nums, valued, false, nil
	}
	files = map[string][]byte{}
	for p, ms := range perFile {
		o, err := orig(p)
		if err != nil {
			return nil, nil, nil, false, err
		}
		b, err := schemataFile(o, ms)
		if err != nil {
			return nil, nil, nil, false, fmt.Errorf("%s: %v", p, err)
		}
		files[p] = b
	}
	for d := range dirs {
		// The package name of any original file of the directory.
		var pkg string
		for p := range perFile {
			if path.Dir(p) == d {
				o, _ := orig(p)
				f, err := parser.ParseFile(token.NewFileSet(), p, o, parser.PackageClauseOnly)
				if err != nil {
					return nil, nil, nil, false, err
				}
				pkg = f.Name.Name
				break
			}
		}
		files[path.Join(d, SwitchFileName)] = switchFile(pkg, d, "")
	}
	return files, nums, valued, values, nil
}
