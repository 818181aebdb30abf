package session

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// cellError is an error in the notebook's terms.
type cellError struct {
	ename, evalue string
	traceback     []string
	line          int // the cell line it points at, 0 when unknown
}

func (e *cellError) Error() string { return e.ename + ": " + e.evalue }

var leadingPosition = regexp.MustCompile(`^\d+:\d+:\s*`)

var undefinedName = regexp.MustCompile(`undefined: ([\pL_][\pL\pN_]*)$`)

var position = regexp.MustCompile(`(?:[\w./-]*\.go:)?(\d+):(\d+):`)

// mapPositions rewrites "L:C:" of the padded group source to the cell's own
// line (one padding line comes first).
func mapPositions(msg string) (string, int, int) {
	first, col := 0, 0
	out := position.ReplaceAllStringFunc(msg, func(m string) string {
		sub := position.FindStringSubmatch(m)
		l, _ := strconv.Atoi(sub[1])
		c, _ := strconv.Atoi(sub[2])
		if l > 1 {
			l--
		}
		if first == 0 {
			first, col = l, c
		}
		return fmt.Sprintf("%d:%d:", l, c)
	})
	return out, first, col
}

// splitError reports a cell the scanner rejects; its positions are the
// cell's own (no padding line to take off).
func splitError(cell string, err error) error {
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return newCompileError(cell, err.Error(), 0, 0)
	}
	first := list[0]
	msg := fmt.Sprintf("%d:%d: %s", first.Pos.Line, first.Pos.Column, first.Msg)
	if len(list) > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", len(list)-1)
	}
	return newCompileError(cell, msg, first.Pos.Line, first.Pos.Column)
}

func (s *Session) compileError(cell string, err error) error {
	msg, line, col := mapPositions(unshadow(err.Error()))
	if m := undefinedName.FindStringSubmatch(msg); m != nil && s.dropped[m[1]] != "" {
		msg += fmt.Sprintf(" (the session dropped it when %s was redefined: run the cell that defines it again)", s.dropped[m[1]])
	}
	if m, l, c, ok := incomplete(cell, msg, line, col); ok {
		msg, line, col = m, l, c
	}
	return newCompileError(cell, msg, line, col)
}

// incomplete rewords a parse error found after the cell's last token: the
// parser met the end of the text commlab wraps the cell in (its closing
// brace, or the end), which a person never wrote. The error names what the
// cell left open instead, on the cell's own line.
func incomplete(cell, msg string, line, col int) (string, int, int, bool) {
	expected, found, ok := strings.Cut(msg[strings.Index(msg, " ")+1:], ", found ")
	if !ok || (found != "'}'" && found != "'EOF'") || line == 0 {
		return "", 0, 0, false
	}
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(cell))
	var sc scanner.Scanner
	sc.Init(file, []byte(cell), nil, 0)
	type open struct {
		pos token.Position
		tok token.Token
	}
	var opened []open
	var last token.Position
	var lastTok token.Token
	lastEnd := 0
	for {
		p, t, lit := sc.Scan()
		if t == token.EOF {
			break
		}
		if t == token.SEMICOLON && lit == "\n" {
			continue
		}
		pos := fset.Position(p)
		switch bracketDepth(t) {
		case 1:
			opened = append(opened, open{pos, t})
		case -1:
			if len(opened) > 0 {
				opened = opened[:len(opened)-1]
			}
		}
		last, lastTok, lastEnd = pos, t, file.Offset(p)+tokenLen(t, lit)
	}
	endLine, endCol := lineCol(cell, lastEnd)
	if last.Line == 0 || line < endLine || (line == endLine && col < endCol) {
		return "", 0, 0, false // the error is inside what the person wrote
	}
	if n := len(opened); n > 0 {
		o := opened[n-1]
		return fmt.Sprintf("%d:%d: '%s' is never closed: the cell ends inside it", o.pos.Line, o.pos.Column, o.tok.String()), o.pos.Line, o.pos.Column, true
	}
	return fmt.Sprintf("%d:%d: %s after '%s': the expression is incomplete", last.Line, last.Column, expected, lastTok.String()), last.Line, last.Column, true
}

func newCompileError(cell, msg string, line, col int) error {
	msg = strings.TrimSpace(msg)
	tb := []string{"CompileError: " + msg}
	tb = append(tb, sourceContext(cell, line, col)...)
	if strings.Contains(msg, "nil type") {
		tb = append(tb, "hint: the interpreter could not type an expression; range over an integer works on literals, constants, len(...) and integer variables")
	}
	return &cellError{ename: "CompileError", evalue: msg, traceback: tb}
}

// papermillFix is what makes papermill write Go parameters.
const papermillFix = "install commlab-papermill (pip install ./python/commlab-papermill in commlab's repository) so that papermill writes Go"

var pythonAssignment = regexp.MustCompile(`^[\pL_][\pL\pN_]* = \S`)

// pythonParameters refuses a parameters cell papermill wrote with its
// Python translator ("# Parameters", then name = value lines): papermill
// without commlab-papermill, told the notebook's language is python. Go
// would only say that '#' is an illegal character.
func pythonParameters(cell string) error {
	trimmed := strings.TrimSpace(cell)
	if !strings.HasPrefix(trimmed, "# Parameters") {
		return nil
	}
	lines := strings.Split(trimmed, "\n")
	if strings.TrimSpace(lines[0]) != "# Parameters" {
		return nil
	}
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !pythonAssignment.MatchString(l) {
			return nil
		}
	}
	line := 1 + strings.Count(cell[:strings.Index(cell, "#")], "\n")
	msg := "this looks like a Python parameters cell: " + papermillFix
	tb := append([]string{"CompileError: " + msg}, sourceContext(cell, line, 1)...)
	tb = append(tb, "papermill injected it with its Python translator; Go comments start with //")
	return &cellError{ename: "CompileError", evalue: msg, traceback: tb, line: line}
}

// runtimeError reports a panic of the cell's code in Go's words, at the
// cell's line. yaegi runs index and field operations through reflect, whose
// panics say "reflect: slice index out of range", and its trace names only
// where each interpreted function starts; the cell's source and the values
// its globals hold at the panic tell the rest (see locatePanic).
//
// marker is the cell line of the statement that last started (see
// lineMarkers), 0 when none did: the statement that panicked, or that
// called the function that did.
func (s *Session) runtimeError(cell, src string, err error, marker int) error {
	var raw any = err.Error()
	var compiled []string // compiled functions, innermost first, when the panic came from one
	if p, ok := err.(interp.Panic); ok {
		raw = unwrapValue(p.Value)
		compiled = compiledFrames(p.Stack)
	}
	kind, goWords := runtimeWords(raw, unshadow(fmt.Sprint(raw)))
	// yaegi puts its own position (of the rewritten group) in front of
	// some panics (a failed type assertion): the cell's line is below.
	goWords = strings.TrimSpace(leadingPosition.ReplaceAllString(goWords, ""))
	trace := s.stderrW.takeTrace()
	var funcs []string // interpreted functions, innermost first, without the cell
	for _, t := range trace {
		m := panicLine.FindStringSubmatch(t)
		if where := strings.TrimSuffix(strings.TrimPrefix(m[3], "main."), "(...)"); where != "" && where != "main" {
			funcs = append(funcs, where)
		}
	}
	line, col, detail := 0, 0, ""
	var callLines []int // the cell's calls of the compiled function, when not one
	if len(funcs) == 0 && len(compiled) > 0 {
		// The panic came from compiled code the cell called: find that call
		// by the function's name (the cell's own expressions did not fail).
		line, col, callLines = placeOfCalls(callsOf(src, compiled[len(compiled)-1]))
	}
	if len(funcs) == 0 && line == 0 && len(callLines) == 0 {
		line, col, detail = s.locatePanic(src, kind)
	} else if len(funcs) > 0 {
		line, col, callLines = placeOfCalls(locateCalls(src, funcs[len(funcs)-1]))
	}
	if marker > 0 && line != marker {
		// The statement that was running is where the panic happened;
		// what was found by name or by value elsewhere was not it.
		line, col, detail, callLines = marker, indentColumn(cell, marker), "", nil
	}
	if detail != "" {
		goWords += " " + detail
	}
	tb := []string{"panic: " + goWords}
	for i, f := range compiled {
		called := "called from the cell"
		switch {
		case i+1 < len(compiled):
			called = "called from " + compiled[i+1]
		case len(funcs) > 0:
			called = "called from " + funcs[0]
		case len(callLines) > 1:
			called = "called from the cell on line " + joinLines(callLines)
		}
		tb = append(tb, fmt.Sprintf("  in %s (compiled), %s", f, called))
	}
	for i, f := range funcs {
		called := "called from the cell"
		if i+1 < len(funcs) {
			called = "called from " + funcs[i+1]
		} else if len(callLines) > 1 {
			called = "called from the cell on line " + joinLines(callLines)
		}
		tb = append(tb, fmt.Sprintf("  in %s, %s", f, called))
	}
	if line > 0 {
		tb = append(tb, sourceContext(cell, line, col)...)
	}
	return &cellError{ename: "panic", evalue: goWords, traceback: tb, line: line}
}

// panicKind is what went wrong, as far as locatePanic can look for it.
type panicKind int

const (
	panicOther panicKind = iota
	panicIndex
	panicSlice
	panicNil
)

// runtimeWords says a panic the way the Go runtime does when yaegi's
// reflect calls raised it instead.
func runtimeWords(raw any, text string) (panicKind, string) {
	if _, ok := raw.(*reflect.ValueError); ok {
		return panicNil, "runtime error: invalid memory address or nil pointer dereference"
	}
	switch {
	case strings.HasPrefix(text, "reflect: ") && strings.HasSuffix(text, " index out of range"):
		return panicIndex, "runtime error: index out of range"
	case strings.HasPrefix(text, "reflect.Value.Slice") && strings.Contains(text, "out of"):
		return panicSlice, "runtime error: slice bounds out of range"
	case text == "reflect: Call using zero Value argument", text == "reflect: Method on nil interface value",
		text == "reflect: indirection through nil pointer to embedded struct":
		return panicNil, "runtime error: invalid memory address or nil pointer dereference"
	}
	return panicOther, text
}

// locatePanic finds the expression of the cell's statements (src, as run)
// that raised a panic of kind: the one whose operands, evaluated now, are
// out of range or nil; else the only expression of that kind. It returns
// Go's detail ("[5] with length 1") when the values are known.
func (s *Session) locatePanic(src string, kind panicKind) (line, col int, detail string) {
	if kind == panicOther {
		return 0, 0, ""
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", stmtPrefix+src+stmtSuffix, 0)
	if err != nil {
		return 0, 0, ""
	}
	value := func(e ast.Expr) (reflect.Value, bool) {
		if !pure(e) {
			return reflect.Value{}, false
		}
		v, err := s.eval(exprString(fset, e))
		return v, err == nil && v.IsValid()
	}
	var candidates []ast.Node
	var found ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its panics name a function
		case *ast.IndexExpr:
			if kind == panicIndex {
				candidates = append(candidates, n)
				if x, ok := value(n.X); ok {
					if i, ok := value(n.Index); ok && i.CanInt() && hasLen(x) && (i.Int() < 0 || int(i.Int()) >= x.Len()) {
						found, detail = n, fmt.Sprintf("[%d] with length %d", i.Int(), x.Len())
					}
				}
			}
		case *ast.SliceExpr:
			if kind == panicSlice {
				candidates = append(candidates, n)
				if x, ok := value(n.X); ok && n.High != nil && (x.Kind() == reflect.Slice || x.Kind() == reflect.String) {
					capacity := x.Len()
					if x.Kind() == reflect.Slice {
						capacity = x.Cap()
					}
					if h, ok := value(n.High); ok && h.CanInt() && int(h.Int()) > capacity {
						found, detail = n, fmt.Sprintf("[:%d] with capacity %d", h.Int(), capacity)
					}
				}
			}
		case *ast.SelectorExpr, *ast.StarExpr:
			if kind == panicNil {
				x := n.(ast.Expr)
				if sel, ok := n.(*ast.SelectorExpr); ok {
					x = sel.X
				} else {
					x = n.(*ast.StarExpr).X
				}
				if id, ok := x.(*ast.Ident); ok && s.known[id.Name] != "" {
					return true // a package
				}
				candidates = append(candidates, n)
				if v, ok := value(x); ok && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
					found = n
				}
			}
		}
		return true
	})
	if found == nil && len(candidates) == 1 {
		found = candidates[0]
	}
	if found == nil {
		return 0, 0, ""
	}
	p := fset.Position(found.Pos())
	return p.Line - 1, p.Column, detail
}

func hasLen(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Array, reflect.String:
		return true
	}
	return false
}

// pure reports an expression evaluating which has no effect: names,
// literals, fields, indexes and operators on them.
func pure(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return pure(e.X)
	case *ast.SelectorExpr:
		return pure(e.X)
	case *ast.IndexExpr:
		return pure(e.X) && pure(e.Index)
	case *ast.StarExpr:
		return pure(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && pure(e.X)
	case *ast.BinaryExpr:
		return pure(e.X) && pure(e.Y)
	}
	return false
}

// locateCalls finds the calls of the cell's statements (src) to the
// interpreted function name.
func locateCalls(src, name string) []token.Position {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", stmtPrefix+src+stmtSuffix, 0)
	if err != nil {
		return nil
	}
	var calls []token.Position
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			var pos token.Pos
			switch fn := c.Fun.(type) {
			case *ast.Ident:
				if fn.Name == name {
					pos = c.Pos()
				}
			case *ast.SelectorExpr:
				if strings.HasSuffix(name, "."+fn.Sel.Name) {
					pos = fn.Sel.Pos()
				}
			}
			if pos.IsValid() {
				p := fset.Position(pos)
				p.Line--
				calls = append(calls, p)
			}
		}
		return true
	})
	return calls
}

// compiledFrames reads the Go stack yaegi took when it recovered a panic
// (interp.Panic.Stack) and returns the compiled functions the panic went
// through, innermost first, up to the one the interpreter called (through
// reflect.Value.Call): e.g. ["encoding/binary.bigEndian.Uint32"]. It is
// nil when the panic was raised by the interpreter's own work on the
// cell's values (yaegi's and reflect's frames come first then). The
// original panic is the stack's last "panic(" frame: yaegi re-panics
// above it.
func compiledFrames(stack []byte) []string {
	var funcs []string // function lines, top of the stack first
	for _, l := range strings.Split(string(stack), "\n") {
		if l != "" && !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "goroutine ") && !strings.HasPrefix(l, "created by ") {
			funcs = append(funcs, l)
		}
	}
	start := -1
	for i, f := range funcs {
		if strings.HasPrefix(f, "panic(") {
			start = i + 1
		}
	}
	if start < 0 {
		return nil
	}
	var frames []string
	for _, f := range funcs[start:] {
		name := frameFunc(f)
		switch {
		case strings.HasPrefix(name, "runtime."):
			continue
		case strings.HasPrefix(name, "reflect."):
			if len(frames) > 0 {
				return frames // reflect.Value.Call: the interpreter called the last one
			}
			continue // the panic was reflect's, on the interpreter's behalf or a compiled caller's
		case strings.HasPrefix(name, "github.com/traefik/yaegi/"), strings.HasPrefix(name, sessionPkg):
			// The interpreter, or this package's own stand-ins (os.Exit,
			// polyfills): what ran was the cell's own work.
			return frames
		}
		frames = append(frames, name)
		if len(frames) == 8 {
			return frames
		}
	}
	return nil
}

// sessionPkg prefixes this package's functions in a stack trace.
var sessionPkg = reflect.TypeOf(cellError{}).PkgPath() + "."

// frameFunc is the function of a stack trace line, without its arguments:
// "net/url.Values.Set(0x0, {0x1, 0x1})" -> "net/url.Values.Set".
func frameFunc(line string) string {
	if strings.HasSuffix(line, ")") {
		if i := strings.LastIndexByte(line, '('); i > 0 {
			line = line[:i]
		}
	}
	return line
}

// callsOf finds the cell's calls (src, as run) of the compiled function fn
// ("encoding/binary.bigEndian.Uint32", "strings.(*Builder).Len"): calls
// whose selector or name is the function's own name. Where the name is
// called through a package name too, calls through that package come
// first.
func callsOf(src, fn string) []token.Position {
	short := fn[strings.LastIndexByte(fn, '/')+1:]
	pkg, rest, _ := strings.Cut(short, ".")
	if i := strings.IndexByte(rest, '['); i >= 0 {
		rest = rest[:i] // a generic instance
	}
	name := rest[strings.LastIndexByte(rest, '.')+1:]
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", stmtPrefix+src+stmtSuffix, 0)
	if err != nil || name == "" {
		return nil
	}
	var viaPkg, others []token.Position
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var pos token.Pos
		root := ""
		switch fun := c.Fun.(type) {
		case *ast.Ident:
			if fun.Name == name {
				pos = fun.Pos()
			}
		case *ast.SelectorExpr:
			if fun.Sel.Name == name {
				pos = fun.Sel.Pos()
				x := fun.X
				for {
					if sel, ok := x.(*ast.SelectorExpr); ok {
						x = sel.X
						continue
					}
					break
				}
				if id, ok := x.(*ast.Ident); ok {
					root = id.Name
				}
			}
		}
		if pos.IsValid() {
			p := fset.Position(pos)
			p.Line--
			if root == pkg {
				viaPkg = append(viaPkg, p)
			} else {
				others = append(others, p)
			}
		}
		return true
	})
	if len(viaPkg) > 0 {
		return viaPkg
	}
	return others
}

// placeOfCalls is where a panic points among the cell's calls that may
// have raised it: the first call's line and column when they all stand on
// one line, else the lines they stand on (the message names them all);
// all zero when there is no call.
func placeOfCalls(calls []token.Position) (line, col int, callLines []int) {
	switch lines := distinctLines(calls); {
	case len(lines) == 1:
		return calls[0].Line, calls[0].Column, nil
	case len(lines) > 1:
		return 0, 0, lines
	}
	return 0, 0, nil
}

func distinctLines(ps []token.Position) []int {
	var lines []int
	for _, p := range ps {
		if len(lines) == 0 || lines[len(lines)-1] != p.Line {
			lines = append(lines, p.Line)
		}
	}
	return lines
}

func joinLines(lines []int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

// goPanic reports a panic in a goroutine a cell started, naming the cell:
// it may come while a later cell runs, or between cells.
func (s *Session) goPanic(cell int, v any) {
	value := panicText(v)
	where := fmt.Sprintf("in a goroutine started by cell [%d]", cell)
	if cell == 0 {
		where = "in a goroutine started by a cell"
	}
	s.stderrW.takeTrace()
	s.flush()
	s.emit(Event{Kind: EventError, EName: "panic", EValue: value + " (" + where + ")",
		Traceback: []string{"panic " + where + ": " + value,
			"(the goroutine stopped; the kernel and its state live on)"}})
}

// panicText is a panic value as Go prints it.
func panicText(v any) string {
	v = unwrapValue(v)
	_, words := runtimeWords(v, fmt.Sprint(v))
	return words
}

// unwrapValue is the value a reflect.Value panic value holds.
func unwrapValue(v any) any {
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		return rv.Interface()
	}
	return v
}

// resultError is the cell's failure when its final call returned a non-nil
// error: the error's type names it, as a Go programmer would print %T.
func resultError(err error) error {
	ename := fmt.Sprintf("%T", err)
	return &cellError{ename: ename, evalue: err.Error(), traceback: []string{ename + ": " + err.Error()}}
}

// sourceContext shows the cell's line with a caret under the column.
func sourceContext(cell string, line, col int) []string {
	lines := strings.Split(cell, "\n")
	if line < 1 || line > len(lines) {
		return nil
	}
	text := lines[line-1]
	caret := ""
	if col >= 1 && col <= len(text)+1 {
		caret = strings.Repeat(" ", col-1) + "^"
	}
	out := []string{fmt.Sprintf("%4d | %s", line, text)}
	if caret != "" {
		out = append(out, "     | "+caret)
	}
	return out
}

// indentColumn is the column of the first character of a cell's line that
// is not a space or a tab.
func indentColumn(cell string, line int) int {
	lines := strings.Split(cell, "\n")
	if line < 1 || line > len(lines) {
		return 0
	}
	return 1 + len(lines[line-1]) - len(strings.TrimLeft(lines[line-1], " \t"))
}
