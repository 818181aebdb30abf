package session

import (
	"errors"
	"fmt"
	"go/scanner"
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
	return newCompileError(cell, msg, line, col)
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
