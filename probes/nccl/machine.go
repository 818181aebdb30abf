package nccl

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/commlab/commlab/probes/cuda"
)

// machine is the communicators, streams and events over the chosen GPUs.
type machine struct {
	devs  []int
	comms []comm
	// nonBlocking: the communicators were created with blocking = 0, so
	// NCCL calls return ncclInProgress instead of blocking.
	nonBlocking bool
	clk         clock
	// drained: after an abort, every stream emptied, so buffers may be
	// freed (cudaFree waits for the device).
	drained bool
	streams []cuda.Stream
	start   []cuda.Event
	end     []cuda.Event
	// releases undo cuda.HoldStream once the communicators are aborted.
	releases []func()
}

// initSlack is added to the timeout for bringing the communicators up.
const initSlack = 30 * time.Second

func newMachine(devs []int, initTimeout time.Duration, nonBlocking bool, clk clock) (*machine, error) {
	m := &machine{devs: devs, clk: clk, drained: true}
	var comms []comm
	var ok bool
	var err error
	if nonBlocking {
		comms, ok, err = commInitNonBlocking(devs, clk.Now().Add(initTimeout), clk)
	}
	if ok && errors.Is(err, errDeadline) {
		te := &TimeoutError{Phase: PhaseInit, Devices: devs, After: initTimeout}
		m.comms = comms
		m.abortAfterTimeout(te)
		return nil, te
	}
	if !ok && err == nil {
		comms, err = commInitAll(devs)
	}
	if err != nil {
		return nil, err
	}
	m.comms, m.nonBlocking = comms, ok
	for _, d := range devs {
		s, err := cuda.NewStream(d)
		if err != nil {
			m.close()
			return nil, err
		}
		m.streams = append(m.streams, s)
		a, err := cuda.NewEvent(d)
		if err != nil {
			m.close()
			return nil, err
		}
		b, err := cuda.NewEvent(d)
		if err != nil {
			a.Destroy()
			m.close()
			return nil, err
		}
		m.start, m.end = append(m.start, a), append(m.end, b)
	}
	return m, nil
}

func (m *machine) close() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, r := range m.releases {
		r()
	}
	m.releases = nil
	for i := range m.streams {
		keep(cuda.Synchronize(m.devs[i]))
	}
	for i := range m.start {
		keep(m.start[i].Destroy())
		keep(m.end[i].Destroy())
	}
	for _, s := range m.streams {
		keep(s.Destroy())
	}
	for _, c := range m.comms {
		keep(commDestroy(c))
	}
	m.comms, m.streams, m.start, m.end = nil, nil, nil, nil
	return first
}

// abortAfterTimeout aborts every communicator (ncclCommAbort: it tells
// the running NCCL kernels to quit and frees the communicators), releases
// held streams, and waits up to drainLimit for the streams to empty, so
// that buffers can be freed without cudaFree waiting on hung work. It
// records the outcome in te. ncclCommAbort may itself wait for work queued
// behind a stalled kernel; so it runs in its own thread and the holds are
// released after abortGrace even if it has not returned.
func (m *machine) abortAfterTimeout(te *TimeoutError) {
	done := make(chan struct{})
	comms := m.comms
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		abortAll(comms)
		close(done)
	}()
	var notes []string
	returned := false
	select {
	case <-done:
		returned = true
	case <-time.After(abortGrace):
	}
	if len(m.releases) > 0 {
		if !returned {
			notes = append(notes, fmt.Sprintf("ncclCommAbort waited on the stalled stream; released it after %s", abortGrace))
		}
		for _, r := range m.releases {
			r()
		}
		m.releases = nil
	}
	if !returned {
		select {
		case <-done:
			returned = true
		case <-time.After(abortLimit):
			notes = append(notes, fmt.Sprintf("ncclCommAbort had not returned %s later; the communicators were left behind", abortLimit))
		}
	}
	m.comms = nil
	te.Aborted = returned
	m.drained = m.drain(drainLimit) == nil
	if !m.drained {
		notes = append(notes, fmt.Sprintf("streams still busy %s after the abort; their buffers were left allocated", drainLimit))
	}
	te.Note = strings.Join(notes, "; ")
}

// drain records a marker event on every stream and polls them until all
// have passed it (the streams are empty) or limit passes.
func (m *machine) drain(limit time.Duration) error {
	for r := range m.streams {
		if err := cuda.SetDevice(m.devs[r]); err != nil {
			return err
		}
		if err := m.end[r].Record(m.streams[r]); err != nil {
			return err
		}
	}
	return pollUntil(m.clk, m.clk.Now().Add(limit), func() (bool, error) {
		for r := range m.streams {
			ok, err := m.end[r].Done()
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	})
}

// closeAfterAbort frees what an aborted machine can free without waiting
// on the GPU: events and streams always (neither call waits for queued
// work); buffers were freed by sweep only if the streams drained.
func (m *machine) closeAfterAbort() {
	for i := range m.start {
		m.start[i].Destroy()
		m.end[i].Destroy()
	}
	for _, s := range m.streams {
		s.Destroy()
	}
	m.streams, m.start, m.end = nil, nil, nil
}

// abortGrace is how long an abort may wait on a held stream before the
// hold is released; abortLimit how much longer it may take after that;
// drainLimit how long the streams may take to empty afterwards.
var (
	abortGrace = 2 * time.Second
	abortLimit = 5 * time.Second
	drainLimit = 5 * time.Second
)
