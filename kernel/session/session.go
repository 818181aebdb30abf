package session

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"path"
	"reflect"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/commlab/commlab/kernel/display"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// EventKind says what an Event carries; the values are Jupyter's message
// and nbformat output type names.
type EventKind string

// Event kinds.
const (
	EventStream        EventKind = "stream"              // Name "stdout"|"stderr", Text
	EventDisplay       EventKind = "display_data"        // Data, Metadata, DisplayID
	EventUpdateDisplay EventKind = "update_display_data" // Data, Metadata, DisplayID
	EventResult        EventKind = "execute_result"      // Data, Metadata
	EventError         EventKind = "error"               // EName, EValue, Traceback
	EventClearOutput   EventKind = "clear_output"        // Wait
)

// Event is one piece of a cell's output.
type Event struct {
	Kind      EventKind
	Name      string
	Text      string
	Data      map[string]any
	Metadata  map[string]any
	DisplayID string
	EName     string
	EValue    string
	Traceback []string
	Wait      bool
}

// ErrCellFailed is wrapped by Execute's error when a cell raised an error
// (its EventError has been emitted).
var ErrCellFailed = errors.New("session: cell failed")

// ErrInterrupted is wrapped when a cell was stopped by its context.
var ErrInterrupted = errors.New("session: interrupted")

// Options configure a Session.
type Options struct {
	// Stdin answers a cell that reads standard input (fmt.Scanln); nil
	// means the cell reads end of file.
	Stdin func(prompt string, password bool) (string, error)
	// Dir is the working directory of cells ("" keeps the process's).
	Dir string
	// Packages are the compiled packages cells may import, as yaegi
	// extract generates them (kernel/symbols); the standard library is
	// always there.
	Packages map[string]map[string]reflect.Value
	// CaptureProcessOutput redirects the process's standard output and
	// error into the cell's stream events, so compiled packages that
	// write to os.Stdout reach the notebook in order. One session at a
	// time may capture; Close restores the descriptors.
	CaptureProcessOutput bool
	// Background receives events that happen while no cell runs, such
	// as output of a goroutine a finished cell started.
	Background func(Event)
}

// Session is one interpreter and what it remembers between cells.
type Session struct {
	opts Options

	run sync.Mutex // one cell at a time

	emitMu   sync.Mutex
	emitFunc func(Event)

	in        *interp.Interpreter
	stderrW   *interpStderr
	decls     *declTable
	imports   []importSpec
	known     map[string]string // package name -> import path, for auto-import
	exported  map[string]map[string]reflect.Value
	result    []reflect.Value
	hasResult bool

	stdout, stderr *streamCapture
	count          int
	history        []HistoryEntry
	pending        string // stdin line not yet read by the cell
}

type importSpec struct {
	name, path string
}

// New starts a session.
func New(opts Options) (*Session, error) {
	s := &Session{opts: opts, decls: newDeclTable()}
	s.exported = map[string]map[string]reflect.Value{}
	for k, v := range stdlib.Symbols {
		s.exported[k] = v
	}
	for k, v := range opts.Packages {
		s.exported[k] = v
	}
	s.known = knownPackages(s.exported)
	if opts.CaptureProcessOutput {
		var err error
		if s.stdout, err = captureFD("stdout", 1, s.streamSink); err != nil {
			return nil, err
		}
		if s.stderr, err = captureFD("stderr", 2, s.streamSink); err != nil {
			s.stdout.restore()
			return nil, err
		}
		// A fatal runtime error ends the process before the pipe is read:
		// let the runtime write it to the real stderr.
		_ = debug.SetCrashOutput(s.stderr.original(), debug.CrashOptions{})
	}
	if err := s.reset(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// TerminalStderr is where a program that captures its output can still
// write to the terminal (progress lines, logs): the original standard error.
func (s *Session) TerminalStderr() io.Writer {
	if s.stderr != nil {
		return s.stderr.original()
	}
	return os.Stderr
}

// Close ends the session and gives the process its descriptors back.
func (s *Session) Close() error {
	if s.stdout != nil {
		s.stdout.restore()
		s.stdout = nil
	}
	if s.stderr != nil {
		_ = debug.SetCrashOutput(nil, debug.CrashOptions{})
		s.stderr.restore()
		s.stderr = nil
	}
	return nil
}

// Restart forgets every definition and starts a fresh interpreter.
func (s *Session) Restart() error {
	s.run.Lock()
	defer s.run.Unlock()
	s.decls = newDeclTable()
	s.imports = nil
	s.count = 0
	return s.reset()
}

// ExecutionCount is the number of cells executed with history stored.
func (s *Session) ExecutionCount() int { return s.count }

func (s *Session) reset() error {
	in, err := s.newInterpreter()
	if err != nil {
		return err
	}
	s.in = in
	return nil
}

func (s *Session) newInterpreter() (*interp.Interpreter, error) {
	s.stderrW = &interpStderr{out: os.Stderr}
	var stdout io.Writer = os.Stdout
	if s.stdout == nil {
		stdout = eventWriter{name: "stdout", emit: s.streamSink}
		s.stderrW.out = eventWriter{name: "stderr", emit: s.streamSink}
	}
	in := interp.New(interp.Options{
		Stdin:  inputReader{s: s},
		Stdout: stdout,
		Stderr: s.stderrW,
	})
	if err := in.Use(stdlib.Symbols); err != nil {
		return nil, fmt.Errorf("session: load standard library: %w", err)
	}
	// Restricted mode (kept: os.Exit must not end the kernel) gives cells
	// a private copy of the environment; a notebook sets NCCL_* variables
	// for the probes it calls, so cells get the process's own.
	if err := in.Use(interp.Exports{"os/os": {
		"Getenv": reflect.ValueOf(os.Getenv), "LookupEnv": reflect.ValueOf(os.LookupEnv),
		"Setenv": reflect.ValueOf(os.Setenv), "Unsetenv": reflect.ValueOf(os.Unsetenv),
		"Environ": reflect.ValueOf(os.Environ), "ExpandEnv": reflect.ValueOf(os.ExpandEnv),
		"Clearenv": reflect.ValueOf(os.Clearenv),
	}}); err != nil {
		return nil, fmt.Errorf("session: environment: %w", err)
	}
	if err := in.Use(interp.Exports(s.opts.Packages)); err != nil {
		return nil, fmt.Errorf("session: load packages: %w", err)
	}
	if err := in.Use(interp.Exports{"commlab.session/helpers/helpers": s.helperSymbols()}); err != nil {
		return nil, fmt.Errorf("session: load helpers: %w", err)
	}
	if _, err := in.Eval(prelude); err != nil {
		return nil, fmt.Errorf("session: prelude: %w", err)
	}
	if s.opts.Dir != "" {
		if err := os.Chdir(s.opts.Dir); err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
	}
	return in, nil
}

// helperSymbols are the compiled functions the rewritten cells call.
func (s *Session) helperSymbols() map[string]reflect.Value {
	return map[string]reflect.Value{
		"Result": reflect.ValueOf(func(vs ...any) {
			s.result = s.result[:0]
			for _, v := range vs {
				s.result = append(s.result, reflect.ValueOf(v))
			}
			s.hasResult = true
		}),
		"GoPanic": reflect.ValueOf(func(v any) {
			s.emit(Event{Kind: EventError, EName: "panic", EValue: fmt.Sprint(v),
				Traceback: []string{"panic in a goroutine started by a cell: " + fmt.Sprint(v),
					"(the goroutine stopped; the kernel and its state live on)"}})
		}),
		"Clear": reflect.ValueOf(func(v any) {
			rv := reflect.ValueOf(v)
			switch rv.Kind() {
			case reflect.Map, reflect.Slice:
				rv.Clear()
			default:
				panic(fmt.Sprintf("invalid argument: clear(%T): argument must be a map or a slice", v))
			}
		}),
	}
}

func knownPackages(exported map[string]map[string]reflect.Value) map[string]string {
	// Where two packages share a name, goimports prefers the shorter,
	// more common path; keep that rule: math/rand over crypto/rand.
	known := map[string]string{}
	for key := range exported {
		slash := strings.LastIndex(key, "/")
		if slash <= 0 {
			continue
		}
		p := key[:slash]
		name := path.Base(p)
		if strings.Contains(p, "internal") || strings.HasPrefix(p, "commlab.session") {
			continue
		}
		if old, ok := known[name]; !ok || len(p) < len(old) || (len(p) == len(old) && p < old) {
			known[name] = p
		}
	}
	if _, ok := known["rand"]; ok {
		known["rand"] = "math/rand"
	}
	return known
}

func (s *Session) emit(e Event) {
	s.emitMu.Lock()
	f := s.emitFunc
	s.emitMu.Unlock()
	if f == nil {
		f = s.opts.Background
	}
	if f != nil {
		f(e)
	}
}

func (s *Session) streamSink(name, text string) {
	if text == "" {
		return
	}
	s.emit(Event{Kind: EventStream, Name: name, Text: text})
}

// Flush waits until output written so far (also by compiled code) has
// been emitted.
func (s *Session) Flush() { s.flush() }

// flush waits until captured output written so far has been emitted.
func (s *Session) flush() {
	if s.stdout != nil {
		flushStreams(s.stdout, s.stderr)
	}
}

func (s *Session) publishDisplay(m display.Message) {
	s.flush()
	switch m.Kind {
	case display.KindClear:
		s.emit(Event{Kind: EventClearOutput, Wait: m.Wait})
	case display.KindUpdate:
		s.emit(Event{Kind: EventUpdateDisplay, Data: m.Bundle.Data, Metadata: orEmpty(m.Bundle.Metadata), DisplayID: m.DisplayID})
	default:
		s.emit(Event{Kind: EventDisplay, Data: m.Bundle.Data, Metadata: orEmpty(m.Bundle.Metadata), DisplayID: m.DisplayID})
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

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
	err := s.runGuarded(ctx, code)
	s.flush()
	if err != nil {
		var ce *cellError
		if errors.As(err, &ce) {
			s.emit(Event{Kind: EventError, EName: ce.ename, EValue: ce.evalue, Traceback: ce.traceback})
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

// cellError is an error in the notebook's terms.
type cellError struct {
	ename, evalue string
	traceback     []string
}

func (e *cellError) Error() string { return e.ename + ": " + e.evalue }

func (s *Session) runCell(ctx context.Context, code string) error {
	items, err := splitCell(code)
	if err != nil {
		return splitError(code, err)
	}
	groups := groupItems(items)
	for gi, g := range groups {
		final := gi == len(groups)-1
		if err := s.runGroup(ctx, code, g, final); err != nil {
			return err
		}
	}
	return nil
}

// globals is the interpreter's global variables and constants. yaegi's
// Globals indexes a frame that only grows when code runs, and a compile that
// failed can leave a symbol past its end: run an empty statement to grow
// the frame and ask again.
func (s *Session) globals() map[string]reflect.Value {
	if g, ok := tryGlobals(s.in); ok {
		return g
	}
	_, _ = evalIn(s.in, "_ = 0")
	if g, ok := tryGlobals(s.in); ok {
		return g
	}
	return map[string]reflect.Value{}
}

func tryGlobals(in *interp.Interpreter) (g map[string]reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			g, ok = nil, false
		}
	}()
	return in.Globals(), true
}

func (s *Session) scope() scopeInfo {
	globals := s.globals()
	return scopeInfo{
		defined: func(name string) bool {
			if _, ok := globals[name]; ok {
				return true
			}
			_, ok := s.decls.get(name)
			return ok
		},
		imported: func(name string) bool {
			for _, im := range s.imports {
				if im.name == name {
					return true
				}
			}
			return false
		},
		globalKinds: func(name string) reflect.Kind {
			if v, ok := globals[name]; ok && v.IsValid() {
				return v.Kind()
			}
			return reflect.Invalid
		},
		constDecls: s.decls.consts(),
		known: func(name string) bool {
			_, ok := s.known[name]
			return ok
		},
	}
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
	if g.kind == itemDecl {
		return s.runDecls(cell, rw)
	}
	return s.runStatements(ctx, cell, rw)
}

// runImports evaluates a cell's imports. An import already in effect (the
// same name for the same path) is skipped: yaegi rejects a second one, and
// re-running a cell must work.
func (s *Session) runImports(cell, src string) error {
	f, err := parser.ParseFile(token.NewFileSet(), "", declPrefix+src, parser.ImportsOnly)
	if err != nil {
		return s.compileError(cell, err)
	}
	var fresh []string
	var added []importSpec
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		name := s.packageName(p)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if s.importedAs(name, p) {
			continue
		}
		alias := ""
		if spec.Name != nil {
			alias = spec.Name.Name + " "
		}
		fresh = append(fresh, "import "+alias+strconv.Quote(p))
		added = append(added, importSpec{name, p})
	}
	if len(fresh) == 0 {
		return nil
	}
	line, _ := lineCol(cell, strings.Index(cell, "import"))
	if _, err := s.eval(strings.Repeat("\n", line) + strings.Join(fresh, ";")); err != nil {
		return s.compileError(cell, err)
	}
	for _, im := range added {
		s.addImport(im.name, im.path)
	}
	return nil
}

func (s *Session) importedAs(name, p string) bool {
	for _, im := range s.imports {
		if im.name == name && im.path == p {
			return true
		}
	}
	return false
}

// packageName is the name a package declares, from the symbol tables
// (math/rand/v2 is "rand"), else the path's last element.
func (s *Session) packageName(p string) string {
	for key := range s.exported {
		if strings.HasPrefix(key, p+"/") && !strings.Contains(key[len(p)+1:], "/") {
			return key[len(p)+1:]
		}
	}
	return path.Base(p)
}

func (s *Session) addImport(name, p string) {
	for i, im := range s.imports {
		if im.name == name {
			s.imports[i].path = p
			return
		}
	}
	s.imports = append(s.imports, importSpec{name, p})
}

// autoImport adds imports of known packages a group uses without importing
// them, as goimports would; unknown names are left for the compiler to
// report.
func (s *Session) autoImport(names []string) error {
	for _, name := range names {
		p, ok := s.known[name]
		if !ok {
			continue
		}
		spec := fmt.Sprintf("import %s %q", name, p)
		if _, err := s.eval(spec); err != nil {
			return err
		}
		s.addImport(name, p)
	}
	return nil
}

func (s *Session) runDecls(cell string, rw rewriteResult) error {
	// A type or method whose text changed cannot be redefined in place
	// (yaegi keeps the first one): rebuild the interpreter from the
	// declarations.
	rebuild := false
	var fixed []string
	for _, n := range rw.declared {
		if d, ok := s.decls.get(n); ok && (d.kind == "type" || d.kind == "method") {
			rebuild = true
			fixed = append(fixed, n)
		}
	}
	before := map[string]bool{}
	for _, n := range rw.declared {
		if _, ok := s.decls.get(n); ok {
			before[n] = true
		}
	}
	if rebuild {
		trial := *s.decls
		trial.byName = map[string]*declaration{}
		for k, v := range s.decls.byName {
			c := *v
			trial.byName[k] = &c
		}
		changed := trial.record(rw.src)
		if !typeChanged(s.decls, &trial, fixed) {
			rebuild = false
		} else {
			if err := s.rebuild(&trial); err != nil {
				return s.compileError(cell, err)
			}
			s.decls = &trial
			_ = changed
			return nil
		}
	}
	if _, err := s.eval(rw.src); err != nil {
		return s.compileError(cell, err)
	}
	changed := s.decls.record(rw.src)
	var redefined []string
	for _, n := range changed {
		if before[n] {
			redefined = append(redefined, n)
		}
	}
	s.recompileDependents(redefined, rw.declared)
	return nil
}

func typeChanged(old, updated *declTable, names []string) bool {
	for _, n := range names {
		o, ok1 := old.get(n)
		u, ok2 := updated.get(n)
		if ok1 && ok2 && o.src != u.src {
			return true
		}
	}
	return false
}

// recompileDependents compiles again every declaration that uses a
// redefined name, so calls reach the new definition.
func (s *Session) recompileDependents(redefined, justDeclared []string) {
	if len(redefined) == 0 {
		return
	}
	except := map[string]bool{}
	for _, n := range justDeclared {
		except[n] = true
	}
	deps := s.decls.dependents(redefined, except)
	if len(deps) == 0 {
		return
	}
	var b strings.Builder
	for _, d := range deps {
		b.WriteString(d.src)
		b.WriteString("\n")
	}
	if _, err := s.eval(b.String()); err != nil {
		names := make([]string, len(deps))
		for i, d := range deps {
			names[i] = d.name
		}
		s.streamSinkDirect("stderr", fmt.Sprintf("note: %s still use the previous definition of %s: they no longer compile: %v\n",
			strings.Join(names, ", "), strings.Join(redefined, ", "), err))
	}
}

// streamSinkDirect emits a stream event in order with captured output.
func (s *Session) streamSinkDirect(name, text string) {
	s.flush()
	s.emit(Event{Kind: EventStream, Name: name, Text: text})
}

// rebuild starts a fresh interpreter with every recorded import and
// declaration, then carries over the values of variables whose types are
// unchanged. Variables that cannot be carried are named on stderr.
func (s *Session) rebuild(decls *declTable) error {
	oldGlobals := s.globals()
	oldStderr := s.stderrW
	in, err := s.newInterpreter()
	if err != nil {
		return err
	}
	for _, im := range s.imports {
		if _, err := evalIn(in, fmt.Sprintf("import %s %q", im.name, im.path)); err != nil {
			s.stderrW = oldStderr
			return err
		}
	}
	var b strings.Builder
	for _, d := range decls.all() {
		b.WriteString(d.src)
		b.WriteString("\n")
	}
	if _, err := evalIn(in, b.String()); err != nil {
		s.stderrW = oldStderr
		return fmt.Errorf("redefinition rejected, previous definitions kept: %w", err)
	}
	newGlobals, _ := tryGlobals(in)
	var dropped []string
	names := make([]string, 0, len(oldGlobals))
	for n := range oldGlobals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		ov := oldGlobals[name]
		if strings.HasPrefix(name, "__commlab") || !ov.IsValid() {
			continue
		}
		if nv, ok := newGlobals[name]; ok {
			if nv.CanSet() && nv.Type() == ov.Type() {
				nv.Set(ov)
			}
			continue
		}
		ts := ov.Type().String()
		if !restorable(ts, s.imports) {
			dropped = append(dropped, name)
			continue
		}
		if _, err := evalIn(in, "var "+name+" "+ts); err != nil {
			dropped = append(dropped, name)
			continue
		}
		if g, _ := tryGlobals(in); g != nil && g[name].IsValid() && g[name].CanSet() && g[name].Type() == ov.Type() {
			g[name].Set(ov)
		} else {
			dropped = append(dropped, name)
		}
	}
	s.in = in
	if len(dropped) > 0 {
		s.streamSinkDirect("stderr", fmt.Sprintf("note: a type was redefined; these variables were dropped and need their cells run again: %s\n", strings.Join(dropped, ", ")))
	}
	return nil
}

var qualifier = regexp.MustCompile(`\b([a-z][a-z0-9_]*)\.[A-Z]`)

// restorable reports whether a reflect type string can be declared again in
// source: no anonymous struct, interface, func or chan (interpreted named
// types show up as such), and every package qualifier imported.
func restorable(ts string, imports []importSpec) bool {
	for _, bad := range []string{"struct", "interface", "func", "chan"} {
		if strings.Contains(ts, bad) {
			return false
		}
	}
	for _, m := range qualifier.FindAllStringSubmatch(ts, -1) {
		found := false
		for _, im := range imports {
			if im.name == m[1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (s *Session) runStatements(ctx context.Context, cell string, rw rewriteResult) error {
	// Names a statement defines replace any declaration of the same name.
	var redefined []string
	for _, n := range rw.declared {
		if _, ok := s.decls.get(n); ok {
			s.decls.forget(n)
			redefined = append(redefined, n)
		}
	}
	s.result, s.hasResult = s.result[:0], false
	var prog *interp.Program
	var err error
	if rw.capture != "" {
		prog, err = s.compile(rw.capture)
	}
	if prog == nil {
		prog, err = s.compile(rw.src)
	}
	if err != nil {
		return s.compileError(cell, err)
	}
	s.stderrW.takeTrace()
	_, err = s.in.ExecuteWithContext(ctx, prog)
	if err != nil {
		if ctx.Err() != nil {
			return &cellError{ename: "Interrupted", evalue: "the cell was interrupted",
				traceback: []string{"Interrupted: the cell was stopped; variables keep the values they had"}}
		}
		return s.runtimeError(cell, err)
	}
	s.recompileDependents(redefined, nil)
	if s.hasResult && !rw.finalIsPrint {
		s.emitResult()
	}
	return nil
}

// emitResult shows a final expression's value. A multi-value expression
// shows its values side by side; a trailing nil error is left out, so
// `f()` that returns (x, nil) shows x.
func (s *Session) emitResult() {
	vals := s.result
	if n := len(vals); n > 1 && isNilError(vals[n-1]) {
		vals = vals[:n-1]
	}
	var b display.Bundle
	switch len(vals) {
	case 0:
		return
	case 1:
		if !vals[0].IsValid() {
			return // nil
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
		return
	}
	s.flush()
	s.emit(Event{Kind: EventResult, Data: b.Data, Metadata: orEmpty(b.Metadata)})
}

func isNilError(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	_, isErr := v.Interface().(error)
	return isErr && v.Kind() == reflect.Interface && v.IsNil()
}

// Result returns the values of the last final expression, for callers
// such as user_expressions that need the value rather than its display.
func (s *Session) lastResult() []reflect.Value { return s.result }

func (s *Session) eval(src string) (reflect.Value, error) { return evalIn(s.in, src) }

func evalIn(in *interp.Interpreter, src string) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	v, err = in.Eval(src)
	if p, ok := err.(interp.Panic); ok {
		err = fmt.Errorf("%v", p.Value)
	}
	return v, err
}

// compile compiles without running; yaegi can panic on code it does not
// support, which becomes an ordinary compile error here.
func (s *Session) compile(src string) (prog *interp.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("unsupported by the interpreter: %v", r)
		}
	}()
	return s.in.Compile(src)
}

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

// inputReader asks the notebook user for a line when a cell reads stdin.
type inputReader struct{ s *Session }

func (r inputReader) Read(p []byte) (int, error) {
	if r.s.opts.Stdin == nil {
		return 0, io.EOF
	}
	if r.s.pending == "" {
		r.s.flush()
		line, err := r.s.opts.Stdin("", false)
		if err != nil {
			return 0, err
		}
		r.s.pending = line + "\n"
	}
	n := copy(p, r.s.pending)
	r.s.pending = r.s.pending[n:]
	return n, nil
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
