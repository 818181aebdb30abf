package session

import (
	"go/ast"
	"go/token"
	"reflect"
	"strconv"
	"strings"
)

// yaegi v0.16.1 cannot type an index or slice expression of a compiled
// slice, array or map when it declares a session variable
// (`n0 := nodes[0]` gives "constant definition loop", `pp :=
// res.Runs[0].Params` a nil pointer dereference): its type pass knows the
// element type only of slices it built itself. A conversion to the
// variable's own type tells it the type without looking inside, so the
// rewriter wraps such a value in one, with the type taken from the
// compiled values the session holds (reflect).

// exprTypes types the expressions of one group's top-level statements as
// far as the session's compiled values tell: session variables, package
// symbols, fields, methods, calls, indexing.
type exprTypes struct {
	sc  scopeInfo
	env map[string]reflect.Type // names the group defined so far; nil: unknown type
}

func (x *exprTypes) typeOf(e ast.Expr) reflect.Type {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return x.typeOf(e.X)
	case *ast.Ident:
		if t, ok := x.env[e.Name]; ok {
			return t
		}
		if x.sc.globalType != nil {
			return x.sc.globalType(e.Name)
		}
	case *ast.SelectorExpr:
		if id, ok := e.X.(*ast.Ident); ok && x.sc.pkgSymbol != nil {
			if _, shadowed := x.env[id.Name]; !shadowed && (x.sc.globalType == nil || x.sc.globalType(id.Name) == nil) {
				if v, ok := x.sc.pkgSymbol(id.Name, e.Sel.Name); ok {
					return symbolType(v)
				}
			}
		}
		return memberType(x.typeOf(e.X), e.Sel.Name)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") {
			if _, shadowed := x.env[id.Name]; !shadowed {
				return reflect.TypeFor[int]()
			}
		}
		if ft := x.typeOf(e.Fun); ft != nil && ft.Kind() == reflect.Func && ft.NumOut() >= 1 {
			return ft.Out(0)
		}
	case *ast.IndexExpr:
		return elemType(x.typeOf(e.X))
	case *ast.SliceExpr:
		t := x.typeOf(e.X)
		switch {
		case t == nil:
		case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Array:
			return reflect.SliceOf(t.Elem().Elem())
		case t.Kind() == reflect.Array:
			return reflect.SliceOf(t.Elem())
		case t.Kind() == reflect.Slice || t.Kind() == reflect.String:
			return t
		}
	case *ast.StarExpr:
		if t := x.typeOf(e.X); t != nil && t.Kind() == reflect.Pointer {
			return t.Elem()
		}
	case *ast.UnaryExpr:
		if t := x.typeOf(e.X); t != nil && e.Op == token.AND {
			return reflect.PointerTo(t)
		}
	}
	return nil
}

// symbolType is the type of a value in a yaegi symbol table; a type symbol
// (stored as a nil pointer to the type) and an untyped constant have none.
func symbolType(v reflect.Value) reflect.Type {
	if !v.IsValid() {
		return nil
	}
	t := v.Type()
	if t.Kind() == reflect.Pointer && v.IsNil() || t.PkgPath() == "go/constant" {
		return nil
	}
	return t
}

func memberType(t reflect.Type, name string) reflect.Type {
	if t == nil {
		return nil
	}
	if m, ok := t.MethodByName(name); ok {
		return m.Type
	}
	if t.Kind() != reflect.Interface {
		if m, ok := reflect.PointerTo(t).MethodByName(name); ok {
			return m.Type
		}
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		if f, ok := st.FieldByName(name); ok && f.IsExported() {
			return f.Type
		}
	}
	return nil
}

func elemType(t reflect.Type) reflect.Type {
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return t.Elem()
	case reflect.String:
		return reflect.TypeFor[byte]()
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Array {
			return t.Elem().Elem()
		}
	}
	return nil
}

// spell writes a compiled type as Go source, through the packages the cell
// can name (pkgs collects those it uses). It fails on what source cannot
// name: types yaegi built (unnamed structs), functions, channels,
// interfaces other than error and any.
func (x *exprTypes) spell(t reflect.Type, pkgs map[string]bool) (string, bool) {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			return t.Name(), true // int, error, ...
		}
		name, rest, _ := strings.Cut(t.String(), ".")
		if _, shadowed := x.env[name]; shadowed || strings.Contains(rest, "[") || x.sc.pkgPath == nil || x.sc.pkgPath(name) != t.PkgPath() {
			return "", false
		}
		if x.sc.pkgSymbol == nil {
			return "", false
		}
		if v, ok := x.sc.pkgSymbol(name, t.Name()); !ok || v.Kind() != reflect.Pointer || v.Type().Elem() != t {
			return "", false // a type the package's table does not name
		}
		pkgs[name] = true
		return t.String(), true
	}
	switch t.Kind() {
	case reflect.Slice:
		e, ok := x.spell(t.Elem(), pkgs)
		return "[]" + e, ok
	case reflect.Array:
		e, ok := x.spell(t.Elem(), pkgs)
		return "[" + strconv.Itoa(t.Len()) + "]" + e, ok
	case reflect.Pointer:
		e, ok := x.spell(t.Elem(), pkgs)
		return "*" + e, ok
	case reflect.Map:
		k, ok1 := x.spell(t.Key(), pkgs)
		v, ok2 := x.spell(t.Elem(), pkgs)
		return "map[" + k + "]" + v, ok1 && ok2
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "any", true
		}
	}
	return "", false
}

// hasIndex reports an index or slice expression outside function literals.
func hasIndex(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IndexExpr, *ast.SliceExpr:
			found = true
		}
		return !found
	})
	return found
}

// convertCompiledValues returns the edits that wrap the values of the
// group's top-level := and var statements in a conversion to their own
// compiled type where they index a compiled value, and the packages those
// conversions name.
func convertCompiledValues(body []ast.Stmt, sc scopeInfo, off func(token.Pos) int) (edits []edit, pkgs []string) {
	x := &exprTypes{sc: sc, env: map[string]reflect.Type{}}
	used := map[string]bool{}
	define := func(names []*ast.Ident, values []ast.Expr) {
		for i, n := range names {
			var t reflect.Type
			if len(names) == len(values) {
				t = x.typeOf(values[i])
				if t != nil && hasIndex(values[i]) {
					if s, ok := x.spell(t, used); ok {
						if strings.HasPrefix(s, "*") {
							s = "(" + s + ")" // *T(v) would dereference the conversion T(v)
						}
						edits = append(edits, edit{off(values[i].Pos()), off(values[i].Pos()), s + "("}, edit{off(values[i].End()), off(values[i].End()), ")"})
					}
				}
			}
			if n.Name != "_" {
				x.env[n.Name] = t
			}
		}
	}
	for _, st := range body {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok != token.DEFINE {
				continue
			}
			names := make([]*ast.Ident, 0, len(st.Lhs))
			for _, l := range st.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					names = append(names, id)
				}
			}
			if len(names) == len(st.Lhs) {
				define(names, st.Rhs)
			}
		case *ast.DeclStmt:
			gd, ok := st.Decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					if vs.Type != nil {
						define(vs.Names, nil) // typed already
						continue
					}
					define(vs.Names, vs.Values)
				}
			}
		}
	}
	for p := range used {
		pkgs = append(pkgs, p)
	}
	return edits, pkgs
}

// pkgSymbol looks a symbol up in the compiled package a name refers to in
// a cell (an import in effect, else the package auto-import would add).
func (s *Session) pkgSymbol(pkg, name string) (reflect.Value, bool) {
	p := s.pathOf(pkg)
	if p == "" {
		return reflect.Value{}, false
	}
	v, ok := s.exported[p+"/"+s.packageName(p)][name]
	return v, ok
}

// sessionVars reports the variables earlier cells defined (not constants).
func (s *Session) sessionVars() func(name string) bool {
	globals := s.globals()
	return func(name string) bool {
		if _, ok := globals[name]; !ok {
			return false
		}
		d, ok := s.decls.get(name)
		return !ok || d.kind != "const"
	}
}
