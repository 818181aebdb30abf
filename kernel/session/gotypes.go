package session

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// yaegi v0.16.1 types generic calls poorly (see generic.go), so the
// rewriter types a group with go/types first: the group together with the
// session's declarations, its variables and the packages a cell can import.
// The compiled packages come from the same symbol tables yaegi uses,
// converted from reflect; slices, maps and cmp from the polyfills yaegi
// runs, so the signatures are those that are called.

// typedGroup is what go/types found in one group.
type typedGroup struct {
	info   *types.Info
	pkg    *types.Package
	nameOf func(*types.Package) string // the name the cell calls a package by, "" if none
	// inferError is go/types' first error inferring or instantiating a
	// generic call of the group, "L:C: message" ("" if none): what Go
	// says where yaegi fails.
	inferError string
	// spell writes a type as the cell can name it; ok is false where the
	// cell cannot (an unexported or unimported package's type). pkgs
	// collects the packages it names (name -> path).
	spell func(t types.Type, pkgs map[string]string) (string, bool)
}

// goTypes is a session's go/types view of its compiled packages and of
// the types its variables were declared with.
type goTypes struct {
	exported map[string]map[string]reflect.Value
	pkgName  func(path string) string
	pkgs     map[string]*types.Package // by path; filled when imported
	filled   map[string]bool
	conv     map[reflect.Type]types.Type
	// varTypes are the types of variables statements defined (x := ...),
	// as the cell would write them, with the reflect type the value had
	// then: yaegi's reflect type of an interpreted type is not the type.
	varTypes map[string]recordedType
}

type recordedType struct {
	src   string
	rtype string            // the value's reflect type when recorded
	pkgs  map[string]string // import name -> path, of the packages src names
}

func newGoTypes(exported map[string]map[string]reflect.Value, pkgName func(string) string) *goTypes {
	return &goTypes{
		exported: exported,
		pkgName:  pkgName,
		pkgs:     map[string]*types.Package{},
		filled:   map[string]bool{},
		conv:     map[reflect.Type]types.Type{},
		varTypes: map[string]recordedType{},
	}
}

// Import gives a package's types: a polyfill's, else those of its symbol
// table. An unknown path gives an empty package (its uses stay untyped).
func (g *goTypes) Import(p string) (*types.Package, error) {
	if p == "unsafe" {
		return types.Unsafe, nil
	}
	if pf, ok := polyfillTypes()[p]; ok {
		return pf, nil
	}
	pkg := g.pkg(p)
	if g.filled[p] {
		return pkg, nil
	}
	g.filled[p] = true
	for name, v := range g.exported[p+"/"+g.pkgName(p)] {
		if strings.HasPrefix(name, "_") || !v.IsValid() {
			continue // yaegi's interface wrappers
		}
		if obj := g.object(pkg, name, v); obj != nil {
			pkg.Scope().Insert(obj)
		}
	}
	pkg.MarkComplete()
	return pkg, nil
}

func (g *goTypes) pkg(p string) *types.Package {
	if pkg, ok := g.pkgs[p]; ok {
		return pkg
	}
	pkg := types.NewPackage(p, g.pkgName(p))
	g.pkgs[p] = pkg
	return pkg
}

var constantType = reflect.TypeFor[constant.Value]()

// object converts one symbol of a yaegi table: a type is stored as a nil
// pointer to it, a variable addressable, an untyped constant as a
// constant.Value.
func (g *goTypes) object(pkg *types.Package, name string, v reflect.Value) types.Object {
	t := v.Type()
	switch {
	case v.CanAddr():
		return types.NewVar(token.NoPos, pkg, name, g.typeOf(t))
	case t.Implements(constantType):
		c, ok := v.Interface().(constant.Value)
		if !ok || c == nil {
			return nil
		}
		kinds := map[constant.Kind]types.BasicKind{constant.Bool: types.UntypedBool, constant.String: types.UntypedString,
			constant.Int: types.UntypedInt, constant.Float: types.UntypedFloat, constant.Complex: types.UntypedComplex}
		k, ok := kinds[c.Kind()]
		if !ok {
			return nil
		}
		return types.NewConst(token.NoPos, pkg, name, types.Typ[k], c)
	case t.Kind() == reflect.Pointer && v.IsNil():
		tt := g.typeOf(t.Elem())
		if n, ok := tt.(*types.Named); ok && n.Obj().Pkg() == pkg && n.Obj().Name() == name {
			return n.Obj()
		}
		return types.NewTypeName(token.NoPos, pkg, name, tt) // an alias
	case t.Kind() == reflect.Func:
		return types.NewFunc(token.NoPos, pkg, name, g.signature(t, 0, nil))
	}
	if c := constantOf(v); c != nil {
		return types.NewConst(token.NoPos, pkg, name, g.typeOf(t), c)
	}
	return types.NewVar(token.NoPos, pkg, name, g.typeOf(t))
}

// constantOf is a typed constant's value (time.Second); nil for others.
func constantOf(v reflect.Value) constant.Value {
	switch v.Kind() {
	case reflect.Bool:
		return constant.MakeBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return constant.MakeInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return constant.MakeUint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return constant.MakeFloat64(v.Float())
	case reflect.String:
		return constant.MakeString(v.String())
	}
	return nil
}

var basicKinds = map[reflect.Kind]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
	reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
	reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64, reflect.Uintptr: types.Uintptr,
	reflect.Float32: types.Float32, reflect.Float64: types.Float64, reflect.Complex64: types.Complex64,
	reflect.Complex128: types.Complex128, reflect.String: types.String, reflect.UnsafePointer: types.UnsafePointer,
}

var errorType = reflect.TypeFor[error]()

// typeOf converts a compiled type. A named type is made before its
// underlying type, so recursive types end.
func (g *goTypes) typeOf(t reflect.Type) types.Type {
	if tt, ok := g.conv[t]; ok {
		return tt
	}
	if t == errorType {
		return types.Universe.Lookup("error").Type()
	}
	if t.Name() != "" && t.PkgPath() != "" && !strings.Contains(t.Name(), "[") {
		pkg := g.pkg(t.PkgPath())
		n := types.NewNamed(types.NewTypeName(token.NoPos, pkg, t.Name(), nil), nil, nil)
		g.conv[t] = n
		n.SetUnderlying(g.underlying(t))
		if t.Kind() != reflect.Interface {
			pt := reflect.PointerTo(t)
			for i := range pt.NumMethod() {
				m := pt.Method(i)
				var recv types.Type = types.NewPointer(n)
				if _, ok := t.MethodByName(m.Name); ok {
					recv = n
				}
				sig := g.signature(m.Type, 1, types.NewVar(token.NoPos, pkg, "", recv))
				n.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, sig))
			}
		}
		return n
	}
	tt := g.underlying(t)
	g.conv[t] = tt
	return tt
}

func (g *goTypes) underlying(t reflect.Type) types.Type {
	if k, ok := basicKinds[t.Kind()]; ok {
		return types.Typ[k]
	}
	switch t.Kind() {
	case reflect.Array:
		return types.NewArray(g.typeOf(t.Elem()), int64(t.Len()))
	case reflect.Slice:
		return types.NewSlice(g.typeOf(t.Elem()))
	case reflect.Pointer:
		return types.NewPointer(g.typeOf(t.Elem()))
	case reflect.Map:
		return types.NewMap(g.typeOf(t.Key()), g.typeOf(t.Elem()))
	case reflect.Chan:
		dir := map[reflect.ChanDir]types.ChanDir{reflect.BothDir: types.SendRecv, reflect.SendDir: types.SendOnly, reflect.RecvDir: types.RecvOnly}[t.ChanDir()]
		return types.NewChan(dir, g.typeOf(t.Elem()))
	case reflect.Func:
		return g.signature(t, 0, nil)
	case reflect.Struct:
		fields := make([]*types.Var, t.NumField())
		tags := make([]string, t.NumField())
		for i := range fields {
			f := t.Field(i)
			pkg := g.pkg(t.PkgPath())
			if f.PkgPath != "" {
				pkg = g.pkg(f.PkgPath)
			}
			fields[i] = types.NewField(token.NoPos, pkg, f.Name, g.typeOf(f.Type), f.Anonymous)
			tags[i] = string(f.Tag)
		}
		return types.NewStruct(fields, tags)
	case reflect.Interface:
		methods := make([]*types.Func, t.NumMethod())
		for i := range methods {
			m := t.Method(i)
			pkg := g.pkg(t.PkgPath())
			if m.PkgPath != "" {
				pkg = g.pkg(m.PkgPath)
			}
			methods[i] = types.NewFunc(token.NoPos, pkg, m.Name, g.signature(m.Type, 0, nil))
		}
		return types.NewInterfaceType(methods, nil).Complete()
	}
	return types.Typ[types.Invalid]
}

// signature converts a func type, leaving out its first skip inputs (a
// method's receiver).
func (g *goTypes) signature(t reflect.Type, skip int, recv *types.Var) *types.Signature {
	var params, results []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", g.typeOf(t.In(i))))
	}
	for i := range t.NumOut() {
		results = append(results, types.NewParam(token.NoPos, nil, "", g.typeOf(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic())
}

// cmpOrdered is cmp.Ordered, which yaegi's own cmp declares and the
// polyfill uses.
const cmpOrdered = `package cmp
type Ordered interface { ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string }
`

// polyfillTypes is the go/types view of the polyfills, by path, shared by
// sessions (it does not depend on what a session imports).
var polyfillTypes = sync.OnceValue(func() map[string]*types.Package {
	out := map[string]*types.Package{}
	fset := token.NewFileSet()
	imp := importerFunc(func(p string) (*types.Package, error) {
		if pkg, ok := out[p]; ok {
			return pkg, nil
		}
		return emptyImporter{}.Import(p) // sort: only function bodies use it
	})
	for _, p := range polyfillPackages {
		src, _ := polyfillFS.ReadFile("polyfill/" + p + ".go.txt")
		f, err := parser.ParseFile(fset, p+".go", src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		files := []*ast.File{f}
		if p == "cmp" {
			if of, err := parser.ParseFile(fset, "ordered.go", cmpOrdered, 0); err == nil {
				files = append(files, of)
			}
		} else {
			// The polyfills name cmp without importing it (yaegi's cmp is
			// visible to them).
			withImports(f, map[string]string{"cmp": "cmp"})
		}
		conf := types.Config{Importer: imp, IgnoreFuncBodies: true, Error: func(error) {}}
		pkg, _ := conf.Check(p, fset, files, nil)
		out[p] = pkg
	}
	return out
})

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// withImports adds imports (name -> path) to a parsed file.
func withImports(f *ast.File, imports map[string]string) {
	if len(imports) == 0 {
		return
	}
	gd := &ast.GenDecl{Tok: token.IMPORT}
	for name, p := range imports {
		spec := &ast.ImportSpec{Name: ast.NewIdent(name), Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(p)}}
		gd.Specs = append(gd.Specs, spec)
		f.Imports = append(f.Imports, spec)
	}
	f.Decls = append([]ast.Decl{gd}, f.Decls...)
}

// checkGroup types a group (f, parsed as yaegi sees it) with what the
// session knows: its declarations (those the group does not declare
// again, function bodies left out), the types of its variables and its
// imports. Errors are ignored: what cannot be typed stays untyped. nil if
// go/types gave up.
func (s *Session) checkGroup(fset *token.FileSet, f *ast.File, declared []string) (tg *typedGroup) {
	defer func() {
		if recover() != nil {
			tg = nil
		}
	}()
	again := map[string]bool{}
	for _, n := range declared {
		again[n] = true
	}
	var src strings.Builder
	src.WriteString("package main\n")
	for _, d := range s.decls.all() {
		if again[d.name] || (d.kind == "method" && again[d.name[:strings.IndexByte(d.name, '.')]]) {
			continue
		}
		src.WriteString(d.src)
		src.WriteString("\n")
	}
	globals := s.globals()
	x := &exprTypes{sc: s.scope()}
	spelled := map[string]bool{} // packages the variables' reflect types name
	for name, v := range globals {
		if _, ok := s.decls.get(name); ok || again[name] || strings.HasPrefix(name, "__commlab") || !v.IsValid() {
			continue
		}
		if r, ok := s.types.varTypes[name]; ok && r.rtype == v.Type().String() {
			src.WriteString("var " + name + " " + r.src + "\n")
			continue
		}
		if ts, ok := x.spell(v.Type(), spelled); ok && !yaegiBuilt(v.Type()) {
			src.WriteString("var " + name + " " + ts + "\n")
		}
	}
	// Each file imports the packages it names, of those the cell can
	// name: the session's imports, then what auto-import would add.
	// Converting a package's table costs; one never named is not.
	sessionImports, cellImports := map[string]string{}, map[string]string{}
	for _, id := range f.Unresolved {
		_, global := globals[id.Name]
		if _, decl := s.decls.get(id.Name); !global && !decl && s.pathOf(id.Name) != "" {
			cellImports[id.Name] = s.pathOf(id.Name)
		}
	}
	text := src.String()
	for _, im := range s.imports {
		if strings.Contains(text, im.name+".") {
			sessionImports[im.name] = im.path
		}
	}
	for name := range spelled {
		sessionImports[name] = s.pathOf(name)
	}
	for name, r := range s.types.varTypes {
		for n, p := range r.pkgs {
			if _, ok := globals[name]; ok {
				sessionImports[n] = p
			}
		}
	}
	sf, err := parser.ParseFile(fset, "session", text, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	for _, d := range sf.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			fd.Body = nil // only signatures matter; the group's own bodies are typed
		}
	}
	withImports(sf, sessionImports)
	cf := *f
	cf.Decls = append([]ast.Decl(nil), f.Decls...)
	cf.Imports = append([]*ast.ImportSpec(nil), f.Imports...)
	withImports(&cf, cellImports)

	info := &types.Info{
		Types:     map[ast.Expr]types.TypeAndValue{},
		Defs:      map[*ast.Ident]types.Object{},
		Uses:      map[*ast.Ident]types.Object{},
		Instances: map[*ast.Ident]types.Instance{},
	}
	// Other errors may come of what the session could not type (a
	// variable left out), and are not reported.
	inferError := ""
	conf := types.Config{Importer: s.types, Error: func(err error) {
		te, ok := err.(types.Error)
		if !ok || inferError != "" || !genericError.MatchString(te.Msg) {
			return
		}
		if p := fset.Position(te.Pos); p.Filename == "" {
			// A polyfill's positions are not the cell's.
			msg := strings.ReplaceAll(te.Msg, " (declared at -)", "")
			inferError = fmt.Sprintf("%d:%d: %s", p.Line, p.Column, msg)
		}
	}}
	pkg, _ := conf.Check("main", fset, []*ast.File{sf, &cf}, info)
	if pkg == nil {
		return nil
	}
	tg = &typedGroup{info: info, pkg: pkg, nameOf: s.spellingName(globals), inferError: inferError}
	tg.spell = func(t types.Type, pkgs map[string]string) (string, bool) {
		return spellType(t, pkg, tg.nameOf, pkgs)
	}
	return tg
}

// genericError is how go/types words a generic call it cannot infer or
// instantiate.
var genericError = regexp.MustCompile(`^in call to |cannot infer |does not satisfy `)

// spellingName gives the name a cell can call a package by: its import
// name, else its own name where auto-import would add it and no session
// name hides it; "" if none.
func (s *Session) spellingName(globals map[string]reflect.Value) func(p *types.Package) string {
	return func(p *types.Package) string {
		for _, im := range s.imports {
			if im.path == p.Path() {
				return im.name
			}
		}
		name := p.Name()
		if _, ok := globals[name]; ok {
			return ""
		}
		if _, ok := s.decls.get(name); ok {
			return ""
		}
		if s.known[name] == p.Path() && !s.importedName(name) {
			return name
		}
		return ""
	}
}

func (s *Session) importedName(name string) bool {
	for _, im := range s.imports {
		if im.name == name {
			return true
		}
	}
	return false
}

// yaegiBuilt reports a type yaegi made for an interpreted one (a struct,
// or an interface, func or chan of them): reflect does not name it as the
// cell does.
func yaegiBuilt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return t.Name() == ""
	case reflect.Slice, reflect.Array, reflect.Pointer, reflect.Chan:
		return yaegiBuilt(t.Elem())
	case reflect.Map:
		return yaegiBuilt(t.Key()) || yaegiBuilt(t.Elem())
	}
	return false
}

// walkType calls visit on t and on every type it is built from (typeParts),
// each once, going into a type's parts only where visit returns true.
func walkType(t types.Type, visit func(types.Type) bool) {
	seen := map[types.Type]bool{}
	var walk func(types.Type)
	walk = func(t types.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		if visit(t) {
			for _, part := range typeParts(t) {
				walk(part)
			}
		}
	}
	walk(t)
}

// typeParts are the types t is written with: element, key, type
// arguments, parameters and results, fields, an interface's methods and
// embedded types.
func typeParts(t types.Type) []types.Type {
	var parts []types.Type
	switch t := types.Unalias(t).(type) {
	case *types.Pointer:
		parts = append(parts, t.Elem())
	case *types.Slice:
		parts = append(parts, t.Elem())
	case *types.Array:
		parts = append(parts, t.Elem())
	case *types.Chan:
		parts = append(parts, t.Elem())
	case *types.Map:
		parts = append(parts, t.Key(), t.Elem())
	case *types.Named:
		for i := range t.TypeArgs().Len() {
			parts = append(parts, t.TypeArgs().At(i))
		}
	case *types.Signature:
		for i := range t.Params().Len() {
			parts = append(parts, t.Params().At(i).Type())
		}
		for i := range t.Results().Len() {
			parts = append(parts, t.Results().At(i).Type())
		}
	case *types.Struct:
		for i := range t.NumFields() {
			parts = append(parts, t.Field(i).Type())
		}
	case *types.Interface:
		for i := range t.NumExplicitMethods() {
			parts = append(parts, t.ExplicitMethod(i).Type())
		}
		for i := range t.NumEmbeddeds() {
			parts = append(parts, t.EmbeddedType(i))
		}
	}
	return parts
}

// spellType writes t as Go source in the group's package, naming other
// packages as nameOf says (pkgs collects those names); ok is false for a
// type the cell cannot name.
func spellType(t types.Type, main *types.Package, nameOf func(*types.Package) string, pkgs map[string]string) (string, bool) {
	ok := true
	walkType(t, func(t types.Type) bool {
		if !ok {
			return false // one part the cell cannot name is enough
		}
		switch t := types.Unalias(t).(type) {
		case *types.Basic:
			if t.Kind() == types.Invalid || t.Info()&types.IsUntyped != 0 || t.Kind() == types.UnsafePointer {
				ok = false
			}
		case *types.Named:
			obj := t.Obj()
			if obj.Pkg() != nil && obj.Pkg() != main {
				name := nameOf(obj.Pkg())
				if !obj.Exported() || name == "" {
					ok = false
					return false
				}
				pkgs[name] = obj.Pkg().Path()
			}
		case *types.Struct:
			for i := range t.NumFields() {
				if f := t.Field(i); !f.Exported() && f.Pkg() != main {
					ok = false
				}
			}
		case *types.Interface:
			for i := range t.NumExplicitMethods() {
				if m := t.ExplicitMethod(i); !m.Exported() && m.Pkg() != main {
					ok = false
				}
			}
		case *types.Pointer, *types.Slice, *types.Array, *types.Chan, *types.Map, *types.Signature, *types.TypeParam:
		default:
			ok = false
		}
		return ok
	})
	if !ok {
		return "", false
	}
	return types.TypeString(t, func(p *types.Package) string {
		if p == main {
			return ""
		}
		return nameOf(p)
	}), true
}

// namedGeneric reports a generic function by name: qualifier.name of a
// polyfilled package (unless a session name hides the package), or a
// generic function the session declared.
func (s *Session) namedGeneric(globals map[string]reflect.Value) func(qualifier, name string) bool {
	return func(qualifier, name string) bool {
		if qualifier == "" {
			d, ok := s.decls.get(name)
			return ok && d.generic
		}
		if _, ok := globals[qualifier]; ok {
			return false
		}
		if _, ok := s.decls.get(qualifier); ok {
			return false
		}
		return polyfillTypes()[s.pathOf(qualifier)] != nil
	}
}

// recordVarTypes keeps the types of the variables a compiled statement
// group defines; a name it defines with no type known forgets the old one.
func (s *Session) recordVarTypes(rw rewriteResult) {
	globals := s.globals()
	for _, name := range rw.declared {
		r, ok := rw.varTypes[name]
		v := globals[name]
		if !ok || !v.IsValid() {
			delete(s.types.varTypes, name)
			continue
		}
		r.rtype = v.Type().String()
		s.types.varTypes[name] = r
	}
}

// typeName writes a type for a message, packages by their names.
func (tg *typedGroup) typeName(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == tg.pkg {
			return ""
		}
		return p.Name()
	})
}
