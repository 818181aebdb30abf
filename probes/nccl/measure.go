package nccl

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/units"
)

// Collectives Measure runs. "alltoall" is grouped ncclSend/ncclRecv to
// every peer; "sendrecv" sends to the next rank and receives from the
// previous one. Two scenarios hang by design, so the timeout and abort can
// be shown: "unpaired_send" posts a send from rank 0 to rank 1 that no rank
// receives (after a paired exchange has connected them, so the hang is on
// the GPU, not in connection setup; it needs two GPUs), and
// "stalled_stream" queues an all_reduce behind a kernel that spins on
// rank 0's stream until released (any number of GPUs).
const (
	AllReduce     = "all_reduce"
	AllGather     = "all_gather"
	ReduceScatter = "reduce_scatter"
	Broadcast     = "broadcast"
	Reduce        = "reduce"
	AllToAll      = "alltoall"
	SendRecv      = "sendrecv"
	UnpairedSend  = "unpaired_send"
	StalledStream = "stalled_stream"
)

// Collectives lists the collectives in measuring order (not the hang).
var Collectives = []string{AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv}

// ErrTimeout says a collective did not finish in time and the
// communicators were aborted.
var ErrTimeout = errors.New("nccl: collective timed out")

// Config is one measurement: which collectives, types, sizes and how often.
type Config struct {
	Collectives []string `json:"collectives"`
	DType       string   `json:"dtype"`
	RedOp       string   `json:"redop"`
	Root        int      `json:"root"`
	// Sizes in bytes, as nccl-tests' -b/-e/-f produce them.
	Sizes []int64 `json:"sizes"`
	// Modes: "out" (out-of-place), "in" (in-place); empty means both.
	Modes  []string `json:"modes,omitempty"`
	Warmup int      `json:"warmup"`
	Iters  int      `json:"iters"` // operations per timed repetition
	Reps   int      `json:"reps"`  // repetitions; the median is reported
	// Check compares results with the expected values (full buffers up to
	// 64 MiB, windows at every segment's ends above).
	Check bool `json:"check"`
	// Devices to use; nil means every GPU.
	Devices []int `json:"devices,omitempty"`
	// Timeout bounds each timed batch; zero means 5 minutes.
	Timeout time.Duration `json:"timeout"`
	// Blocking makes the communicators blocking ones (ncclCommInitAll), as
	// nccl-tests and PyTorch's default use. A hang inside NCCL then cannot be
	// aborted in-process; MeasureInChild's watchdog still ends the worker.
	Blocking bool `json:"blocking,omitempty"`
	// Env is applied to the child process by MeasureInChild; Measure
	// itself only records it (NCCL has read its variables by then).
	Env map[string]string `json:"env,omitempty"`
	// DumpTopology makes MeasureInChild have NCCL write its topology and
	// graph search results (NCCL_TOPO_DUMP_FILE, NCCL_GRAPH_DUMP_FILE of
	// rank 0) and keep them in the run's Logs["nccl-topo-dump"] and
	// Logs["nccl-graph-dump"].
	DumpTopology bool `json:"dump_topology,omitempty"`
	// TopoXML, when set, is the topology NCCL reads instead of detecting
	// its own (NCCL_TOPO_FILE), kept in Logs["nccl-topo-file"]: the seed's
	// exercise of editing a dumped topology and running again.
	TopoXML string `json:"topo_xml,omitempty"`
	// Progress, when set, is called after each size.
	Progress func(done, total int, what string) `json:"-"`
	// beat, when set, is called after every batch of operations; the
	// worker turns it into the heartbeat its parent's watchdog reads.
	beat func()
	// checkpoint, when set, receives the run after initialisation and after
	// each collective, so a child killed in a hang still leaves them.
	checkpoint func(*probes.Run)
}

// Sweep returns sizes from lo to hi (bytes) multiplying by factor, as
// nccl-tests' -b/-e/-f do (units.Sweep); a factor below 2 is taken as 2,
// and bounds that make no sweep give none.
func Sweep(lo, hi int64, factor int64) []int64 {
	s, _ := units.Sweep(lo, hi, max(factor, 2))
	return s
}

func (c *Config) defaults() {
	if len(c.Collectives) == 0 {
		c.Collectives = []string{AllReduce}
	}
	if c.DType == "" {
		c.DType = "float32"
	}
	if c.RedOp == "" {
		c.RedOp = "sum"
	}
	if len(c.Sizes) == 0 {
		c.Sizes = Sweep(8, 128<<20, 2)
	}
	if len(c.Modes) == 0 {
		c.Modes = []string{"out", "in"}
	}
	c.Warmup = probes.PositiveOr(c.Warmup, 5)
	c.Iters = probes.PositiveOr(c.Iters, 20)
	c.Reps = probes.PositiveOr(c.Reps, 5)
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Minute
	}
}

// BusFactor is nccl-tests' busbw/algbw factor for a collective on n ranks
// (units.BusBWFactor); 1 for the hang scenarios, which nccl-tests lacks.
func BusFactor(coll string, n int) float64 {
	f, err := units.BusBWFactor(coll, n)
	if err != nil {
		return 1
	}
	return f
}

// Counts returns, for a collective of size bytes on n ranks of elemSize
// bytes each, the count passed to NCCL, the elements each rank sends and
// receives, and the size nccl-tests reports (rounded down as it does).
func Counts(coll string, size, elemSize int64, n int) (param, sendCnt, recvCnt, reported int64) {
	c := size / elemSize
	nn := int64(n)
	switch coll {
	case AllGather:
		param = c / nn
		return param, param, param * nn, param * nn * elemSize
	case ReduceScatter:
		param = c / nn
		return param, param * nn, param, param * nn * elemSize
	case AllToAll:
		param = c / nn
		return param, param * nn, param * nn, param * nn * elemSize
	}
	return c, c, c, c * elemSize
}

// Measure runs the configured collectives in this process over all local
// GPUs. NCCL reads its environment once, at first use: settings that must
// differ between runs need MeasureInChild.
func Measure(cfg Config) (*probes.Run, error) {
	cfg.defaults()
	t, err := LookupDType(cfg.DType)
	if err != nil {
		return nil, err
	}
	op, err := lookupOp(cfg.RedOp)
	if err != nil {
		return nil, err
	}
	for _, m := range cfg.Modes {
		if m != "out" && m != "in" {
			return nil, fmt.Errorf("nccl: mode %q: want out or in", m)
		}
	}
	for _, c := range cfg.Collectives {
		if !known(c) {
			return nil, fmt.Errorf("nccl: unknown collective %q (known: %s)", c, strings.Join(append(Collectives, UnpairedSend, StalledStream), ", "))
		}
	}
	info, err := cuda.Open()
	if err != nil {
		return nil, err
	}
	if err := load(); err != nil {
		return nil, err
	}
	ver, path, err := Version()
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	devs := cfg.Devices
	if devs == nil {
		for d := range info.Devices {
			devs = append(devs, d)
		}
	}
	if cfg.Root < 0 || cfg.Root >= len(devs) {
		return nil, fmt.Errorf("nccl: root %d out of range (%d ranks)", cfg.Root, len(devs))
	}
	run := &probes.Run{Kind: "nccl", Date: time.Now().UTC(), NCCL: ver, Env: ncclEnv(cfg.Env)}
	info.Describe(run)
	run.GPUCount = len(devs)
	run.Settings = map[string]string{
		"collectives": strings.Join(cfg.Collectives, ","), "dtype": t.Name, "redop": cfg.RedOp,
		"root": strconv.Itoa(cfg.Root), "modes": strings.Join(cfg.Modes, ","),
		"warmup": strconv.Itoa(cfg.Warmup), "iters": strconv.Itoa(cfg.Iters), "reps": strconv.Itoa(cfg.Reps),
		"check": strconv.FormatBool(cfg.Check), "timeout": cfg.Timeout.String(), "library": path,
		"timing": "CUDA events around iters back-to-back operations on every rank's stream; time per op = max over ranks / iters; median over reps",
	}
	if len(devs) == 1 {
		run.Notes = append(run.Notes, "n=1: one GPU, so NCCL runs each collective as a local copy; busbw factors give 0 for all_reduce, all_gather, reduce_scatter")
	}

	m, err := newMachine(devs, cfg.Timeout+initSlack, !cfg.Blocking, realClock{})
	if err != nil {
		return run, err
	}
	run.Settings["communicators"] = "non-blocking"
	if !m.nonBlocking {
		run.Settings["communicators"] = "blocking"
	}
	if !m.nonBlocking && !cfg.Blocking {
		run.Notes = append(run.Notes, "NCCL "+ver+" has no non-blocking communicators (2.14+): a hang inside NCCL cannot be aborted in-process")
	}
	if cfg.beat != nil {
		cfg.beat()
	}
	if cfg.checkpoint != nil {
		cfg.checkpoint(run)
	}
	total := len(cfg.Collectives) * len(cfg.Sizes) * len(cfg.Modes)
	done := 0
	for _, coll := range cfg.Collectives {
		samples, err := m.sweep(coll, t, op, cfg, func(what string) {
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, total, what)
			}
		})
		run.Samples = append(run.Samples, samples...)
		if cfg.checkpoint != nil && err == nil {
			cfg.checkpoint(run)
		}
		if err != nil {
			run.Error = err.Error()
			var te *TimeoutError
			if errors.As(err, &te) {
				// sweep aborted the communicators before freeing buffers.
				m.closeAfterAbort()
				if te.Note != "" {
					run.Notes = append(run.Notes, te.Note)
				}
			} else {
				m.close()
			}
			return run, err
		}
	}
	return run, m.close()
}

func known(c string) bool {
	for _, k := range append(Collectives, UnpairedSend, StalledStream) {
		if c == k {
			return true
		}
	}
	return false
}

// ncclEnv collects the variables that shape a run: NCCL_*, CUDA_* and the
// commlab library overrides, with extra on top.
func ncclEnv(extra map[string]string) map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if k == envWorkerConfig || k == envWorkerResult {
			continue
		}
		if strings.HasPrefix(k, "NCCL_") || strings.HasPrefix(k, "CUDA_") || strings.HasPrefix(k, "COMMLAB_") {
			env[k] = v
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

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

// bufs are one rank's device buffers for a collective.
type bufs struct{ send, recv cuda.Buffer }

// sweep measures one collective at every size and mode.
func (m *machine) sweep(coll string, t DType, op int, cfg Config, tick func(string)) ([]probes.Sample, error) {
	n := len(m.devs)
	var maxSend, maxRecv int64
	for _, size := range cfg.Sizes {
		_, s, r, _ := Counts(coll, size, t.Size, n)
		maxSend, maxRecv = max(maxSend, s*t.Size), max(maxRecv, r*t.Size)
	}
	b := make([]bufs, n)
	defer func() {
		if !m.drained {
			return // cudaFree would wait for the hung work
		}
		for _, x := range b {
			x.send.Free()
			x.recv.Free()
		}
	}()
	for r, d := range m.devs {
		var err error
		if b[r].send, err = cuda.Malloc(d, maxSend); err != nil {
			return nil, err
		}
		if b[r].recv, err = cuda.Malloc(d, max(maxSend, maxRecv)); err != nil {
			return nil, err
		}
	}
	mod := modulus(t, op)
	var out []probes.Sample
	for _, size := range cfg.Sizes {
		param, sendCnt, recvCnt, reported := Counts(coll, size, t.Size, n)
		for _, mode := range cfg.Modes {
			inPlace := mode == "in"
			what := fmt.Sprintf("%s %s %s", coll, units.FormatSize(reported), mode)
			if param == 0 || (inPlace && (coll == AllToAll || coll == SendRecv || coll == UnpairedSend || coll == StalledStream)) {
				tick(what + " (skipped)")
				continue
			}
			x := &opRun{m: m, coll: coll, t: t, op: op, root: cfg.Root, param: param,
				sendCnt: sendCnt, recvCnt: recvCnt, inPlace: inPlace, b: b, mod: mod, beat: cfg.beat}
			s, err := x.measure(cfg)
			s.Bytes = reported
			if s.MedianUS > 0 {
				s.AlgBW = float64(reported) / (s.MedianUS * 1e3)
				s.BusBW = s.AlgBW * BusFactor(coll, n)
			}
			var te *TimeoutError
			if errors.As(err, &te) {
				te.Op, te.Bytes, te.InPlace = coll, reported, inPlace
				// Abort before the deferred cudaFree, which would wait
				// for the hung work forever.
				m.abortAfterTimeout(te)
				return out, te
			}
			if err != nil {
				return out, fmt.Errorf("%s %d bytes %s-place: %w", coll, reported, mode, err)
			}
			out = append(out, s)
			tick(what)
		}
	}
	return out, nil
}

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

// fill writes every rank's input pattern.
func (x *opRun) fill() error {
	for r := range x.m.devs {
		in, off, _, _ := x.ptrs(r)
		elems := min(x.sendCnt, patternPeriod)
		if x.coll == UnpairedSend || x.coll == AllReduce || x.coll == Broadcast || x.coll == Reduce || x.coll == SendRecv {
			elems = min(x.param, patternPeriod)
		}
		block := patternBlock(x.t, r, x.mod, elems)
		if err := cuda.SetDevice(x.m.devs[r]); err != nil {
			return err
		}
		if err := in.Upload(off, block); err != nil {
			return err
		}
		total := x.sendCnt
		if x.coll == AllReduce || x.coll == Broadcast || x.coll == Reduce || x.coll == SendRecv {
			total = x.param
		}
		if err := in.Replicate(off, int64(len(block)), total*x.t.Size); err != nil {
			return err
		}
		// Device-to-device cudaMemcpy returns before the copy ends, on the
		// legacy stream, which the non-blocking NCCL streams do not wait for.
		if err := cuda.Synchronize(x.m.devs[r]); err != nil {
			return err
		}
	}
	return nil
}

// fullCheckBytes is the output size up to which every element is checked.
const fullCheckBytes = 64 << 20

// checkWindow is how many elements are checked at each end of a segment
// above fullCheckBytes.
const checkWindow = 1 << 16

// expected is what rank r's output element k should hold; ok is false
// where the collective defines no value (non-root ranks of reduce).
func (x *opRun) expected(r int, k int64) (float64, bool) {
	n := len(x.m.devs)
	if x.reduced == nil {
		x.reduced = make([]float64, patternPeriod)
		v := make([]float64, n)
		for j := range x.reduced {
			for s := range v {
				v[s] = value(s, int64(j), x.mod)
			}
			x.reduced[j] = reduceValues(x.op, v)
		}
	}
	all := func(i int64) float64 { return x.reduced[i%patternPeriod] }
	switch x.coll {
	case AllReduce:
		return all(k), true
	case Broadcast:
		return value(x.root, k, x.mod), true
	case Reduce:
		return all(k), r == x.root
	case AllGather:
		return value(int(k/x.param), k%x.param, x.mod), true
	case ReduceScatter:
		return all(int64(r)*x.param + k), true
	case AllToAll:
		return value(int(k/x.param), int64(r)*x.param+k%x.param, x.mod), true
	case SendRecv:
		return value((r-1+n)%n, k, x.mod), true
	}
	return 0, false
}

// verify counts output elements that differ from the expected values.
func (x *opRun) verify() (int64, error) {
	var wrong int64
	outCnt := x.recvCnt
	segs := int64(1)
	if x.coll == AllGather || x.coll == AllToAll {
		segs = int64(len(x.m.devs))
	}
	for r := range x.m.devs {
		if _, ok := x.expected(r, 0); !ok {
			continue
		}
		_, _, out, off := x.ptrs(r)
		var ranges [][2]int64
		if outCnt*x.t.Size <= fullCheckBytes {
			ranges = [][2]int64{{0, outCnt}}
		} else {
			seg := outCnt / segs
			for s := int64(0); s < segs; s++ {
				a, e := s*seg, (s+1)*seg
				w := min(int64(checkWindow), seg)
				ranges = append(ranges, [2]int64{a, a + w}, [2]int64{e - w, e})
			}
		}
		if err := cuda.SetDevice(x.m.devs[r]); err != nil {
			return 0, err
		}
		for _, rg := range ranges {
			host := make([]byte, (rg[1]-rg[0])*x.t.Size)
			if err := out.Download(off+rg[0]*x.t.Size, host); err != nil {
				return 0, err
			}
			for k := rg[0]; k < rg[1]; k++ {
				want, _ := x.expected(r, k)
				got := decode(x.t, host[(k-rg[0])*x.t.Size:])
				if !closeEnough(x.t, x.op, got, want) {
					wrong++
				}
			}
		}
	}
	return wrong, nil
}
