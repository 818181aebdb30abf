package session

import (
	"errors"

	"github.com/commlab/commlab/kernel/display"
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
	// Line is the cell line an error points at, 0 when unknown.
	Line int
	Wait bool
}

// ErrCellFailed is wrapped by Execute's error when a cell raised an error
// (its EventError has been emitted).
var ErrCellFailed = errors.New("session: cell failed")

// ErrAbandoned: an interrupted cell left a compiled call running
// (Options.AbandonInterrupted), so the session runs no more cells.
var ErrAbandoned = errors.New("session: an interrupted cell's compiled call is still running")

// ErrInterrupted is wrapped when a cell was stopped by its context.
var ErrInterrupted = errors.New("session: interrupted")

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

// streamSinkDirect emits a stream event in order with captured output.
func (s *Session) streamSinkDirect(name, text string) {
	s.flush()
	s.emit(Event{Kind: EventStream, Name: name, Text: text})
}
