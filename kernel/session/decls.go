package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// declaration is one top-level declaration as last defined in the session.
type declaration struct {
	name    string // "f", "T", "T.M", "x"
	kind    string // "func", "method", "type", "var", "const"
	src     string // the declaration's own text, ready for "package main;"
	uses    map[string]bool
	serial  int  // order of first definition, kept on redefinition
	generic bool // a function with type parameters
	// stub, when set, stands in for src, which no longer compiles since
	// a name it uses was redefined (see brokenStub).
	stub string
}

// declTable remembers every top-level declaration so that a redefinition
// can take effect everywhere: yaegi compiles a call to f once, so functions
// that call an old f keep calling it until they are compiled again.
type declTable struct {
	byName map[string]*declaration
	next   int
}

func newDeclTable() *declTable { return &declTable{byName: map[string]*declaration{}} }

// record parses a group of declarations and stores each one separately.
// It returns the names whose text changed (new names included).
func (t *declTable) record(src string) (changed []string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", declPrefix+src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	full := declPrefix + src
	base := fset.File(f.Pos()).Base()
	text := func(n ast.Node) string { return full[int(n.Pos())-base : int(n.End())-base] }
	put := func(name, kind, src string, node ast.Node) {
		d, ok := t.byName[name]
		if ok && d.src == src {
			return
		}
		if !ok {
			t.next++
			d = &declaration{name: name, serial: t.next}
			t.byName[name] = d
		}
		fd, isFunc := node.(*ast.FuncDecl)
		d.kind, d.src, d.uses, d.stub = kind, src, identifiers(node), ""
		d.generic = isFunc && fd.Type.TypeParams != nil
		changed = append(changed, name)
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 {
				put(receiverTypeName(d.Recv.List[0].Type)+"."+d.Name.Name, "method", text(d), d)
			} else {
				put(d.Name.Name, "func", text(d), d)
			}
		case *ast.GenDecl:
			kw := d.Tok.String()
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					put(s.Name.Name, "type", "type "+text(s), s)
				case *ast.ValueSpec:
					// Keep a multi-name spec whole (var a, b = f()).
					spec := kw + " " + text(s)
					for _, n := range s.Names {
						put(n.Name, kw, spec, s)
					}
				}
			}
		}
	}
	return changed
}

// forget drops names defined by statements (x := ...), which shadow any
// earlier declaration of the same name.
func (t *declTable) forget(name string) { delete(t.byName, name) }

func (t *declTable) get(name string) (*declaration, bool) {
	d, ok := t.byName[name]
	return d, ok
}

// dependents lists, in definition order, the functions, methods and types
// that use any of names directly or through each other: these must be
// compiled again for a redefinition to reach them.
func (t *declTable) dependents(names []string, except map[string]bool) []*declaration {
	hit := map[string]bool{}
	for _, n := range names {
		hit[n] = true
		if i := strings.IndexByte(n, '.'); i > 0 {
			hit[n[:i]] = true // a method change matters to users of its type
		}
	}
	selected := map[string]*declaration{}
	for grew := true; grew; {
		grew = false
		for name, d := range t.byName {
			if selected[name] != nil || except[name] || d.kind == "var" || d.kind == "const" {
				continue
			}
			for u := range d.uses {
				if hit[u] {
					selected[name] = d
					hit[name] = true
					if i := strings.IndexByte(name, '.'); i > 0 {
						hit[name[:i]] = true
					}
					grew = true
					break
				}
			}
		}
	}
	out := make([]*declaration, 0, len(selected))
	for _, d := range selected {
		out = append(out, d)
	}
	sortBySerial(out)
	return out
}

// all returns every declaration in definition order.
func (t *declTable) all() []*declaration {
	out := make([]*declaration, 0, len(t.byName))
	seen := map[string]bool{}
	for _, d := range t.byName {
		if seen[d.src] {
			continue // one multi-name var spec
		}
		seen[d.src] = true
		out = append(out, d)
	}
	sortBySerial(out)
	return out
}

func (t *declTable) consts() []string {
	var out []string
	for _, d := range t.all() {
		if d.kind == "const" {
			out = append(out, d.src)
		}
	}
	return out
}

func sortBySerial(ds []*declaration) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j].serial < ds[j-1].serial; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

func identifiers(n ast.Node) map[string]bool {
	ids := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			ids[id.Name] = true
		}
		return true
	})
	return ids
}
