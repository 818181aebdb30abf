package cuda

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/commlab/commlab/probes"
)

// ptx holds the kernels commlab launches: commlab_empty does nothing;
// commlab_store writes one word so a launch can be checked; commlab_spin
// spins until a word in pinned host memory turns non-zero (HoldStream). PTX
// text is portable: the driver compiles it for whatever GPU is present.
const ptx = `.version 7.0
.target sm_50
.address_size 64

.visible .entry commlab_empty()
{
	ret;
}

.visible .entry commlab_store(
	.param .u64 commlab_store_p,
	.param .u32 commlab_store_v
)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [commlab_store_p];
	ld.param.u32 %r1, [commlab_store_v];
	cvta.to.global.u64 %rd2, %rd1;
	st.global.u32 [%rd2], %r1;
	ret;
}

.visible .entry commlab_spin(
	.param .u64 commlab_spin_flag
)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [commlab_spin_flag];
	cvta.to.global.u64 %rd2, %rd1;
SPIN:
	ld.volatile.global.u32 %r1, [%rd2];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra SPIN;
	ret;
}
`

// Latency operations. Host times come from the host's monotonic clock
// around the calls; device times from CUDA events.
const (
	// OpLaunchHost: host time of one cuLaunchKernel call of an empty
	// kernel, issued back to back (the launch overhead the CPU pays).
	OpLaunchHost = "kernel_launch_host"
	// OpLaunchDevice: event time per empty kernel when launched back to
	// back (how fast the GPU retires queued launches).
	OpLaunchDevice = "kernel_launch_device"
	// OpLaunchRoundTrip: host time from launch to cudaStreamSynchronize
	// returning, for one empty kernel on an idle stream.
	OpLaunchRoundTrip = "kernel_roundtrip"
	// OpEventRoundTrip: host time of cudaEventRecord then
	// cudaEventSynchronize on an idle stream.
	OpEventRoundTrip = "event_roundtrip"
	// OpGraphKernel: event time per kernel when GraphKernels empty kernels
	// are replayed as one CUDA graph.
	OpGraphKernel = "graph_replay_per_kernel"
	// OpGraphRoundTrip: host time of cudaGraphLaunch of that graph then
	// cudaStreamSynchronize.
	OpGraphRoundTrip = "graph_replay_roundtrip"
)

// LatencyConfig says where and how often to time launches.
type LatencyConfig struct {
	Device       int
	Warmup       int // untimed launches before anything is timed
	Iters        int // operations per repetition
	Reps         int // repetitions; the median is reported
	GraphKernels int // kernels captured in the replayed graph
	Progress     func(done, total int, what string)
}

func (c *LatencyConfig) defaults() {
	c.Warmup = probes.PositiveOr(c.Warmup, 50)
	c.Iters = probes.PositiveOr(c.Iters, 200)
	c.Reps = probes.PositiveOr(c.Reps, 11)
	c.GraphKernels = probes.PositiveOr(c.GraphKernels, 100)
}

// Latency times kernel launches, event round trips and graph replays on
// one device. Before timing, a kernel that stores a value is launched and
// the value read back, so the numbers are known to come from kernels that ran.
func Latency(cfg LatencyConfig) ([]probes.Sample, error) {
	cfg.defaults()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, err := readyDevices([]int{cfg.Device}); err != nil {
		return nil, err
	}
	if err := setDevice(cfg.Device); err != nil {
		return nil, err
	}
	if err := check0(); err != nil {
		return nil, err
	}
	mod, err := loadModule(ptx)
	if err != nil {
		return nil, err
	}
	defer mod.unload()
	s, err := newStream()
	if err != nil {
		return nil, err
	}
	defer destroyStream(s)
	e0, err := newEvent()
	if err != nil {
		return nil, err
	}
	defer destroyEvent(e0)
	e1, err := newEvent()
	if err != nil {
		return nil, err
	}
	defer destroyEvent(e1)
	if err := checkStoreKernel(mod, s); err != nil {
		return nil, err
	}
	if err := launchMany(mod.empty, s, cfg.Warmup); err != nil {
		return nil, err
	}
	if err := streamSynchronize(s); err != nil {
		return nil, err
	}

	l := latencyRun{cfg: cfg, s: s, e0: e0, e1: e1, f: mod.empty}
	steps := []struct {
		op  string
		run func() (float64, error)
	}{
		{OpLaunchHost, l.launchHost},
		{OpLaunchDevice, l.launchDevice},
		{OpLaunchRoundTrip, l.launchRoundTrip},
		{OpEventRoundTrip, l.eventRoundTrip},
	}
	var out []probes.Sample
	for i, st := range steps {
		smp, err := l.repeat(st.op, st.run)
		if err != nil {
			return out, err
		}
		out = append(out, smp)
		if cfg.Progress != nil {
			cfg.Progress(i+1, len(steps)+2, st.op)
		}
	}
	graph, err := l.graph()
	out = append(out, graph...)
	if err != nil {
		return out, err
	}
	if cfg.Progress != nil {
		cfg.Progress(len(steps)+2, len(steps)+2, "graph replay")
	}
	return out, lastError()
}

// check0 makes the primary context current so driver API calls find it.
func check0() error { return devFree(nil) }

func checkStoreKernel(mod *module, s stream) error {
	p, err := devMalloc(4)
	if err != nil {
		return err
	}
	defer devFree(p)
	if err := devMemset(p, 0, 4); err != nil {
		return err
	}
	const want = 0xC0FFEE
	if err := launchStore(mod.store, s, p, want); err != nil {
		return err
	}
	if err := streamSynchronize(s); err != nil {
		return err
	}
	var got uint32
	if err := memcpySync(unsafe.Pointer(&got), p, 4, memcpyDeviceToHost); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("cuda: test kernel wrote %#x, want %#x: kernels do not run", got, want)
	}
	return nil
}

type latencyRun struct {
	cfg    LatencyConfig
	s      stream
	e0, e1 event
	f      function
}

// repeat runs one measurement twice untimed, then Reps times.
func (l *latencyRun) repeat(op string, run func() (float64, error)) (probes.Sample, error) {
	smp := probes.Sample{Op: op, Src: l.cfg.Device, Dst: l.cfg.Device, Iters: l.cfg.Iters, Wrong: -1}
	for i := 0; i < 2; i++ { // warm-up rounds of the whole measurement
		if _, err := run(); err != nil {
			return smp, fmt.Errorf("cuda: %s: %w", op, err)
		}
	}
	times := make([]float64, 0, l.cfg.Reps)
	for r := 0; r < l.cfg.Reps; r++ {
		us, err := run()
		if err != nil {
			return smp, fmt.Errorf("cuda: %s: %w", op, err)
		}
		times = append(times, us)
	}
	smp.SetTimes(times)
	return smp, nil
}

func sinceUS(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e3 }

func (l *latencyRun) launchHost() (float64, error) {
	t := time.Now()
	if err := launchMany(l.f, l.s, l.cfg.Iters); err != nil {
		return 0, err
	}
	us := sinceUS(t) / float64(l.cfg.Iters)
	return us, streamSynchronize(l.s)
}

func (l *latencyRun) launchDevice() (float64, error) {
	return l.eventTimed(l.cfg.Iters, func() error { return launchMany(l.f, l.s, l.cfg.Iters) })
}

// eventTimed is the device time of the work enqueue enqueues, between two
// events on the stream, divided by per.
func (l *latencyRun) eventTimed(per int, enqueue func() error) (float64, error) {
	if err := eventRecord(l.e0, l.s); err != nil {
		return 0, err
	}
	if err := enqueue(); err != nil {
		return 0, err
	}
	if err := eventRecord(l.e1, l.s); err != nil {
		return 0, err
	}
	if err := eventSynchronize(l.e1); err != nil {
		return 0, err
	}
	us, err := elapsedUS(l.e0, l.e1)
	return us / float64(per), err
}

// roundTrips returns the median host time of Iters calls of one.
func (l *latencyRun) roundTrips(one func() error) (float64, error) {
	times := make([]float64, 0, l.cfg.Iters)
	for i := 0; i < l.cfg.Iters; i++ {
		t := time.Now()
		if err := one(); err != nil {
			return 0, err
		}
		times = append(times, sinceUS(t))
	}
	var s probes.Sample
	s.SetTimes(times)
	return s.MedianUS, nil
}

func (l *latencyRun) launchRoundTrip() (float64, error) {
	return l.roundTrips(func() error {
		if err := launchEmpty(l.f, l.s); err != nil {
			return err
		}
		return streamSynchronize(l.s)
	})
}

func (l *latencyRun) eventRoundTrip() (float64, error) {
	return l.roundTrips(func() error {
		if err := eventRecord(l.e0, l.s); err != nil {
			return err
		}
		return eventSynchronize(l.e0)
	})
}

// graph captures GraphKernels empty kernels and times their replay.
func (l *latencyRun) graph() ([]probes.Sample, error) {
	k := l.cfg.GraphKernels
	if err := beginCapture(l.s); err != nil {
		return nil, err
	}
	if err := launchMany(l.f, l.s, k); err != nil {
		endCapture(l.s)
		return nil, err
	}
	x, err := endCapture(l.s)
	if err != nil {
		return nil, err
	}
	defer graphExecDestroy(x)
	perKernel := func() (float64, error) {
		return l.eventTimed(k, func() error { return graphLaunch(x, l.s) })
	}
	roundTrip := func() (float64, error) {
		return l.roundTrips(func() error {
			if err := graphLaunch(x, l.s); err != nil {
				return err
			}
			return streamSynchronize(l.s)
		})
	}
	a, err := l.repeat(OpGraphKernel, perKernel)
	if err != nil {
		return nil, err
	}
	b, err := l.repeat(OpGraphRoundTrip, roundTrip)
	a.Count, b.Count = int64(k), int64(k)
	a.Label, b.Label = fmt.Sprintf("kernels=%d", k), fmt.Sprintf("kernels=%d", k)
	return []probes.Sample{a, b}, err
}
