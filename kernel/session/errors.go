package session

import (
	"errors"
	"fmt"
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
}

func (e *cellError) Error() string { return e.ename + ": " + e.evalue }

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
	msg, line, col := mapPositions(err.Error())
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

func (s *Session) runtimeError(cell string, err error) error {
	value := err.Error()
	if p, ok := err.(interp.Panic); ok {
		value = fmt.Sprint(p.Value)
		if rv, ok := p.Value.(reflect.Value); ok && rv.IsValid() {
			value = fmt.Sprint(rv.Interface())
		}
	}
	tb := []string{"panic: " + value}
	trace := s.stderrW.takeTrace()
	line, col := 0, 0
	for i, t := range trace {
		m := panicLine.FindStringSubmatch(t)
		l, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[2])
		if l > 1 {
			l--
		}
		where := m[3]
		if where == "" {
			where = "cell"
		}
		where = strings.TrimPrefix(where, "main.")
		tb = append(tb, fmt.Sprintf("  at %d:%d in %s", l, c, where))
		if i == len(trace)-1 {
			line, col = l, c
		}
	}
	if line > 0 {
		tb = append(tb, sourceContext(cell, line, col)...)
	}
	return &cellError{ename: "panic", evalue: value, traceback: tb}
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
