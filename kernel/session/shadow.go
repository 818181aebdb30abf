package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
)

// yaegi v0.16.1 runs a cell's statements in the global scope, and its
// blocks (the body of a for, if, switch or select, a bare { }, and the
// variables their headers declare) share that scope's flag: a := or var
// there that declares a name some outer scope already has (a variable of
// an earlier cell, a function, a package, a builtin, or a local of an
// enclosing block) takes over that symbol instead of declaring a new
// one. `g := 2.5` in one cell then `for ... { g := "s" }` in another
// fails with "reflect.Set: value of type string is not assignable to
// type float64", and with types that agree it overwrites g silently: the
// second run of a chapter whose loop declares a name a later cell made a
// session variable broke this way.
//
// The session gives each such block-local name a name of its own before
// the interpreter sees it, as Go's scoping would keep them apart; error
// messages show the name as written (see unshadow).

// shadowMark joins a renamed block local's name and its number: U+02B9
// is a letter to Go, so the name stays an identifier no cell writes.
const shadowMark = "ʹ"

var shadowed = regexp.MustCompile(`([\pL_][\pL\pN_]*)` + shadowMark + `\d+`)

// unshadow shows the names renameBlockLocals gave as the cell wrote them.
func unshadow(msg string) string { return shadowed.ReplaceAllString(msg, "$1") }

// renameBlockLocals renames every name a group of statements (src, as
// yaegi will wrap it) declares inside a block rather than at the cell's
// top level, outside function literals (their scopes are the function's,
// which yaegi keeps apart), and every use of it. Lines stay the cell's.
//
// Only a name that can collide is renamed (taken: a name the session, a
// package or the universe has; or one the group declares twice), so that
// the columns of errors stay the cell's in every other case.
func renameBlockLocals(src string, taken func(name string) bool) string {
	full := stmtPrefix + src + stmtSuffix
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", full, 0)
	if err != nil || len(f.Decls) == 0 {
		return src
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	base := fset.File(f.Pos()).Base() + len(stmtPrefix)
	var blockLocals []*ast.Ident
	seen := map[*ast.Object]bool{}
	declare := func(id *ast.Ident) {
		if id == nil || id.Name == "_" || id.Obj == nil || seen[id.Obj] {
			return
		}
		seen[id.Obj] = true
		blockLocals = append(blockLocals, id)
	}
	var walk func(node ast.Node)
	walk = func(node ast.Node) {
		ast.Inspect(node, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.FuncLit:
				return false
			case *ast.AssignStmt:
				if x.Tok == token.DEFINE {
					for _, l := range x.Lhs {
						if id, ok := l.(*ast.Ident); ok && id.Obj != nil && id.Obj.Decl == x {
							declare(id)
						}
					}
				}
			case *ast.RangeStmt:
				if x.Tok == token.DEFINE {
					for _, e := range []ast.Expr{x.Key, x.Value} {
						if id, ok := e.(*ast.Ident); ok {
							declare(id)
						}
					}
				}
			case *ast.ValueSpec:
				for _, id := range x.Names {
					declare(id)
				}
			case *ast.TypeSpec:
				declare(x.Name)
			}
			return true
		})
	}
	for _, st := range body.List {
		st = unlabel(st)
		switch st.(type) {
		case *ast.AssignStmt, *ast.DeclStmt, *ast.ExprStmt, *ast.IncDecStmt, *ast.SendStmt, *ast.GoStmt, *ast.DeferStmt, *ast.ReturnStmt:
			// Declares at the top level, or nothing; a function literal
			// in it has its own scope.
		default:
			walk(st)
		}
	}
	declared := map[string]int{}
	for _, d := range topLevelNames(body) {
		declared[d]++
	}
	for _, id := range blockLocals {
		declared[id.Name]++
	}
	local := map[*ast.Object]string{} // block-local objects -> new name
	for i, id := range blockLocals {
		if declared[id.Name] > 1 || taken(id.Name) || types.Universe.Lookup(id.Name) != nil {
			local[id.Obj] = id.Name + shadowMark + strconv.Itoa(i+1)
		}
	}
	if len(local) == 0 {
		return src
	}
	var edits []edit
	var visit func(ast.Node)
	visit = func(root ast.Node) {
		ast.Inspect(root, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.CompositeLit:
				// go/parser resolves a key of a composite literal to a
				// variable when it can, but only a map's keys are values.
				if _, isMap := x.Type.(*ast.MapType); isMap {
					return true
				}
				if x.Type != nil {
					visit(x.Type)
				}
				for _, e := range x.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if _, ok := kv.Key.(*ast.Ident); ok {
							visit(kv.Value)
							continue
						}
					}
					visit(e)
				}
				return false
			case *ast.Ident:
				if name, ok := local[x.Obj]; ok && x.Obj != nil {
					start := int(x.Pos()) - base
					edits = append(edits, edit{start, start + len(x.Name), name})
				}
			}
			return true
		})
	}
	visit(body)
	return applyEdits(src, edits)
}

// topLevelNames is the names the statements of body declare at its own
// level (x := ..., var x ...).
func topLevelNames(body *ast.BlockStmt) []string {
	var names []string
	for _, st := range body.List {
		switch st := unlabel(st).(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						names = append(names, id.Name)
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, id := range sp.Names {
							names = append(names, id.Name)
						}
					case *ast.TypeSpec:
						names = append(names, sp.Name.Name)
					}
				}
			}
		}
	}
	return names
}

// yaegi v0.16.1 also keeps the type parameters of a generic function or
// type in the session's scope once it is declared: after
// `func Map[T any](...)`, a later `type T int` makes T(2) fail with "too
// many arguments". renameTypeParams gives each type parameter of a group
// of declarations (src, as yaegi will wrap it) a name no cell writes.
func renameTypeParams(src string) string {
	full := declPrefix + src
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", full, 0)
	if err != nil {
		return src
	}
	base := fset.File(f.Pos()).Base() + len(declPrefix)
	params := map[*ast.Object]string{}
	n := 0
	add := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, field := range fl.List {
			for _, id := range field.Names {
				if id.Obj != nil && id.Name != "_" {
					n++
					params[id.Obj] = id.Name + shadowMark + strconv.Itoa(n)
				}
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			add(d.Type.TypeParams)
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok {
					add(ts.TypeParams)
				}
			}
		}
	}
	if len(params) == 0 {
		return src
	}
	var edits []edit
	ast.Inspect(f, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok && id.Obj != nil {
			if name, ok := params[id.Obj]; ok {
				start := int(id.Pos()) - base
				edits = append(edits, edit{start, start + len(id.Name), name})
			}
		}
		return true
	})
	return applyEdits(src, edits)
}

// unlabel is the statement under any labels st carries (L: M: x := 1).
func unlabel(st ast.Stmt) ast.Stmt {
	for {
		l, ok := st.(*ast.LabeledStmt)
		if !ok {
			return st
		}
		st = l.Stmt
	}
}
