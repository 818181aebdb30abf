package session

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/commlab/commlab/kernel/display"
)

// Options configure a Session.
type Options struct {
	// Stdin answers a cell that reads standard input (fmt.Scanln); nil
	// means the cell reads end of file.
	Stdin func(prompt string, password bool) (string, error)
	// Dir is the working directory of cells ("" keeps the process's).
	// Cells use the process's directory (os.ReadFile, !cmd), so the
	// session moves the process there, as %cd does; Close moves it back.
	Dir string
	// Packages are the compiled packages cells may import, as yaegi
	// extract generates them (the program's own tables: the commlab
	// command hands package cells' ones); the standard library is always
	// there. A table reaches the interpreter when a cell imports its
	// package, so a long list costs the start nothing.
	Packages map[string]map[string]reflect.Value
	// Renderers show values of their types as cell results; New
	// registers them with kernel/display. The session knows no type of
	// its own to draw: the program hands them in with its packages.
	Renderers map[reflect.Type]display.Renderer
	// CaptureProcessOutput redirects the process's standard output and
	// error into the cell's stream events, so compiled packages that
	// write to os.Stdout reach the notebook in order. One session at a
	// time may capture; Close restores the descriptors.
	CaptureProcessOutput bool
	// Background receives events that happen while no cell runs, such
	// as output of a goroutine a finished cell started.
	Background func(Event)
	// AbandonInterrupted makes an interrupted cell that is inside a
	// compiled call return at once instead of waiting for the call; the
	// session then refuses further cells (ErrAbandoned). A headless run
	// uses it so that a cell timeout ends the run; the kernel waits.
	AbandonInterrupted bool
}

// Session is one interpreter and what it remembers between cells.
type Session struct {
	opts Options

	run sync.Mutex // one cell at a time

	emitMu   sync.Mutex
	emitFunc func(Event)

	in       *interp.Interpreter
	stderrW  *interpStderr
	decls    *declTable
	imports  []importSpec
	known    map[string]string // package name -> import path, for auto-import
	exported map[string]map[string]reflect.Value
	// funcRefs are the names a function body (a literal, or a declared
	// function's) has referred to in any cell: the old value of such a
	// name, redefined with :=, may still be what that function reads.
	funcRefs  map[string]bool
	packages  *packageTables // Options.Packages, handed to yaegi per import
	types     *goTypes       // go/types view of the packages and variables, for generic calls
	result    []reflect.Value
	hasResult bool

	stdout, stderr *streamCapture
	count          int
	history        []HistoryEntry
	solutions      solutionState // solution mode: blank answer cells run their solutions
	pending        string        // stdin line not yet read by the cell
	startDir       string        // the process's directory before the session, restored by Close
	abandoned      string        // the compiled call an abandoned cell left running
	// dropped names the variables a redefined type made the session
	// drop (see rebuild), with the types that changed, until defined again.
	dropped map[string]string
	// interruptGrace is how long an interrupted cell waits for a compiled
	// call before it says so (interruptGrace; tests change it), and
	// onAwait, when set, is called as that wait begins.
	interruptGrace time.Duration
	onAwait        func()
}

// New starts a session.
func New(opts Options) (*Session, error) {
	s := &Session{opts: opts, decls: newDeclTable(), interruptGrace: interruptGrace}
	s.exported = map[string]map[string]reflect.Value{}
	for k, v := range stdlib.Symbols {
		s.exported[k] = v
	}
	for k, v := range opts.Packages {
		s.exported[k] = v
	}
	for t, r := range opts.Renderers {
		display.RegisterRenderer(t, r)
	}
	s.known = knownPackages(s.exported)
	s.packages = newPackageTables(opts.Packages)
	s.types = newGoTypes(s.exported, s.packageName)
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
	s.startDir, _ = os.Getwd()
	if err := s.start(); err != nil {
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

// Close ends the session and gives the process its descriptors and its
// working directory back.
func (s *Session) Close() error {
	if s.startDir != "" {
		if wd, _ := os.Getwd(); wd != s.startDir {
			_ = os.Chdir(s.startDir)
		}
	}
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
	s.count = 0
	return s.forgetAll()
}

// forgetAll drops every declaration and import and starts a fresh
// interpreter, back in the cells' directory.
func (s *Session) forgetAll() error {
	s.decls = newDeclTable()
	s.imports = nil
	s.dropped = nil
	clear(s.types.varTypes)
	return s.start()
}

// start starts the interpreter in the cells' directory.
func (s *Session) start() error {
	if s.opts.Dir != "" {
		if err := os.Chdir(s.opts.Dir); err != nil {
			return fmt.Errorf("session: %w", err)
		}
	}
	return s.reset()
}

// ExecutionCount is the number of cells executed with history stored.
func (s *Session) ExecutionCount() int { return s.count }
