package session

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Prefixes yaegi puts in front of a group it evaluates (see yaegi's
// interp.parse); the rewriter parses the same text so offsets agree.
const (
	declPrefix = "package main;"
	stmtPrefix = "package main; func main() {"
	stmtSuffix = "\n}"
)

// Names the rewriter introduces. They start with an underscore pair so a
// person's names never collide with them.
const (
	helperPkg     = "__commlab"     // import name of the session's compiled helpers
	minFunc       = "__commlab_min" // generic min polyfill (interpreted)
	maxFunc       = "__commlab_max" // generic max polyfill (interpreted)
	recoverFunc   = "__commlab_recover"
	lineVar       = "__commlab_line" // the cell line of the statement last started (see lineMarkers)
	resultCapture = helperPkg + ".Result("
)

// prelude is evaluated once in every interpreter: the interpreted parts of
// the polyfills. recover must be called by the deferred function itself, so
// the goroutine guard is interpreted and hands the value to compiled code.
// cmp is yaegi's interpreted package, visible without an import (an import
// here would collide with the cell's own).
const prelude = `import ` + helperPkg + ` "commlab.session/helpers"
func ` + minFunc + `[__commlabT cmp.Ordered](x __commlabT, y ...__commlabT) __commlabT { for _, v := range y { if v < x { x = v } }; return x }
func ` + maxFunc + `[__commlabT cmp.Ordered](x __commlabT, y ...__commlabT) __commlabT { for _, v := range y { if v > x { x = v } }; return x }
func ` + recoverFunc + `(cell int) { if r := recover(); r != nil { ` + helperPkg + `.GoPanic(cell, r) } }
var ` + lineVar + ` int
`

// edit replaces src[start:end] with text. Edits never add newlines, so line
// numbers stay those of the cell.
type edit struct {
	start, end int
	text       string
}

func applyEdits(src string, edits []edit) string {
	edits = append([]edit(nil), edits...) // the caller's order stays
	// Insertions go before a replacement that starts at the same place.
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].start != edits[j].start {
			return edits[i].start < edits[j].start
		}
		return edits[i].end-edits[i].start < edits[j].end-edits[j].start
	})
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.start < last {
			continue // inside an edit already made
		}
		b.WriteString(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(src[last:])
	return b.String()
}

// rewriteResult is a group ready for yaegi.
type rewriteResult struct {
	src          string   // rewritten group source (without yaegi's prefix)
	capture      string   // same, with the final expression captured; "" if none
	declared     []string // names the group declares at the top level (funcs "f", methods "T.M", types, vars, consts)
	typeNames    []string // the subset that are types
	missingPkgs  []string // package names used but not imported (goimports-style candidates)
	finalIsPrint bool     // final expression is a fmt.Print* call: no result shown
	// varTypes are the types of the names the statements define, as the
	// cell writes them (see goTypes.varTypes).
	varTypes map[string]recordedType
	// firstGeneric is the first call of a generic function, "L:C: name",
	// for an interpreter failure to name (see interpreterCrash).
	firstGeneric string
	// unnamedTypeArg says why a generic call was left to yaegi's
	// inference (see genericRewrite.unnamed).
	unnamedTypeArg string
	typeError      string // go/types' error on a generic call (see typedGroup.inferError)
	// markers are the line markers inserted (see lineMarkers), for
	// positions in the compiler's errors to be the cell's again.
	markers []marker
}

// marker is one inserted line marker: where it went, in the group's
// padded lines and the line's original columns, and its length.
type marker struct{ line, col, n int }

// unmark takes the line markers out of the columns of a compile error.
func (rw rewriteResult) unmark(err error) error {
	if len(rw.markers) == 0 || err == nil {
		return err
	}
	msg := position.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := position.FindStringSubmatch(m)
		l, _ := strconv.Atoi(sub[1])
		c, _ := strconv.Atoi(sub[2])
		shift := 0
		for _, mk := range rw.markers {
			if mk.line == l && c-shift >= mk.col+mk.n {
				shift += mk.n
			}
		}
		return strings.Replace(m, sub[1]+":"+sub[2]+":", fmt.Sprintf("%d:%d:", l, c-shift), 1)
	})
	return errors.New(msg)
}

// scopeInfo is what the rewriter knows of the session when it rewrites.
type scopeInfo struct {
	defined    func(name string) bool                       // a session-level name (global, func, type, const)
	imported   func(name string) bool                       // an import name in effect
	globalType func(name string) reflect.Type               // type of a session variable, nil if unknown
	pkgSymbol  func(pkg, name string) (reflect.Value, bool) // a compiled package's symbol, by the package's name in the cell
	pkgPath    func(name string) string                     // the path a package name refers to in the cell, "" if none
	constDecls []string                                     // earlier const declarations, for typing
	known      func(name string) bool                       // a package the session can import
	// namedGeneric reports a generic function by its name (qualifier ""
	// for the session's own): a polyfill's or one the session declared.
	namedGeneric func(qualifier, name string) bool
	// check types a group with go/types (see checkGroup); nil if it
	// cannot.
	check func(fset *token.FileSet, f *ast.File, declared []string) *typedGroup
}

var builtinFuncs = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true,
	"new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// rewrite prepares one group of a cell: it parses it exactly as yaegi will,
// then polyfills what yaegi v0.16.1 lacks (min, max, clear, range over an
// integer), guards goroutines against panics, lists packages to auto-import
// and, for the last group of a cell, captures a final expression's value.
func rewrite(kind itemKind, src string, final bool, sc scopeInfo) (rewriteResult, error) {
	prefix, suffix := declPrefix, ""
	if kind == itemStmt {
		prefix, suffix = stmtPrefix, stmtSuffix
		src = renameBlockLocals(src, func(name string) bool {
			return sc.defined(name) || sc.imported(name) || (sc.known != nil && sc.known(name)) || strings.HasPrefix(name, "__commlab")
		})
	} else {
		src = renameTypeParams(src)
	}
	res := rewriteResult{src: src}
	full := prefix + src + suffix
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", full, 0)
	if err != nil {
		return res, err
	}
	base := fset.File(f.Pos()).Base()
	off := func(p token.Pos) int { return int(p) - base - len(prefix) }

	// Names declared in this group: needed for redefinition tracking, and so
	// that a local variable is never mistaken for a package to import.
	local := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == "main" && kind == itemStmt {
				continue
			}
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				name = receiverTypeName(d.Recv.List[0].Type) + "." + name
			}
			res.declared = append(res.declared, name)
			local[d.Name.Name] = true
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					res.declared = append(res.declared, s.Name.Name)
					res.typeNames = append(res.typeNames, s.Name.Name)
					local[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						res.declared = append(res.declared, n.Name)
						local[n.Name] = true
					}
				}
			}
		}
	}
	var body *ast.BlockStmt
	if kind == itemStmt {
		body = f.Decls[0].(*ast.FuncDecl).Body
		for _, st := range body.List {
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, l := range st.Lhs {
						if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
							res.declared = append(res.declared, id.Name)
						}
					}
				}
			case *ast.DeclStmt:
				if gd, ok := st.Decl.(*ast.GenDecl); ok {
					for _, s := range gd.Specs {
						if vs, ok := s.(*ast.ValueSpec); ok {
							for _, n := range vs.Names {
								res.declared = append(res.declared, n.Name)
							}
						}
					}
				}
			}
		}
	}
	// Every identifier bound anywhere in the group (params, locals, ...):
	// such a name is not a package even if a package is called that.
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						local[id.Name] = true
					}
				}
			}
		case *ast.Field:
			for _, id := range n.Names {
				local[id.Name] = true
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				local[id.Name] = true
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok {
					local[id.Name] = true
				}
			}
		}
		return true
	})
	userDefined := func(name string) bool { return local[name] || sc.defined(name) }

	// yaegi reports an undefined name confusingly ("constant definition
	// loop") or panics on it: name it plainly first.
	for _, id := range f.Unresolved {
		name := id.Name
		if name == "_" || local[name] || sc.defined(name) || sc.imported(name) || types.Universe.Lookup(name) != nil ||
			(sc.known != nil && sc.known(name)) || strings.HasPrefix(name, "__commlab") {
			continue
		}
		p := fset.Position(id.Pos())
		return res, fmt.Errorf("%d:%d: undefined: %s", p.Line, p.Column, name)
	}

	intExprs := integerExpressions(fset, f, sc)

	// Generic calls yaegi cannot run as written (see generic.go).
	var gen genericRewrite
	ownGeneric := genericFuncs(f)
	generic := func(qualifier, name string) bool {
		if qualifier == "" {
			return ownGeneric[name] || (!local[name] && sc.namedGeneric != nil && sc.namedGeneric("", name))
		}
		return !userDefined(qualifier) && sc.namedGeneric != nil && sc.namedGeneric(qualifier, name)
	}
	if sc.check != nil && (callsGeneric(f, generic, true) || (kind == itemStmt && len(res.declared) > 0)) {
		if tg := sc.check(fset, f, res.declared); tg != nil {
			if gen, err = rewriteGenerics(kind, f, body, tg, fset, src, off); err != nil {
				return res, err
			}
			res.varTypes = gen.varTypes
			res.unnamedTypeArg = gen.unnamed
			res.typeError = tg.inferError
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && res.firstGeneric == "" {
			if q, name := calleeName(call); name != "" && generic(q, name) {
				p := fset.Position(call.Pos())
				res.firstGeneric = fmt.Sprintf("%d:%d: %s", p.Line, p.Column, strings.TrimPrefix(q+"."+name, "."))
			}
		}
		return res.firstGeneric == ""
	})

	var edits []edit
	var iterErr error
	missing := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && !userDefined(id.Name) {
				switch id.Name {
				case "min", "max":
					if lit, ok := foldConstantMinMax(id.Name, n, fset); ok {
						edits = append(edits, edit{off(n.Pos()), off(n.End()), lit})
						return false
					}
					repl := minFunc
					if id.Name == "max" {
						repl = maxFunc
					}
					edits = append(edits, edit{off(id.Pos()), off(id.End()), repl})
				case "clear":
					edits = append(edits, edit{off(id.Pos()), off(id.End()), helperPkg + ".Clear"})
				}
			}
		case *ast.RangeStmt:
			if n.Value == nil && intExprs[n.X] {
				// range over an integer: the same indices, from a slice of
				// zero-size elements that allocates nothing.
				x := full[int(n.X.Pos())-base : int(n.X.End())-base]
				edits = append(edits, edit{off(n.X.Pos()), off(n.X.End()), "make([]struct{}, " + x + ")"})
			}
		case *ast.GoStmt:
			edits = append(edits, guardGoStmt(n, src, off, userDefined)...)
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && !userDefined(id.Name) {
				if !sc.imported(id.Name) {
					missing[id.Name] = true
				}
				if sc.pkgPath != nil && iterErr == nil {
					if msg := iteratorError(sc.pkgPath(id.Name), id.Name, n.Sel.Name); msg != "" {
						p := fset.Position(n.Pos())
						iterErr = fmt.Errorf("%d:%d: %s", p.Line, p.Column, msg)
					}
				}
			}
		}
		return true
	})
	if iterErr != nil {
		return res, iterErr
	}
	edits = append(edits, gen.edits...)
	for p := range gen.pkgs {
		if !sc.imported(p) {
			missing[p] = true
		}
	}
	finalBlock := 0 // edits that wrap the final statement in a block
	if kind == itemStmt {
		markers := lineMarkers(body, fset, off)
		for _, m := range markers {
			p := fset.Position(body.Lbrace + token.Pos(m.start-off(body.Lbrace)))
			res.markers = append(res.markers, marker{p.Line, p.Column, len(m.text)})
		}
		edits = append(markers, edits...)
		conv, pkgs := convertCompiledValues(body.List, sc, off)
		edits = append(edits, conv...)
		for _, p := range pkgs {
			if !sc.imported(p) {
				missing[p] = true
			}
		}
		var ret *ast.ReturnStmt
		ast.Inspect(body, func(n ast.Node) bool {
			if r, ok := n.(*ast.ReturnStmt); ok && ret == nil {
				ret = r
			}
			_, lit := n.(*ast.FuncLit)
			return !lit && ret == nil
		})
		if ret != nil {
			p := fset.Position(ret.Pos())
			return res, fmt.Errorf("%d:%d: return at the top level of a cell: a cell is not a function, so there is nothing to return from; put the rest in an if/else, or the statements in a function and call it", p.Line, p.Column)
		}
		for _, st := range body.List {
			if d, ok := st.(*ast.DeferStmt); ok {
				// yaegi v0.16.1 runs a top-level defer again at every
				// later evaluation; there is no function for it to end.
				p := fset.Position(d.Pos())
				return res, fmt.Errorf("%d:%d: defer at the top level of a cell is not supported (it would run again after every later cell); defer inside a function", p.Line, p.Column)
			}
		}
		for _, st := range body.List {
			switch {
			case needsClosure(st) || gen.closures[st]:
				// yaegi v0.16.1 loses the names of a multi-value := in a
				// block at the top level of a cell ("undefined: x"), and
				// cannot declare one from a generic call there, but does
				// inside a function: run such a statement in one.
				// The block around it avoids the next bug.
				edits = append(edits, edit{off(st.Pos()), off(st.Pos()), "{ func() { "}, edit{off(st.End()), off(st.End()), " }() }"})
			case isFuncLitCall(st):
				// yaegi v0.16.1 runs a top-level func() { ... }() again
				// at every later evaluation; inside a block it does not.
				// (As the argument of the result capture it is safe too.)
				edits = append(edits, edit{off(st.Pos()), off(st.Pos()), "{ "}, edit{off(st.End()), off(st.End()), " }"})
				if st == body.List[len(body.List)-1] {
					finalBlock = 2
				}
			}
		}
	}
	for name := range missing {
		res.missingPkgs = append(res.missingPkgs, name)
	}
	sort.Strings(res.missingPkgs)
	res.src = applyEdits(src, edits)
	// yaegi decides from the first token whether a group is declarations
	// or statements: a leading empty statement keeps a var statement one.
	lead := ""
	if kind == itemStmt && len(body.List) > 0 {
		if _, ok := body.List[0].(*ast.DeclStmt); ok || gen.leadVar {
			lead = ";"
			res.src = lead + res.src
		}
	}

	if final && kind == itemStmt && len(body.List) > 0 {
		if es, ok := body.List[len(body.List)-1].(*ast.ExprStmt); ok {
			res.finalIsPrint = isPrintCall(es.X)
			if !res.finalIsPrint {
				capEdits := append([]edit{}, edits[:len(edits)-finalBlock]...)
				capEdits = append(capEdits, edit{off(es.Pos()), off(es.Pos()), resultCapture}, edit{off(es.End()), off(es.End()), ")"})
				res.capture = lead + applyEdits(src, capEdits)
			}
		}
	}
	return res, nil
}

// guardGoStmt turns `go f(a, b)` into a goroutine that evaluates f, a and b
// first, as the go statement does, and recovers a panic into an error output
// instead of letting it end the kernel. It edits only the keyword and the
// call's parentheses, so the rewrites inside f, a and b (auto-imports, range
// over an integer, min and max) still apply.
func guardGoStmt(g *ast.GoStmt, src string, off func(token.Pos) int, userDefined func(string) bool) []edit {
	call := g.Call
	goKw := edit{start: off(g.Pos()), end: off(g.Pos()) + len("go")}
	// The goroutine knows the cell that started it: the argument is
	// evaluated by the go statement, in the cell.
	guard := "go func(__commlab_cell int) { defer " + recoverFunc + "(__commlab_cell); "
	guardClose := " }(" + helperPkg + ".Cell())"
	if id, ok := call.Fun.(*ast.Ident); ok && builtinFuncs[id.Name] && !userDefined(id.Name) {
		goKw.text = guard
		return []edit{goKw, {off(g.End()), off(g.End()), guardClose}}
	}
	names := []string{"__commlab_f"}
	args := make([]string, len(call.Args))
	for i := range call.Args {
		args[i] = "__commlab_a" + string(rune('0'+i%10)) + strings.Repeat("_", i/10)
		names = append(names, args[i])
	}
	ellipsis := ""
	if call.Ellipsis.IsValid() {
		ellipsis = "..."
	}
	goKw.text = "{ " + strings.Join(names, ", ") + " :="
	open := edit{off(call.Lparen), off(call.Lparen) + 1, ""}
	if len(call.Args) > 0 {
		open.text = ", "
	}
	// The closing edit starts after the last argument, taking a trailing
	// comma and an ellipsis with it (never a newline).
	closeStart := off(call.Lparen) + 1
	if n := len(call.Args); n > 0 {
		closeStart = off(call.Args[n-1].End())
	}
	tail := "; " + guard + "__commlab_f(" + strings.Join(args, ", ") + ellipsis + ")" + guardClose + " }" +
		strings.Repeat("\n", strings.Count(src[closeStart:off(call.Rparen)], "\n"))
	return []edit{goKw, open, {closeStart, off(call.Rparen) + 1, tail}}
}

// needsClosure reports a compound statement holding, outside any function
// literal, what yaegi v0.16.1 compiles only inside a function: a := that
// defines more names than it has values (x, y := f(), v, ok := m[k]), a
// type switch that binds a name, a type declaration.
func needsClosure(st ast.Stmt) bool {
	switch st.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt,
		*ast.SelectStmt, *ast.BlockStmt, *ast.LabeledStmt:
	default:
		return false
	}
	return hasNode(st, false, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			return n.Tok == token.DEFINE && len(n.Lhs) > len(n.Rhs)
		case *ast.TypeSwitchStmt:
			// switch v := x.(type) crashes yaegi's compiler there.
			_, binds := n.Assign.(*ast.AssignStmt)
			return binds
		case *ast.DeclStmt:
			// A type declared in a block is "undefined type" there.
			gd, ok := n.Decl.(*ast.GenDecl)
			return ok && gd.Tok == token.TYPE
		}
		return false
	})
}

// hasNode reports whether match holds for root or a node under it;
// function literals are searched too if intoLiterals.
func hasNode(root ast.Node, intoLiterals bool, match func(ast.Node) bool) bool {
	found := false
	ast.Inspect(root, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit && !intoLiterals {
			return false
		}
		found = found || (n != nil && match(n))
		return !found
	})
	return found
}

func isFuncLitCall(st ast.Stmt) bool {
	if es, ok := st.(*ast.ExprStmt); ok {
		if call, ok := es.X.(*ast.CallExpr); ok {
			_, lit := call.Fun.(*ast.FuncLit)
			return lit
		}
	}
	return false
}

func receiverTypeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverTypeName(t.X)
	case *ast.IndexExpr:
		return receiverTypeName(t.X)
	case *ast.IndexListExpr:
		return receiverTypeName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func isPrintCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "fmt" && (strings.HasPrefix(sel.Sel.Name, "Print") || strings.HasPrefix(sel.Sel.Name, "Fprint"))
}

// foldConstantMinMax evaluates min or max of constant arguments at rewrite
// time: yaegi's generic inference rejects mixed untyped constants.
func foldConstantMinMax(name string, call *ast.CallExpr, fset *token.FileSet) (string, bool) {
	if len(call.Args) == 0 {
		return "", false
	}
	var best constant.Value
	for _, a := range call.Args {
		tv, err := types.Eval(fset, nil, token.NoPos, exprString(fset, a))
		if err != nil || tv.Value == nil {
			return "", false
		}
		v := tv.Value
		if best == nil ||
			(name == "min" && constant.Compare(v, token.LSS, best)) ||
			(name == "max" && constant.Compare(v, token.GTR, best)) {
			best = v
		}
	}
	switch best.Kind() {
	case constant.Int, constant.String:
		return "(" + best.ExactString() + ")", true
	case constant.Float:
		f, _ := constant.Float64Val(best)
		lit := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(lit, ".eEn") {
			lit += ".0"
		}
		return "(" + lit + ")", true
	}
	return "", false
}

func exprString(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	_ = printer.Fprint(&b, fset, e)
	return b.String()
}

// integerExpressions type-checks the group as well as it can on its own
// (earlier session globals of basic kinds and earlier constants declared,
// imports left empty, errors ignored) and returns the range expressions whose
// type is an integer.
func integerExpressions(fset *token.FileSet, f *ast.File, sc scopeInfo) map[ast.Expr]bool {
	var ranges []*ast.RangeStmt
	ast.Inspect(f, func(n ast.Node) bool {
		if r, ok := n.(*ast.RangeStmt); ok && r.Value == nil {
			ranges = append(ranges, r)
		}
		return true
	})
	out := map[ast.Expr]bool{}
	if len(ranges) == 0 {
		return out
	}
	// A second file declares what the session already knows.
	var extra strings.Builder
	extra.WriteString("package main\n")
	for _, c := range sc.constDecls {
		extra.WriteString(c)
		extra.WriteString("\n")
	}
	for _, r := range ranges {
		ast.Inspect(r.X, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && sc.globalType != nil {
				if t := sc.globalType(id.Name); t != nil && isIntegerKind(t.Kind()) {
					extra.WriteString("var " + id.Name + " " + t.Kind().String() + "\n")
				}
			}
			return true
		})
	}
	ef, err := parser.ParseFile(fset, "session", extra.String(), parser.SkipObjectResolution)
	files := []*ast.File{f}
	if err == nil {
		files = append(files, ef)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	_, _ = conf.Check("main", fset, files, info)
	x := &exprTypes{sc: sc}
	for _, r := range ranges {
		if tv, ok := info.Types[r.X]; ok && tv.Type != nil {
			if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
				out[r.X] = true
			}
			if b, ok := tv.Type.(*types.Basic); !ok || b.Kind() != types.Invalid {
				continue
			}
		}
		// What go/types could not type may be a compiled value.
		if t := x.typeOf(r.X); t != nil && isIntegerKind(t.Kind()) {
			out[r.X] = true
		}
	}
	return out
}

func isIntegerKind(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Uintptr }

// emptyImporter gives every import an empty, complete package: enough for
// the integer check, which never needs another package's types.
type emptyImporter struct{}

func (emptyImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndex(path, "/")+1:]
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}

var _ types.Importer = emptyImporter{}

// lineMarkers sets lineVar to the cell's line before each statement of a
// group, in its blocks too but not in function literals (they run later,
// from other cells): when the statement panics, the session reads which
// it was. yaegi v0.16.1 reports only where the interpreted function (for
// a cell, its first line) starts.
func lineMarkers(body *ast.BlockStmt, fset *token.FileSet, off func(token.Pos) int) []edit {
	var edits []edit
	mark := func(list []ast.Stmt) {
		for _, st := range list {
			switch st.(type) {
			case *ast.EmptyStmt, *ast.CaseClause, *ast.CommClause:
				continue // a switch's or select's body lists clauses
			}
			// The group's first line is the wrapper's (see positioned).
			line := fset.Position(st.Pos()).Line - 1
			edits = append(edits, edit{off(st.Pos()), off(st.Pos()), lineVar + " = " + strconv.Itoa(line) + "; "})
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			mark(n.List)
		case *ast.CaseClause:
			mark(n.Body)
		case *ast.CommClause:
			mark(n.Body)
		}
		return true
	})
	return edits
}
