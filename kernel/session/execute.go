package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/commlab/commlab/kernel/display"
	"github.com/traefik/yaegi/interp"
)

// Execute runs one cell. Events reach emit in order before Execute
// returns. Cancelling ctx interrupts the cell.
func (s *Session) Execute(ctx context.Context, code string, emit func(Event)) error {
	return s.execute(ctx, code, true, emit)
}

// ExecuteSilent runs a cell without counting it or storing its history.
func (s *Session) ExecuteSilent(ctx context.Context, code string, emit func(Event)) error {
	return s.execute(ctx, code, false, emit)
}

func (s *Session) execute(ctx context.Context, code string, store bool, emit func(Event)) error {
	s.run.Lock()
	defer s.run.Unlock()
	if s.abandoned != "" {
		return fmt.Errorf("%w (%s)", ErrAbandoned, s.abandoned)
	}
	if store {
		s.count++
		s.history = append(s.history, HistoryEntry{Session: 1, Line: s.count, Input: code})
	}
	s.emitMu.Lock()
	s.emitFunc = emit
	s.emitMu.Unlock()
	prev := display.SetPublisher(s.publishDisplay)
	defer func() {
		display.SetPublisher(prev)
		s.emitMu.Lock()
		s.emitFunc = nil
		s.emitMu.Unlock()
	}()
	err := s.runGuarded(ctx, s.solutionFor(code))
	s.flush()
	if err != nil {
		var ce *cellError
		if errors.As(err, &ce) {
			s.emit(Event{Kind: EventError, EName: ce.ename, EValue: ce.evalue, Traceback: ce.traceback, Line: ce.line})
			if ce.ename == "Interrupted" {
				return fmt.Errorf("%w: %w", ErrCellFailed, ErrInterrupted)
			}
			return fmt.Errorf("%w: %s: %s", ErrCellFailed, ce.ename, ce.evalue)
		}
		s.emit(Event{Kind: EventError, EName: "Error", EValue: err.Error(), Traceback: []string{err.Error()}})
		return fmt.Errorf("%w: %w", ErrCellFailed, err)
	}
	return nil
}

// runGuarded runs a cell; a panic in commlab's own code (the rewriter, the
// interpreter's compiler) becomes an error output, never the kernel's end.
func (s *Session) runGuarded(ctx context.Context, code string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprint(r)
			err = &cellError{ename: "InternalError", evalue: msg,
				traceback: []string{"InternalError: " + msg, "(the kernel and its state live on; please report this cell)"}}
		}
	}()
	return s.runWithMagics(ctx, code)
}

func (s *Session) runCell(ctx context.Context, code string) error {
	if err := pythonParameters(code); err != nil {
		return err
	}
	items, err := splitCell(code)
	if err != nil {
		return splitError(code, err)
	}
	groups := varsAsStatements(groupItems(items), s.sessionVars(), s.namedGeneric(s.globals()))
	for gi, g := range groups {
		final := gi == len(groups)-1
		if err := s.runGroup(ctx, code, g, final); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) runGroup(ctx context.Context, cell string, g group, final bool) error {
	src := g.source(cell)
	if g.kind == itemImport {
		return s.runImports(cell, src)
	}
	rw, err := rewrite(g.kind, src, final, s.scope())
	if err != nil {
		return s.compileError(cell, err)
	}
	if err := s.autoImport(rw.missingPkgs); err != nil {
		return s.compileError(cell, err)
	}
	s.noteFuncRefs(rw.src, g.kind == itemDecl)
	if g.kind == itemDecl {
		err = s.runDecls(cell, rw)
	} else {
		err = s.runStatements(ctx, cell, rw)
	}
	if err == nil {
		for _, n := range rw.declared {
			delete(s.dropped, n)
		}
	}
	return err
}

func (s *Session) runStatements(ctx context.Context, cell string, rw rewriteResult) error {
	// Names a statement defines replace any declaration of the same name;
	// functions that use a name defined again are compiled again after
	// the statements ran, so that they read the new variable.
	var redefined []string
	globals := s.globals()
	for _, n := range rw.declared {
		if _, ok := s.decls.get(n); ok {
			s.decls.forget(n)
			redefined = append(redefined, n)
		} else if _, ok := globals[n]; ok {
			redefined = append(redefined, n)
		}
	}
	s.result, s.hasResult = s.result[:0], false
	// A result shown is not kept alive by the session.
	defer func() { clear(s.result); s.result, s.hasResult = s.result[:0], false }()
	var prog *interp.Program
	var err error
	from, ran, replaced := frameLen(s.in), rw.src, slotsOf(s.in, s.uncaptured(rw.declared))
	if rw.capture != "" {
		prog, err = s.compile(rw.capture)
		ran = rw.capture
	}
	if prog == nil {
		prog, err = s.compile(rw.src)
		ran = rw.src
	}
	if err != nil {
		return s.compileError(cell, rw.explainCrash(rw.unmark(err)))
	}
	// What the statements computed on the way is not kept once they ran.
	defer release(s.in, ran, from, replaced)
	s.stderrW.takeTrace()
	line := globals[lineVar]
	if line.IsValid() && line.CanSet() {
		line.SetInt(0)
	}
	err = s.runProgram(ctx, prog)
	s.recordVarTypes(rw)
	if err != nil {
		if ctx.Err() != nil {
			return &cellError{ename: "Interrupted", evalue: "the cell was interrupted",
				traceback: []string{"Interrupted: the cell was stopped; variables keep the values they had"}}
		}
		marker := 0
		if line.IsValid() && line.CanInt() {
			marker = int(line.Int())
		}
		return s.runtimeError(cell, rw.src, err, marker)
	}
	s.recompileDependents(redefined, nil)
	if s.hasResult && !rw.finalIsPrint {
		return s.emitResult()
	}
	return nil
}

// emitResult shows a final expression's value. A multi-value expression
// shows its values side by side; a trailing nil error is left out, so
// `f()` that returns (x, nil) shows x, and a trailing non-nil error fails
// the cell with that error, as `x, err := f(); if err != nil` would.
func (s *Session) emitResult() error {
	vals := s.result
	if n := len(vals); n > 1 {
		if err := trailingError(vals[n-1]); err != nil {
			return resultError(err)
		}
		if isNilError(vals[n-1]) {
			vals = vals[:n-1]
		}
	}
	var b display.Bundle
	switch len(vals) {
	case 0:
		return nil
	case 1:
		if !vals[0].IsValid() {
			return nil // nil
		}
		b = display.BundleOf(vals[0].Interface())
	default:
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v.IsValid() {
				parts[i] = display.Text(v.Interface())
			} else {
				parts[i] = "nil"
			}
		}
		b = display.PlainBundle(strings.Join(parts, " "))
	}
	if b.Empty() {
		return nil
	}
	s.flush()
	s.emit(Event{Kind: EventResult, Data: b.Data, Metadata: orEmpty(b.Metadata)})
	return nil
}

// trailingError is the last value of a multi-value result when it is a
// non-nil error.
func trailingError(v reflect.Value) error {
	if !v.IsValid() || (v.Kind() == reflect.Interface && v.IsNil()) || !v.CanInterface() {
		return nil
	}
	err, _ := v.Interface().(error)
	return err
}

func isNilError(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	_, isErr := v.Interface().(error)
	return isErr && v.Kind() == reflect.Interface && v.IsNil()
}

// Call runs fn the way a cell runs: never at the same time as a cell, its
// output and displays delivered to emit, a panic turned into an error event.
// The kernel uses it for widget callbacks.
func (s *Session) Call(emit func(Event), fn func()) (err error) {
	s.run.Lock()
	defer s.run.Unlock()
	s.emitMu.Lock()
	s.emitFunc = emit
	s.emitMu.Unlock()
	prev := display.SetPublisher(s.publishDisplay)
	defer func() {
		if r := recover(); r != nil {
			s.flush()
			msg := fmt.Sprint(r)
			s.emit(Event{Kind: EventError, EName: "panic", EValue: msg, Traceback: []string{"panic in a widget callback: " + msg}})
			err = fmt.Errorf("%w: panic: %s", ErrCellFailed, msg)
		}
		s.flush()
		display.SetPublisher(prev)
		s.emitMu.Lock()
		s.emitFunc = nil
		s.emitMu.Unlock()
	}()
	fn()
	return nil
}
