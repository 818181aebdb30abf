package nccl

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrTimeout says a collective did not finish in time and the
// communicators were aborted.
var ErrTimeout = errors.New("nccl: collective timed out")

// clock is the time source of the polling loops, so tests can drive the
// deadlines without waiting.
type clock interface {
	Now() time.Time
	Sleep(time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// pollInterval is the pause between polls of events and communicator
// states; short, since batch times come from CUDA events, not from this.
const pollInterval = 20 * time.Microsecond

// errDeadline says a poll ran out of time; callers turn it into a
// TimeoutError that names the operation.
var errDeadline = errors.New("nccl: deadline passed")

// pollUntil calls step until it reports done or an error, or deadline
// passes (errDeadline). step runs at least once, even past the deadline.
func pollUntil(clk clock, deadline time.Time, step func() (bool, error)) error {
	for {
		done, err := step()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if !clk.Now().Before(deadline) {
			return errDeadline
		}
		clk.Sleep(pollInterval)
	}
}

// Timeout phases.
const (
	PhaseInit       = "init"       // the communicators did not come up
	PhaseLaunch     = "launch"     // NCCL did not finish enqueuing the operations
	PhaseCompletion = "completion" // the operations did not finish on the GPUs
)

// TimeoutError is an operation that did not finish in time. It wraps
// ErrTimeout; Aborted says whether ncclCommAbort returned on every
// communicator in time, so the process can carry on.
type TimeoutError struct {
	Phase   string
	Op      string // collective; empty in PhaseInit
	Bytes   int64
	InPlace bool
	Devices []int // the ranks' GPUs, rank order
	After   time.Duration
	Aborted bool
	// Note says what the abort left behind, if anything.
	Note string
}

func (e *TimeoutError) Error() string {
	var b strings.Builder
	b.WriteString(ErrTimeout.Error())
	b.WriteString(": ")
	if e.Op != "" {
		mode := "out-of-place"
		if e.InPlace {
			mode = "in-place"
		}
		fmt.Fprintf(&b, "%s %d bytes %s ", e.Op, e.Bytes, mode)
	}
	fmt.Fprintf(&b, "on GPUs %v: %s not finished after %s", e.Devices, e.Phase, e.After)
	if e.Aborted {
		b.WriteString("; communicators aborted (ncclCommAbort)")
	} else {
		b.WriteString("; communicators not (yet) aborted")
	}
	if e.Note != "" {
		b.WriteString("; " + e.Note)
	}
	return b.String()
}

func (e *TimeoutError) Unwrap() error { return ErrTimeout }
