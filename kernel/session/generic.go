package session

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"
)

// yaegi v0.16.1 and generic calls:
//   - It infers type arguments by position: walking each parameter field
//     against the argument at the same index, it lists the types it meets
//     where the parameter names a type parameter, and gives the i-th type
//     parameter the i-th type listed. Map(xs []T, f func(T) U) lists T, T,
//     U, so U gets T's type. It cannot walk into a compiled value at all
//     (slices.Sort(strings.Fields(s)) is a nil pointer dereference). Every
//     call is therefore given its type arguments, as go/types infers them:
//     Map[int, string](...).
//   - A variable declared from a generic call at the top level of a cell
//     (b := slices.Clone(a)) breaks its compiler (a nil pointer
//     dereference, "nil reflect type"), and a var statement initialized by
//     one (var b = slices.Clone(a)), anywhere, keeps the zero value. The
//     value converted to its own type declares it (b :=
//     []int(slices.Clone(a))); a var gets its value by assignment (var b
//     []int; b = slices.Clone(a)).

// genericRewrite is what a group needs for its generic calls.
type genericRewrite struct {
	edits    []edit
	closures map[ast.Stmt]bool // compound top-level statements to run inside a function
	leadVar  bool              // the group's first statement now starts with var
	pkgs     map[string]string // packages the written types name (name -> path)
	// unnamed says why a call keeps yaegi's inference: a type argument
	// the cell cannot name ("" if none).
	unnamed string
	// varTypes are the types of the names the statements define at the
	// top level, as the cell would write them.
	varTypes map[string]recordedType
}

// genericCall is a call of a generic function.
type genericCall struct {
	fn       *types.Func // the generic function
	inst     types.Instance
	callee   ast.Expr // the function, without type arguments
	explicit []ast.Expr
	lbrack   token.Pos // of explicit type arguments
	rbrack   token.Pos
}

func (tg *typedGroup) genericCall(call *ast.CallExpr) *genericCall {
	g := &genericCall{callee: ast.Unparen(call.Fun)}
	switch f := g.callee.(type) {
	case *ast.IndexExpr:
		g.callee, g.explicit, g.lbrack, g.rbrack = f.X, []ast.Expr{f.Index}, f.Lbrack, f.Rbrack
	case *ast.IndexListExpr:
		g.callee, g.explicit, g.lbrack, g.rbrack = f.X, f.Indices, f.Lbrack, f.Rbrack
	}
	var id *ast.Ident
	switch f := g.callee.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, ok := tg.info.Uses[id].(*types.Func)
	if !ok {
		return nil
	}
	inst, ok := tg.info.Instances[id]
	if !ok || inst.TypeArgs == nil {
		return nil
	}
	for i := range inst.TypeArgs.Len() {
		if b, ok := inst.TypeArgs.At(i).(*types.Basic); ok && b.Kind() == types.Invalid {
			return nil
		}
	}
	g.fn, g.inst = fn, inst
	return g
}

// genericCallsIn lists the generic calls of e outside function literals,
// which run when e is evaluated.
func (tg *typedGroup) genericCallsIn(e ast.Node) []*genericCall {
	var out []*genericCall
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if g := tg.genericCall(n); g != nil {
				out = append(out, g)
			}
		}
		return true
	})
	return out
}

// resultNamesTypeParam reports a generic function whose result types
// depend on its type parameters: a variable declared from its call needs
// the conversion.
func resultNamesTypeParam(fn *types.Func) bool {
	sig, ok := fn.Origin().Type().(*types.Signature)
	if !ok {
		return false
	}
	found := false
	visit := func(t types.Type) bool {
		switch types.Unalias(t).(type) {
		case *types.TypeParam:
			found = true
		case *types.Interface:
			return false // a result's interface methods are not searched
		}
		return !found
	}
	for i := range sig.Results().Len() {
		walkType(sig.Results().At(i).Type(), visit)
	}
	return found
}

// conversion is a type written so that T(x) converts to it.
func conversion(t string) string {
	for _, p := range []string{"*", "func", "<-", "chan"} {
		if strings.HasPrefix(t, p) {
			return "(" + t + ")"
		}
	}
	return t
}

// rewriteGenerics computes the edits that let yaegi run a group's generic
// calls (see the top of this file). src is the group's text, off maps a
// position to an offset in it.
func rewriteGenerics(kind itemKind, f *ast.File, body *ast.BlockStmt, tg *typedGroup, fset *token.FileSet, src string, off func(token.Pos) int) (genericRewrite, error) {
	gr := genericRewrite{closures: map[ast.Stmt]bool{}, pkgs: map[string]string{}, varTypes: map[string]recordedType{}}
	at := func(p token.Pos, format string, args ...any) error {
		pos := fset.Position(p)
		return fmt.Errorf("%d:%d: %s", pos.Line, pos.Column, fmt.Sprintf(format, args...))
	}
	text := func(n ast.Node) string { return src[off(n.Pos()):off(n.End())] }
	spell := func(t types.Type) (string, bool) { return tg.spell(t, gr.pkgs) }

	var err error
	fail := func(e error) {
		if err == nil {
			err = e
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if e := tg.typeArguments(n, &gr, text, off, at); e != nil {
				fail(e)
			}
		case *ast.DeclStmt:
			if e := tg.varByAssignment(n, &gr, text, off, at); e != nil {
				fail(e)
			}
		}
		return true
	})
	if err != nil {
		return gr, err
	}
	if kind == itemDecl {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for _, v := range vs.Values {
					if calls := tg.genericCallsIn(v); len(calls) > 0 {
						// varsAsStatements moves such a var to the statements
						// unless a declaration beside it uses it.
						return gr, at(vs.Pos(), "the interpreter cannot initialize package-level variable %s from a generic call (%s) beside declarations that use it: declare %s in a cell of its own",
							vs.Names[0].Name, text(calls[0].callee), vs.Names[0].Name)
					}
				}
			}
		}
		return gr, nil
	}
	if body == nil {
		return gr, nil
	}
	for i, st := range body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok != token.DEFINE {
				continue
			}
			if len(st.Lhs) == len(st.Rhs) {
				for j, rhs := range st.Rhs {
					calls := tg.genericCallsIn(rhs)
					if len(calls) == 0 {
						continue
					}
					if ts, ok := spell(tg.info.TypeOf(rhs)); ok {
						gr.edits = append(gr.edits, edit{off(rhs.Pos()), off(rhs.Pos()), conversion(ts) + "("}, edit{off(rhs.End()), off(rhs.End()), ")"})
						continue
					}
					for _, c := range calls {
						if !resultNamesTypeParam(c.fn) {
							continue
						}
						if gr.unnamed != "" {
							return gr, at(rhs.Pos(), "%s", gr.unnamed)
						}
						return gr, at(rhs.Pos(), "cannot declare %s from %s at the top level of a cell: the interpreter needs its type, which the cell cannot name; use the value inside a function (func() { ... }())",
							text(st.Lhs[j]), text(c.callee))
					}
				}
				continue
			}
			// yaegi v0.16.1 cannot define the two names of a comma-ok
			// form (v, ok := m[k], x.(T), <-ch) at the top level of a
			// cell ("nil type") either: declare them, then assign.
			if len(st.Rhs) != 1 || (len(tg.genericCallsIn(st.Rhs[0])) == 0 && !isCommaOk(st)) {
				continue
			}
			tuple, ok := tg.info.TypeOf(st.Rhs[0]).(*types.Tuple)
			if !ok || tuple.Len() != len(st.Lhs) {
				continue
			}
			var decls strings.Builder
			for j, l := range st.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok || id.Name == "_" || tg.info.Defs[id] == nil {
					continue
				}
				ts, ok := spell(tuple.At(j).Type())
				if !ok && gr.unnamed != "" {
					return gr, at(id.Pos(), "%s", gr.unnamed)
				}
				if !ok {
					return gr, at(id.Pos(), "cannot declare %s from %s at the top level of a cell: the interpreter needs its type, which the cell cannot name; use the values inside a function (func() { ... }())",
						id.Name, text(st.Rhs[0]))
				}
				decls.WriteString("var " + id.Name + " " + ts + "; ")
			}
			gr.edits = append(gr.edits, edit{off(st.Pos()), off(st.Pos()), decls.String()}, edit{off(st.TokPos), off(st.TokPos) + 2, "="})
			if i == 0 {
				gr.leadVar = true
			}
		case *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.LabeledStmt:
			// A variable these statements declare is local: inside a
			// function, yaegi declares it from a generic call.
			ast.Inspect(st, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.AssignStmt:
					if n.Tok == token.DEFINE {
						for _, r := range n.Rhs {
							if len(tg.genericCallsIn(r)) > 0 {
								gr.closures[st] = true
							}
						}
					}
				}
				return !gr.closures[st]
			})
		}
	}
	gr.recordTopLevel(body, tg)
	return gr, nil
}

// typeArguments writes the type arguments of a generic call the cell
// leaves (some of) to inference.
func (tg *typedGroup) typeArguments(call *ast.CallExpr, gr *genericRewrite, text func(ast.Node) string, off func(token.Pos) int, at func(token.Pos, string, ...any) error) error {
	g := tg.genericCall(call)
	if g == nil || len(g.explicit) == g.inst.TypeArgs.Len() {
		return nil
	}
	if err := tg.checkCompiledTypeArgs(g, call, text, at); err != nil {
		return err
	}
	args := make([]string, g.inst.TypeArgs.Len())
	for i := range args {
		s, ok := tg.spell(g.inst.TypeArgs.At(i), gr.pkgs)
		if !ok {
			// Left to yaegi's inference, which may work (it fails on
			// compiled values other than a whole argument).
			if gr.unnamed == "" {
				gr.unnamed = fmt.Sprintf("cannot infer the type arguments of %s for the interpreter, and %s cannot be named in the cell to write them: do it without calling %s",
					text(g.callee), tg.typeName(g.inst.TypeArgs.At(i)), text(g.callee))
			}
			return nil
		}
		args[i] = s
	}
	list := "[" + strings.Join(args, ", ") + "]"
	if len(g.explicit) == 0 {
		gr.edits = append(gr.edits, edit{off(g.callee.End()), off(g.callee.End()), list})
	} else {
		gr.edits = append(gr.edits, edit{off(g.lbrack), off(g.rbrack) + 1, list})
	}
	return nil
}

// checkCompiledTypeArgs refuses a compiled named type (time.Duration) as
// the type argument of a type parameter whose constraint lists types
// (cmp.Ordered): yaegi does not see a compiled type's underlying type and
// fails on it, inferred or written.
func (tg *typedGroup) checkCompiledTypeArgs(g *genericCall, call *ast.CallExpr, text func(ast.Node) string, at func(token.Pos, string, ...any) error) error {
	sig, ok := g.fn.Origin().Type().(*types.Signature)
	if !ok {
		return nil
	}
	for i := range min(g.inst.TypeArgs.Len(), sig.TypeParams().Len()) {
		named, ok := types.Unalias(g.inst.TypeArgs.At(i)).(*types.Named)
		tp := sig.TypeParams().At(i)
		if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg() == tg.pkg || !listsTypes(tp.Constraint()) {
			continue
		}
		msg := fmt.Sprintf("cannot use %s as %s in %s: the interpreter cannot check a compiled type against constraint %s",
			tg.typeName(named), tp.Obj().Name(), text(g.callee), tg.typeName(tp.Constraint()))
		if under, ok := tg.spell(named.Underlying(), map[string]string{}); ok {
			msg += "; convert the values to " + under
		}
		if sel, ok := g.callee.(*ast.SelectorExpr); ok && polyfillTypes()[g.fn.Pkg().Path()] == g.fn.Pkg() {
			if variant := g.fn.Pkg().Scope().Lookup(sel.Sel.Name + "Func"); variant != nil {
				msg += fmt.Sprintf(", or call %sFunc with a comparison", text(g.callee))
			}
		}
		return at(call.Pos(), "%s", msg)
	}
	return nil
}

// listsTypes reports a constraint with a type list (~int | ~string ...),
// not only methods or comparable.
func listsTypes(c types.Type) bool {
	iface, ok := c.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := range iface.NumEmbeddeds() {
		switch e := types.Unalias(iface.EmbeddedType(i)).(type) {
		case *types.Union:
			return true
		default:
			if listsTypes(e) {
				return true
			}
		}
	}
	return false
}

// varByAssignment turns `var x T = call` (or `var x = call`), where call
// holds a generic call, into `var x T; x = call`.
func (tg *typedGroup) varByAssignment(ds *ast.DeclStmt, gr *genericRewrite, text func(ast.Node) string, off func(token.Pos) int, at func(token.Pos, string, ...any) error) error {
	gd, ok := ds.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return nil
	}
	var calls []*genericCall
	for _, s := range gd.Specs {
		for _, v := range s.(*ast.ValueSpec).Values {
			calls = append(calls, tg.genericCallsIn(v)...)
		}
	}
	vs := gd.Specs[0].(*ast.ValueSpec)
	commaOk := len(gd.Specs) == 1 && len(vs.Values) == 1 && len(vs.Names) == 2 &&
		isCommaOk(&ast.AssignStmt{Lhs: []ast.Expr{vs.Names[0], vs.Names[1]}, Rhs: vs.Values})
	if len(calls) == 0 && !commaOk {
		return nil
	}
	if len(calls) == 0 {
		calls = []*genericCall{{callee: vs.Values[0]}}
	}
	if gd.Lparen.IsValid() || len(gd.Specs) != 1 {
		return at(gd.Pos(), "the interpreter cannot initialize a var group from a generic call (%s): declare the variable on its own, var %s = ...",
			text(calls[0].callee), vs.Names[0].Name)
	}
	names := make([]string, len(vs.Names))
	for i, n := range vs.Names {
		names[i] = n.Name
	}
	list := strings.Join(names, ", ")
	decl := ""
	if vs.Type != nil {
		decl = list + " " + text(vs.Type)
	} else {
		var typesOf []string
		for _, n := range vs.Names {
			obj := tg.info.Defs[n]
			ts, ok := "", false
			if obj != nil {
				ts, ok = tg.spell(obj.Type(), gr.pkgs)
			}
			if !ok {
				return at(n.Pos(), "cannot declare %s from %s: the interpreter needs its type, which the cell cannot name; declare it with := inside a function",
					n.Name, text(calls[0].callee))
			}
			typesOf = append(typesOf, ts)
		}
		same := true
		for _, ts := range typesOf {
			same = same && ts == typesOf[0]
		}
		if same {
			decl = list + " " + typesOf[0]
		} else {
			parts := make([]string, len(names))
			for i := range names {
				parts[i] = names[i] + " " + typesOf[i]
			}
			decl = strings.Join(parts, "; var ")
		}
	}
	from, to := off(vs.Names[0].Pos()), off(vs.Values[0].Pos())
	lines := strings.Count(text(vs)[:to-from], "\n")
	gr.edits = append(gr.edits, edit{from, to, decl + "; " + list + " = " + strings.Repeat("\n", lines)})
	return nil
}

// recordTopLevel keeps the types of the names the statements define at
// the top level, as the cell would write them.
func (gr *genericRewrite) recordTopLevel(body *ast.BlockStmt, tg *typedGroup) {
	record := func(id *ast.Ident) {
		obj := tg.info.Defs[id]
		if obj == nil || id.Name == "_" {
			return
		}
		pkgs := map[string]string{}
		if ts, ok := tg.spell(obj.Type(), pkgs); ok {
			gr.varTypes[id.Name] = recordedType{src: ts, pkgs: pkgs}
		}
	}
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						record(id)
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, s := range gd.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						record(n)
					}
				}
			}
		}
	}
}

// calleeName is the function a call names, f or pkg.F, with type
// arguments or not; name is "" for any other call.
func calleeName(call *ast.CallExpr) (qualifier, name string) {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	switch f := fun.(type) {
	case *ast.Ident:
		return "", f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name, f.Sel.Name
		}
	}
	return "", ""
}

// callsGeneric reports a call of a function that generic says is generic
// by its name; function literals are searched too if intoLiterals.
func callsGeneric(n ast.Node, generic func(qualifier, name string) bool, intoLiterals bool) bool {
	return hasNode(n, intoLiterals, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		q, name := calleeName(call)
		return name != "" && generic(q, name)
	})
}

// genericFuncs lists the generic functions a file declares.
func genericFuncs(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Type.TypeParams != nil {
			out[fd.Name.Name] = true
		}
	}
	return out
}

// interpreterCrash is how yaegi fails on generic code it cannot compile.
var interpreterCrash = regexp.MustCompile(`nil pointer dereference|nil reflect type|CFG post-order panic|undefined type for`)

// explainCrash words a compile failure of the interpreter on a group with
// generic calls as a Go error: go/types' own, else one at the first call,
// with what to do instead.
func (rw rewriteResult) explainCrash(err error) error {
	if rw.firstGeneric == "" || !interpreterCrash.MatchString(err.Error()) {
		return err
	}
	if rw.typeError != "" {
		return errors.New(rw.typeError)
	}
	pos, name, _ := strings.Cut(rw.firstGeneric, " ")
	if rw.unnamedTypeArg != "" {
		return fmt.Errorf("%s %s", pos, rw.unnamedTypeArg)
	}
	return fmt.Errorf("%s the interpreter cannot compile this use of generic function %s: call it inside a function (func() { ... }()), or write its type arguments (%s[T](...))", pos, name, name)
}

// isCommaOk reports v, ok := of a map index, a type assertion or a
// channel receive.
func isCommaOk(st *ast.AssignStmt) bool {
	if len(st.Lhs) != 2 || len(st.Rhs) != 1 {
		return false
	}
	switch x := ast.Unparen(st.Rhs[0]).(type) {
	case *ast.IndexExpr, *ast.TypeAssertExpr:
		return true
	case *ast.UnaryExpr:
		return x.Op == token.ARROW
	}
	return false
}
