package session

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// itemKind classifies one top-level item of a cell.
type itemKind int

const (
	itemImport itemKind = iota // import "x" or import ( ... )
	itemDecl                   // type, func, method, var or const at the top level
	itemStmt                   // anything else: statements and expressions
)

func (k itemKind) String() string {
	switch k {
	case itemImport:
		return "import"
	case itemDecl:
		return "decl"
	}
	return "stmt"
}

// item is one top-level unit of a cell, as a person wrote it.
type item struct {
	kind  itemKind
	src   string
	start int // byte offset in the cell
	end   int
	first token.Token
}

// splitCell cuts a cell into top-level items: it tracks bracket depth with
// go/scanner and ends an item at every semicolon (written or inserted at a
// newline) at depth zero. Imports, declarations and statements may then be
// evaluated each the way yaegi accepts them.
func splitCell(src string) ([]item, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)

	type tok struct {
		pos int
		tok token.Token
		lit string
	}
	var items []item
	var cur []tok
	depth := 0
	flush := func(end int) {
		if len(cur) == 0 {
			return
		}
		it := item{start: cur[0].pos, end: end, first: cur[0].tok}
		it.kind = classify(cur[0].tok, func(i int) token.Token {
			if i < len(cur) {
				return cur[i].tok
			}
			return token.EOF
		})
		it.src = src[it.start:it.end]
		items = append(items, it)
		cur = cur[:0]
	}
	lastEnd := 0
	// header is set from a for, if, switch or select keyword to the end
	// of its line: the semicolons a person writes there (for i := 0; ;
	// i++ {) separate the header's parts, not statements.
	header := false
	for {
		p, t, lit := s.Scan()
		off := file.Offset(p)
		if t == token.EOF {
			flush(lastEnd)
			break
		}
		depth += bracketDepth(t)
		if depth <= 0 {
			switch t {
			case token.FOR, token.IF, token.SWITCH, token.SELECT:
				header = true
			}
		}
		if t == token.SEMICOLON && depth <= 0 {
			if header && lit == ";" {
				cur = append(cur, tok{off, t, lit})
				lastEnd = off + 1
				continue
			}
			header = false
			flush(lastEnd)
			continue
		}
		cur = append(cur, tok{off, t, lit})
		// An illegal byte comes back as U+FFFD, longer than the byte.
		lastEnd = min(off+tokenLen(t, lit), len(src))
	}
	if len(errs) > 0 {
		return items, errs.Err()
	}
	return items, nil
}

// bracketDepth is how a token changes the nesting of brackets: +1 opens,
// -1 closes.
func bracketDepth(t token.Token) int {
	switch t {
	case token.LPAREN, token.LBRACK, token.LBRACE:
		return 1
	case token.RPAREN, token.RBRACK, token.RBRACE:
		return -1
	}
	return 0
}

func tokenLen(t token.Token, lit string) int {
	if lit != "" {
		return len(lit)
	}
	return len(t.String())
}

// classify decides an item's kind from its first tokens. `func` starts a
// declaration when a name or a method receiver follows; otherwise it is a
// function literal used in a statement (`func() { ... }()`).
func classify(first token.Token, at func(int) token.Token) itemKind {
	switch first {
	case token.IMPORT:
		return itemImport
	case token.TYPE, token.VAR, token.CONST:
		return itemDecl
	case token.FUNC:
		switch at(1) {
		case token.IDENT:
			return itemDecl
		case token.LPAREN:
			depth := 0
			for i := 1; ; i++ {
				switch at(i) {
				case token.LPAREN:
					depth++
				case token.RPAREN:
					depth--
					if depth == 0 {
						// func (r T) Name( ... is a method; func() int { is not.
						if at(i+1) == token.IDENT && at(i+2) == token.LPAREN {
							return itemDecl
						}
						return itemStmt
					}
				case token.EOF:
					return itemStmt
				}
			}
		}
	}
	return itemStmt
}

// lineCol converts a byte offset of src to a 1-based line and column.
func lineCol(src string, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	line = 1 + strings.Count(src[:off], "\n")
	col = off - strings.LastIndex(src[:off], "\n")
	return line, col
}

// positioned pads an item's text with newlines and spaces so that, evaluated
// alone, its positions are the cell's own. One extra leading newline keeps
// yaegi's wrapper ("package main; func main() {") on a line of its own; it
// is subtracted again when errors are mapped back (see mapPositions).
func positioned(cell string, start, end int) string {
	line, col := lineCol(cell, start)
	return strings.Repeat("\n", line) + strings.Repeat(" ", col-1) + cell[start:end]
}

// group is a run of items evaluated by one yaegi Eval call.
type group struct {
	kind  itemKind
	items []item
}

// groupItems keeps the order a person wrote: consecutive declarations are
// evaluated together (so they may refer to each other, as in a Go file) and
// consecutive statements together. Imports are hoisted to the front.
func groupItems(items []item) []group {
	var imports []item
	var groups []group
	for _, it := range items {
		if it.kind == itemImport {
			imports = append(imports, it)
			continue
		}
		if n := len(groups); n > 0 && groups[n-1].kind == it.kind {
			groups[n-1].items = append(groups[n-1].items, it)
			continue
		}
		groups = append(groups, group{kind: it.kind, items: []item{it}})
	}
	if len(imports) > 0 {
		groups = append([]group{{kind: itemImport, items: imports}}, groups...)
	}
	return groups
}

// source renders a group for yaegi with the cell's positions preserved.
func (g group) source(cell string) string {
	var b strings.Builder
	line := 0
	for _, it := range g.items {
		l, col := lineCol(cell, it.start)
		if line == 0 {
			b.WriteString(strings.Repeat("\n", l))
		} else if l > line {
			b.WriteString(strings.Repeat("\n", l-line))
		} else {
			b.WriteString(";")
			col = 1
		}
		if col > 1 {
			b.WriteString(strings.Repeat(" ", col-1))
		}
		b.WriteString(cell[it.start:it.end])
		line = l + strings.Count(cell[it.start:it.end], "\n")
	}
	return b.String()
}

func (k itemKind) describe(it item) string {
	return fmt.Sprintf("%s %q", k, it.src)
}

// varsAsStatements moves out of declaration groups the `var` items that
// yaegi v0.16.1 cannot declare there: a package-level var whose value reads
// a variable of an earlier cell fails with "variable definition loop", and
// one that indexes a compiled slice with "constant definition loop".
// Evaluated as statements (at the top of the cell's function), both work.
// An item that uses a name its own group declares stays, so declarations
// may still refer to each other in any order. A var initialized by a
// generic call (see generic.go) moves after the rest of its group instead,
// so it may use any of them, unless another item uses it.
func varsAsStatements(groups []group, sessionVar func(name string) bool, namedGeneric func(qualifier, name string) bool) []group {
	var out []group
	add := func(kind itemKind, it item) {
		if n := len(out); n > 0 && out[n-1].kind == kind && kind != itemImport {
			out[n-1].items = append(out[n-1].items, it)
			return
		}
		out = append(out, group{kind: kind, items: []item{it}})
	}
	for _, g := range groups {
		own := map[string]bool{}
		ownGeneric := map[string]bool{}
		parsed := make([]*ast.File, len(g.items))
		for i, it := range g.items {
			if g.kind != itemDecl {
				break
			}
			if f, err := parser.ParseFile(token.NewFileSet(), "", declPrefix+it.src, parser.SkipObjectResolution); err == nil {
				parsed[i] = f
				for name := range declaredNames(f) {
					own[name] = true
				}
				for name := range genericFuncs(f) {
					ownGeneric[name] = true
				}
			}
		}
		generic := func(qualifier, name string) bool {
			if qualifier == "" && own[name] {
				return ownGeneric[name]
			}
			return !own[qualifier] && namedGeneric(qualifier, name)
		}
		var last []item
		for i, it := range g.items {
			kind := g.kind
			if parsed[i] != nil && it.first == token.VAR {
				switch {
				case varCallsGeneric(parsed[i], generic) && !usedBesides(parsed, i):
					if usesOwn(parsed[i], own) {
						last = append(last, it)
						continue
					}
					kind = itemStmt
				case varNeedsStatement(parsed[i], own, sessionVar), varCommaOk(parsed[i]):
					kind = itemStmt
				}
			}
			add(kind, it)
		}
		for _, it := range last {
			add(itemStmt, it)
		}
	}
	return out
}

// varCallsGeneric reports a var whose value calls a generic function.
func varCallsGeneric(f *ast.File, generic func(qualifier, name string) bool) bool {
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok {
			for _, s := range gd.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for _, v := range vs.Values {
						if callsGeneric(v, generic, false) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// usesOwn reports whether a declaration uses a name of its group besides
// those it declares.
func usesOwn(f *ast.File, own map[string]bool) bool {
	names := declaredNames(f)
	for id := range identifiers(f) {
		if own[id] && !names[id] {
			return true
		}
	}
	return false
}

// usedBesides reports whether another item of a group uses a name item i
// declares.
func usedBesides(parsed []*ast.File, i int) bool {
	names := declaredNames(parsed[i])
	for j, f := range parsed {
		if j == i || f == nil {
			continue
		}
		for id := range identifiers(f) {
			if names[id] {
				return true
			}
		}
	}
	return false
}

func declaredNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names
}

func varNeedsStatement(f *ast.File, own map[string]bool, sessionVar func(string) bool) bool {
	needs := false
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			return false
		}
		for _, s := range gd.Specs {
			vs, ok := s.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for _, v := range vs.Values {
				uses := false
				ast.Inspect(v, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.SelectorExpr:
						ast.Inspect(n.X, func(m ast.Node) bool {
							if id, ok := m.(*ast.Ident); ok && own[id.Name] {
								uses = true
							}
							return !uses
						})
						if id, ok := n.X.(*ast.Ident); ok && sessionVar(id.Name) {
							needs = true
						}
						return false
					case *ast.Ident:
						if own[n.Name] {
							uses = true
						} else if sessionVar(n.Name) {
							needs = true
						}
					}
					return true
				})
				if uses {
					return false
				}
				if hasIndex(v) {
					needs = true
				}
			}
		}
	}
	return needs
}

// varCommaOk reports var v, ok = m[k] (or x.(T), <-ch): yaegi v0.16.1
// declares the two only as statements, by assignment (see isCommaOk).
func varCommaOk(f *ast.File) bool {
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && len(gd.Specs) == 1 {
			if vs, ok := gd.Specs[0].(*ast.ValueSpec); ok && len(vs.Names) == 2 && len(vs.Values) == 1 {
				return isCommaOk(&ast.AssignStmt{Lhs: []ast.Expr{vs.Names[0], vs.Names[1]}, Rhs: vs.Values})
			}
		}
	}
	return false
}
