package runner

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook"
)

// Executor runs one cell and reports its outputs as events, in order,
// before it returns; a failed cell returns an error wrapping
// session.ErrCellFailed. *session.Session is the executor the kernel uses.
type Executor interface {
	Execute(ctx context.Context, code string, emit func(session.Event)) error
}

var _ Executor = (*session.Session)(nil)

// Errors callers branch on.
var (
	// ErrCellFailed: a cell failed and errors were not allowed.
	ErrCellFailed = errors.New("lab: cell failed")
	// ErrCellTimeout: a cell ran past Options.CellTimeout.
	ErrCellTimeout = errors.New("lab: cell timed out")
)

// Options control a run.
type Options struct {
	// CellTimeout bounds each cell (0: no bound). The whole run is bounded
	// by the context.
	CellTimeout time.Duration
	// AllowErrors keeps running after a failed cell, as nbconvert's
	// --allow-errors does.
	AllowErrors bool
	// Progress, if not nil, shows the run.
	Progress *Progress
	// Name is the notebook's name in progress lines and errors.
	Name string
	// BeforeCell, if not nil, is called before each code cell runs, with
	// the notebook as far as it ran, the cell about to run (1-based among
	// all cells) and the run so far; RunFile writes the notebook there, so
	// that a process that dies in a cell leaves it behind, as papermill
	// does. Its error stops the run.
	BeforeCell func(nb *notebook.Notebook, cell int, res *Result) error
}

// CellError describes a failed cell.
type CellError struct {
	Cell   int // position among all cells, 1-based
	Code   int // position among code cells, 1-based
	Line   int // line in the cell, 0 when unknown
	EName  string
	EValue string
	Source string
	Err    error
}

func (e *CellError) Error() string {
	where := fmt.Sprintf("cell %d", e.Cell)
	if e.Line > 0 {
		where += fmt.Sprintf(", line %d", e.Line)
	}
	msg := e.EName
	if e.EValue != "" {
		msg += ": " + e.EValue
	}
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return where + ": " + msg
}

func (e *CellError) Unwrap() error { return e.Err }

// Result describes a run.
type Result struct {
	Started  time.Time
	Duration time.Duration
	// Executed counts the code cells run; Cells counts all code cells.
	Executed, Cells int
	// Failures lists failed cells (more than one only with AllowErrors).
	Failures []*CellError
}

// Status is "ok", "errors" (failures allowed) or "failed".
func (r *Result) Status(allowErrors bool) string {
	switch {
	case len(r.Failures) == 0:
		return "ok"
	case allowErrors:
		return "errors"
	default:
		return "failed"
	}
}

// MetadataKey is the notebook metadata entry where a run records its status
// and time, which the HTML index shows.
const MetadataKey = notebook.CommlabKey

// Run executes nb's code cells top to bottom through exec, replacing their
// outputs and execution counts. It stops at the first failed cell unless
// opts.AllowErrors; cells after it keep no outputs. It runs nb as it is:
// -p values are injected before (NewJob, InjectParameters). The returned
// error wraps ErrCellFailed (with a *CellError) or the context's error.
func Run(ctx context.Context, exec Executor, nb *notebook.Notebook, opts Options) (*Result, error) {
	nb.StripOutputs()
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	nb.Metadata["language_info"] = session.LanguageInfo()
	res := &Result{Started: time.Now()}
	for _, c := range nb.Cells {
		if c.Type == notebook.Code {
			res.Cells++
		}
	}
	opts.Progress.Begin(opts.Name, res.Cells)
	defer opts.Progress.End()

	r := &outputRouter{byDisplay: map[string][]*notebook.Output{}, progress: opts.Progress}
	var runErr error
	count, code := 0, 0
	for i, c := range nb.Cells {
		if c.Type != notebook.Code {
			continue
		}
		code++
		if err := ctx.Err(); err != nil {
			runErr = fmt.Errorf("lab: %s: stopped before cell %d: %w", opts.Name, i+1, err)
			break
		}
		if strings.TrimSpace(c.Source) == "" {
			continue // Jupyter does not count empty cells either.
		}
		if opts.BeforeCell != nil {
			res.Duration = time.Since(res.Started)
			if err := opts.BeforeCell(nb, i+1, res); err != nil {
				runErr = fmt.Errorf("lab: %s: before cell %d: %w", opts.Name, i+1, err)
				break
			}
		}
		count++
		n := count
		c.ExecutionCount = &n
		opts.Progress.Cell(code)
		cellCtx, cancel := ctx, context.CancelFunc(func() {})
		if opts.CellTimeout > 0 {
			cellCtx, cancel = context.WithTimeout(ctx, opts.CellTimeout)
		}
		r.cell, r.count = c, n
		begin := time.Now()
		err := execute(exec, cellCtx, c.Source, r.emit)
		timedOut := cellCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil
		cancel()
		setTiming(c, begin, time.Now())
		res.Executed++
		if err == nil {
			continue
		}
		ce := &CellError{Cell: i + 1, Code: code, Source: c.Source, Err: err}
		if r.lastError != nil {
			ce.EName, ce.EValue = r.lastError.EName, r.lastError.EValue
			ce.Line = errorLine(r.lastError)
		}
		if timedOut {
			ce.Err = fmt.Errorf("%w after %v: %w", ErrCellTimeout, opts.CellTimeout, err)
		}
		r.lastError = nil
		res.Failures = append(res.Failures, ce)
		if ctx.Err() != nil {
			runErr = fmt.Errorf("lab: %s: %w: %w", opts.Name, ctx.Err(), ce)
			break
		}
		if !opts.AllowErrors {
			runErr = fmt.Errorf("%w: %s: %w", ErrCellFailed, opts.Name, ce)
			break
		}
	}
	res.Duration = time.Since(res.Started)
	record(nb, res, opts.AllowErrors, runErr)
	return res, runErr
}

// ErrExecutorPanic: the executor itself panicked while running a cell.
var ErrExecutorPanic = errors.New("lab: executor panicked")

// execute runs a cell, turning a panic of the executor (not of the cell,
// which the executor reports as an error) into a failed cell, so a run
// always ends with a report and a written notebook.
func execute(exec Executor, ctx context.Context, code string, emit func(session.Event)) (err error) {
	defer func() {
		if v := recover(); v != nil {
			msg := fmt.Sprint(v)
			emit(session.Event{Kind: session.EventError, EName: "ExecutorPanic", EValue: msg, Traceback: []string{"the executor panicked: " + msg}})
			err = fmt.Errorf("%w: %s", ErrExecutorPanic, msg)
		}
	}()
	return exec.Execute(ctx, code, emit)
}

func setTiming(c *notebook.Cell, begin, end time.Time) {
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	c.Metadata["execution"] = map[string]any{
		"iopub.execute_input": begin.UTC().Format(time.RFC3339Nano),
		"shell.execute_reply": end.UTC().Format(time.RFC3339Nano),
	}
}

func record(nb *notebook.Notebook, res *Result, allowErrors bool, runErr error) {
	status := res.Status(allowErrors)
	if runErr != nil && len(res.Failures) == 0 {
		status = "stopped"
	}
	run := map[string]any{
		"status":     status,
		"started":    res.Started.UTC().Format(time.RFC3339),
		"duration_s": res.Duration.Round(time.Millisecond).Seconds(),
		"executed":   res.Executed,
		"cells":      res.Cells,
	}
	if len(res.Failures) > 0 {
		f := res.Failures[0]
		run["failed_cell"] = f.Cell
		run["error"] = f.Error()
	}
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	nb.Metadata[MetadataKey] = map[string]any{"run": run}
}

var (
	valuePos = regexp.MustCompile(`^(\d+):(\d+):`)
	tracePos = regexp.MustCompile(`\bat (\d+):(\d+) in `)
)

// errorLine finds the cell line an error names: compile errors start with
// "L:C:", panics carry "at L:C in ..." frames.
func errorLine(e *session.Event) int {
	if e.Line > 0 {
		return e.Line
	}
	if m := valuePos.FindStringSubmatch(e.EValue); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	line := 0
	for _, t := range e.Traceback {
		if m := tracePos.FindStringSubmatch(t); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
	}
	return line
}

// outputRouter turns a cell's events into notebook outputs, as nbclient
// does with the kernel's iopub messages.
type outputRouter struct {
	cell      *notebook.Cell
	count     int
	clearWait bool
	byDisplay map[string][]*notebook.Output
	lastError *session.Event
	progress  *Progress
}

func (r *outputRouter) add(o *notebook.Output) {
	if r.clearWait {
		r.clear()
		r.clearWait = false
	}
	if o.Type == notebook.Stream && len(r.cell.Outputs) > 0 {
		last := r.cell.Outputs[len(r.cell.Outputs)-1]
		if last.Type == notebook.Stream && last.Name == o.Name {
			last.Text += o.Text
			return
		}
	}
	r.cell.Outputs = append(r.cell.Outputs, o)
	if o.DisplayID != "" {
		r.byDisplay[o.DisplayID] = append(r.byDisplay[o.DisplayID], o)
	}
}

func (r *outputRouter) clear() {
	for _, o := range r.cell.Outputs {
		if o.DisplayID == "" {
			continue
		}
		list := r.byDisplay[o.DisplayID]
		for i, x := range list {
			if x == o {
				r.byDisplay[o.DisplayID] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
	}
	r.cell.Outputs = nil
}

func (r *outputRouter) emit(ev session.Event) {
	switch ev.Kind {
	case session.EventStream:
		name := ev.Name
		if name == "" {
			name = "stdout"
		}
		r.add(&notebook.Output{Type: notebook.Stream, Name: name, Text: ev.Text})
	case session.EventDisplay:
		r.add(&notebook.Output{Type: notebook.DisplayData, Data: ev.Data, Metadata: ev.Metadata, DisplayID: ev.DisplayID})
	case session.EventUpdateDisplay:
		for _, o := range r.byDisplay[ev.DisplayID] {
			o.Data, o.Metadata = ev.Data, ev.Metadata
		}
		if s, ok := ev.Data["text/plain"].(string); ok {
			r.progress.Note(s)
		}
	case session.EventResult:
		n := r.count
		r.add(&notebook.Output{Type: notebook.ExecuteResult, Data: ev.Data, Metadata: ev.Metadata, ExecutionCount: &n})
	case session.EventError:
		e := ev
		r.lastError = &e
		tb := ev.Traceback
		if tb == nil {
			tb = []string{}
		}
		r.add(&notebook.Output{Type: notebook.Error, EName: ev.EName, EValue: ev.EValue, Traceback: tb})
	case session.EventClearOutput:
		if ev.Wait {
			r.clearWait = true
		} else {
			r.clear()
		}
	}
}
