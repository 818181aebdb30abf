package nccl

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
)

// One collective at one size and mode on every rank: its buffers, its
// launch, the wait with a deadline, and the timed batches.

// opRun is one collective at one size and mode.
type opRun struct {
	m                       *machine
	coll                    string
	t                       DType
	op, root                int
	param, sendCnt, recvCnt int64
	inPlace                 bool
	b                       []bufs
	mod                     int
	// reduced caches the reduction over ranks of each pattern position.
	reduced []float64
	beat    func()
}

// ptrs returns rank r's input and output buffers and offsets (bytes).
func (x *opRun) ptrs(r int) (in cuda.Buffer, inOff int64, out cuda.Buffer, outOff int64) {
	if !x.inPlace {
		return x.b[r].send, 0, x.b[r].recv, 0
	}
	buf := x.b[r].recv
	switch x.coll {
	case AllGather:
		return buf, int64(r) * x.param * x.t.Size, buf, 0
	case ReduceScatter:
		return buf, 0, buf, int64(r) * x.param * x.t.Size
	}
	return buf, 0, buf, 0
}

// launch enqueues the collective once on every rank, as one NCCL group
// when there are several ranks or several calls (a single rank's lone
// collective is issued bare, as nccl-tests issues it). pending says that a
// non-blocking communicator answered ncclInProgress, so the caller must
// wait before enqueuing more.
func (x *opRun) launch() (pending bool, err error) {
	n := len(x.m.devs)
	grouped := n > 1 || x.coll == AllToAll || x.coll == SendRecv || x.coll == UnpairedSend
	note := func(err error) error {
		if x.m.nonBlocking && inProgress(err) {
			pending = true
			return nil
		}
		return err
	}
	if grouped {
		if err := groupStart(); err != nil {
			return false, err
		}
	}
	var first error
	for r := range x.m.devs {
		in, io, out, oo := x.ptrs(r)
		sp, rp := in.At(io), out.At(oo)
		c, st := x.m.comms[r], x.m.streams[r].Handle()
		ts, code := x.t.Size, x.t.Code
		var err error
		switch x.coll {
		case AllReduce, StalledStream:
			err = allReduce(sp, rp, x.param, code, x.op, c, st)
		case Broadcast:
			err = broadcast(sp, rp, x.param, code, x.root, c, st)
		case Reduce:
			err = reduce(sp, rp, x.param, code, x.op, x.root, c, st)
		case AllGather:
			err = allGather(sp, rp, x.param, code, c, st)
		case ReduceScatter:
			err = reduceScatter(sp, rp, x.param, code, x.op, c, st)
		case AllToAll:
			for p := 0; p < n && err == nil; p++ {
				off := int64(p) * x.param * ts
				if err = send(in.At(io+off), x.param, code, p, c, st); err == nil {
					err = recv(out.At(oo+off), x.param, code, p, c, st)
				}
			}
		case SendRecv:
			if err = send(sp, x.param, code, (r+1)%n, c, st); err == nil {
				err = recv(rp, x.param, code, (r-1+n)%n, c, st)
			}
		case UnpairedSend:
			if r == 0 {
				err = send(sp, x.param, code, 1%n, c, st)
			}
		}
		if err := note(err); err != nil && first == nil {
			first = err
		}
	}
	if grouped {
		if err := note(groupEnd()); err != nil && first == nil {
			first = err
		}
	}
	return pending, first
}

// wait polls every rank's end event (cudaEventQuery, never a
// synchronize) and communicator state until all are done, an asynchronous
// NCCL error shows, or the deadline passes (errDeadline).
func (x *opRun) wait(deadline time.Time) error {
	return pollUntil(x.m.clk, deadline, func() (bool, error) {
		all := true
		for r := range x.m.devs {
			ok, err := x.m.end[r].Done()
			if err != nil {
				return false, err
			}
			if !ok {
				all = false
				if err := asyncError(x.m.comms[r]); err != nil {
					return false, err
				}
			}
		}
		return all, nil
	})
}

// launchGrace is how long past the deadline batch waits for a launch that
// blocks inside NCCL (blocking communicators only; a non-blocking one
// returns and is polled).
const launchGrace = 2 * time.Second

// batch runs k operations bracketed by events and returns the time per
// operation (the slowest rank's). The operations are issued from their own
// locked thread so that a launch which blocks inside NCCL cannot outlast
// the timeout either.
func (x *opRun) batch(k int, timeout time.Duration) (float64, error) {
	deadline := x.m.clk.Now().Add(max(timeout, 0))
	timedOut := func(phase string) error {
		return &TimeoutError{Phase: phase, Op: x.coll, Devices: x.m.devs, After: timeout}
	}
	issued := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		issued <- x.issue(k, deadline)
	}()
	select {
	case err := <-issued:
		if errors.Is(err, errDeadline) {
			return 0, timedOut(PhaseLaunch)
		}
		if err != nil {
			return 0, err
		}
	case <-time.After(max(timeout, 0) + launchGrace):
		return 0, timedOut(PhaseLaunch)
	}
	if err := x.wait(deadline); err != nil {
		if errors.Is(err, errDeadline) {
			return 0, timedOut(PhaseCompletion)
		}
		return 0, err
	}
	if x.beat != nil {
		x.beat()
	}
	var worst float64
	for r := range x.m.devs {
		us, err := x.m.start[r].ElapsedUS(x.m.end[r])
		if err != nil {
			return 0, err
		}
		worst = max(worst, us)
	}
	return worst / float64(max(k, 1)), nil
}

// issue records the start events, enqueues k operations and records the
// end events, on the calling thread. When a non-blocking communicator
// answers ncclInProgress it waits until NCCL has enqueued the group
// (nothing else may go on the streams before), up to deadline.
func (x *opRun) issue(k int, deadline time.Time) error {
	for r := range x.m.devs {
		if err := cuda.SetDevice(x.m.devs[r]); err != nil {
			return err
		}
		if err := x.m.start[r].Record(x.m.streams[r]); err != nil {
			return err
		}
	}
	for i := 0; i < k; i++ {
		pending, err := x.launch()
		if err != nil {
			return err
		}
		if pending {
			if err := settle(x.m.comms, deadline, x.m.clk); err != nil {
				return err
			}
		}
	}
	for r := range x.m.devs {
		if err := cuda.SetDevice(x.m.devs[r]); err != nil {
			return err
		}
		if err := x.m.end[r].Record(x.m.streams[r]); err != nil {
			return err
		}
	}
	return nil
}

func (x *opRun) measure(cfg Config) (probes.Sample, error) {
	s := probes.Sample{Op: x.coll, Count: x.param, DType: x.t.Name, InPlace: x.inPlace,
		Src: -1, Dst: -1, Ranks: len(x.m.devs), Iters: cfg.Iters, Wrong: -1}
	if x.coll == AllReduce || x.coll == Reduce || x.coll == ReduceScatter {
		s.RedOp = cfg.RedOp
	}
	if x.coll == Broadcast || x.coll == Reduce {
		s.Root = x.root
	}
	switch x.coll {
	case UnpairedSend:
		if len(x.m.devs) < 2 {
			return s, fmt.Errorf("unpaired_send needs two GPUs (NCCL rejects a send to self without a receive)")
		}
		// Connect rank 0 and 1 with a paired exchange first.
		pair := *x
		pair.coll = SendRecv
		if _, err := pair.batch(1, cfg.Timeout); err != nil {
			return s, err
		}
	case StalledStream:
		// Run the all_reduce once first, so NCCL's kernel is loaded and its
		// connections are up: CUDA's lazy loading of a kernel can wait for
		// the running ones, here the spin that never ends.
		pre := *x
		pre.coll = AllReduce
		if _, err := pre.batch(1, cfg.Timeout); err != nil {
			return s, err
		}
		release, err := cuda.HoldStream(x.m.streams[0])
		if err != nil {
			return s, err
		}
		x.m.releases = append(x.m.releases, release)
	}
	if cfg.Check {
		if err := x.fill(); err != nil {
			return s, err
		}
		if _, err := x.batch(1, cfg.Timeout); err != nil {
			return s, err
		}
		wrong, err := x.verify()
		if err != nil {
			return s, err
		}
		s.Wrong = wrong
	}
	if _, err := x.batch(cfg.Warmup, cfg.Timeout); err != nil {
		return s, err
	}
	times := make([]float64, 0, cfg.Reps)
	for i := 0; i < cfg.Reps; i++ {
		us, err := x.batch(cfg.Iters, cfg.Timeout)
		if err != nil {
			s.SetTimes(times)
			return s, err
		}
		times = append(times, us)
	}
	s.SetTimes(times)
	return s, cuda.LastError()
}
