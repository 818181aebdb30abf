package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// yaegi v0.16.1 keeps what a cell no longer needs:
//   - every evaluated program's syntax tree, in Interpreter.roots, which only
//     its debugger reads: each redefinition kept the tree that it replaced;
//   - the intermediate values of top-level statements, in slots of the global
//     frame that nothing reads again once the statement has run: after
//     `big := make([]byte, 200<<20); big = nil`, a slot still held the
//     buffer that make returned.
//
// There is no API for either, so release reaches the fields by name, the
// way the yaegi version pinned in go.mod lays them out; if a field is not
// found it releases nothing, and TestDroppedValueIsCollected fails.

// yaegiPkgSym is yaegi's sKind of an imported package's symbol (pkgSym).
const yaegiPkgSym = 6

// frameLen is the number of slots of the interpreter's global frame.
func frameLen(in *interp.Interpreter) int {
	data, ok := frameData(in)
	if !ok {
		return 0
	}
	return len(data)
}

// slotsOf is the global frame indices of the named globals.
func slotsOf(in *interp.Interpreter, names []string) []int {
	var slots []int
	for name, i := range globalSlotNames(in) {
		for _, n := range names {
			if n == name {
				slots = append(slots, i)
			}
		}
	}
	return slots
}

// release drops the syntax trees of finished programs and the values no
// global names any more: those of replaced (slots of variables the cell
// defined again) and, when the cell's statements (src, as run) define no
// function literal that could still refer to them, the slots from the
// index from on.
func release(in *interp.Interpreter, src string, from int, replaced []int) {
	if roots, ok := field(reflect.ValueOf(in).Elem(), "roots"); ok {
		roots.SetZero()
	}
	data, ok := frameData(in)
	names := globalSlotNames(in)
	if !ok || names == nil {
		return
	}
	named := map[int]bool{}
	for _, i := range names {
		named[i] = true
	}
	drop := func(i int) {
		if i < 0 || i >= len(data) || named[i] || !data[i].IsValid() {
			return
		}
		// A fresh zero value replaces the slot's: zeroing it in place would
		// also zero a global whose slot shares its storage (yaegi copies
		// addressable values between slots by reference).
		data[i] = reflect.New(data[i].Type()).Elem()
	}
	for _, i := range replaced {
		drop(i)
	}
	if src == "" || hasFuncLit(src) {
		return
	}
	for i := from; i < len(data); i++ {
		drop(i)
	}
}

// field is a settable view of an unexported field of the struct v.
func field(v reflect.Value, name string) (reflect.Value, bool) {
	f := v.FieldByName(name)
	if !f.IsValid() || !f.CanAddr() {
		return reflect.Value{}, false
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), true
}

func frameData(in *interp.Interpreter) ([]reflect.Value, bool) {
	fr, ok := field(reflect.ValueOf(in).Elem(), "frame")
	if !ok || fr.Kind() != reflect.Pointer || fr.IsNil() {
		return nil, false
	}
	data, ok := field(fr.Elem(), "data")
	if !ok || data.Type() != reflect.TypeFor[[]reflect.Value]() {
		return nil, false
	}
	return data.Interface().([]reflect.Value), true
}

// globalSlotNames is the global frame index of each of the main package's
// symbols (nil if they cannot be read).
func globalSlotNames(in *interp.Interpreter) map[string]int {
	pkgs, ok := field(reflect.ValueOf(in).Elem(), "srcPkg")
	if !ok || pkgs.Kind() != reflect.Map {
		return nil
	}
	syms := pkgs.MapIndex(reflect.ValueOf("main"))
	if !syms.IsValid() || syms.Kind() != reflect.Map {
		return map[string]int{}
	}
	named := map[string]int{}
	for it := syms.MapRange(); it.Next(); {
		sym := it.Value()
		if sym.Kind() != reflect.Pointer || sym.IsNil() {
			return nil
		}
		index, kind := sym.Elem().FieldByName("index"), sym.Elem().FieldByName("kind")
		if !index.IsValid() || !index.CanInt() || !kind.IsValid() || !kind.CanUint() {
			return nil
		}
		if kind.Uint() == yaegiPkgSym {
			continue // an import: its index is not a slot
		}
		named[it.Key().String()] = int(index.Int())
	}
	return named
}

// hasFuncLit reports a function literal in a group of statements (or
// source that does not parse, to be safe).
func hasFuncLit(src string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", stmtPrefix+src+stmtSuffix, parser.SkipObjectResolution)
	if err != nil {
		return true
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		_, lit := n.(*ast.FuncLit)
		found = found || lit
		return !found
	})
	return found
}

// noteFuncRefs records the names that function bodies in src (a group of
// statements, or of declarations when decls) refer to.
func (s *Session) noteFuncRefs(src string, decls bool) {
	text := stmtPrefix + src + stmtSuffix
	if decls {
		text = "package main;" + src
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", text, parser.SkipObjectResolution)
	if err != nil {
		return
	}
	if s.funcRefs == nil {
		s.funcRefs = map[string]bool{}
	}
	note := func(body ast.Node) {
		ast.Inspect(body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				s.funcRefs[id.Name] = true
			}
			return true
		})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncLit:
			note(fn.Body)
			return false
		case *ast.FuncDecl:
			if decls && fn.Body != nil {
				note(fn.Body)
			}
		}
		return true
	})
}

// uncaptured is the names no function body has referred to: their old
// values can be released when a cell defines them again.
func (s *Session) uncaptured(names []string) []string {
	var out []string
	for _, n := range names {
		if !s.funcRefs[n] {
			out = append(out, n)
		}
	}
	return out
}
