package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/kernel/display"
	"github.com/traefik/yaegi/interp"
)

// runProgram runs a compiled cell with ctx as its context (display.Context).
// Cancelling ctx stops the interpreter at its next step, but a compiled call
// in progress (sort.Float64s on a large slice, a parser, a measurement that
// ignores the context) cannot be stopped from outside: yaegi returns at once
// and leaves the call running. A cell is finished only when its code has
// stopped, so runProgram waits for that call to return, and says so.
func (s *Session) runProgram(ctx context.Context, prog *interp.Program) error {
	// An interrupt that came before the run (while the cell compiled, or
	// right after execute_input) must not start it: yaegi's stop takes
	// effect only once Execute has stamped its frame, so a stop before that
	// is lost and the cell would run on.
	if err := ctx.Err(); err != nil {
		return err
	}
	prev := display.SetContext(ctx)
	defer display.SetContext(prev)
	me := goroutineID()
	_, err := s.in.ExecuteWithContext(ctx, prog)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		if s.opts.AbandonInterrupted {
			if stack, running := cellGoroutine(me); running {
				s.abandoned = compiledCall(stack)
			}
			return err
		}
		s.awaitStopped(me)
	}
	return err
}

// yaegiRunner is how the goroutine running an interrupted program appears
// in a stack dump: yaegi's ExecuteWithContext starts it.
const yaegiRunner = "created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine "

// interruptGrace is how long an interrupted cell waits for a compiled
// call in silence: a call about to return (time.Sleep of a few ms in a
// loop) needs no advice, one that goes on is named, with the way out.
const interruptGrace = 2 * time.Second

// awaitStopped waits until the goroutine that ExecuteWithContext, called by
// goroutine caller, started to run the cell has ended. Nothing signals its
// end, so the wait looks at the goroutines, less often as it goes on. Past
// s.interruptGrace it says which compiled call it waits for, once.
func (s *Session) awaitStopped(caller uint64) {
	if s.onAwait != nil {
		s.onAwait()
	}
	begin := time.Now()
	said := false
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		stack, running := cellGoroutine(caller)
		if !running {
			return
		}
		if call := compiledCall(stack); call != "" && !said && time.Since(begin) >= s.interruptGrace {
			said = true
			s.streamSinkDirect("stderr", fmt.Sprintf("interrupt: %s has not returned yet; the cell ends when it does (restart the kernel to abandon it)\n", call))
		}
		time.Sleep(delay)
	}
}

// cellGoroutine returns the stack of the goroutine running the program that
// goroutine caller executes, if it still runs.
func cellGoroutine(caller uint64) (string, bool) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	marker := []byte(yaegiRunner + strconv.FormatUint(caller, 10) + "\n")
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if bytes.Contains(g, marker) {
			return string(g), true
		}
	}
	return "", false
}

// compiledCall names the outermost compiled function a goroutine running
// interpreted code is in ("sort.Float64s"), or "" when it is interpreting.
func compiledCall(stack string) string {
	lines := strings.Split(stack, "\n")
	// Frames come in pairs (function, file:line), innermost first, after
	// the "goroutine N [state]:" line; the last pair says who created it.
	var funcs []string
	for i := 1; i < len(lines); i += 2 {
		if strings.HasPrefix(lines[i], "created by ") {
			break
		}
		funcs = append(funcs, lines[i])
	}
	for i := len(funcs) - 1; i >= 0; i-- {
		name := funcs[i]
		if p := strings.LastIndex(name, "("); p > 0 && strings.HasSuffix(name, ")") {
			name = name[:p]
		}
		if strings.HasPrefix(name, "github.com/traefik/yaegi/") || strings.HasPrefix(name, "reflect.") ||
			strings.HasPrefix(name, "runtime.") || strings.HasPrefix(name, "internal/") || strings.HasPrefix(name, "panic(") {
			continue
		}
		return name[strings.LastIndex(name, "/")+1:]
	}
	return ""
}

// goroutineID is the calling goroutine's number, as stack dumps show it.
func goroutineID() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	field := strings.Fields(strings.TrimPrefix(string(buf[:n]), "goroutine "))[0]
	id, _ := strconv.ParseUint(field, 10, 64)
	return id
}
