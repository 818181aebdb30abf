package cuda

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/commlab/commlab/probes"
)

// Copy operations Bandwidth measures. Src and Dst of a sample are device
// indices, -1 for the host. For peer copies "write" means the source GPU's
// copy engine pushes (its stream issues the copy) and "read" that the
// destination GPU's pulls, as nvbandwidth names them; "_bidir" runs both
// directions at once and counts the bytes of both.
const (
	OpH2DPinned    = "h2d_pinned"
	OpD2HPinned    = "d2h_pinned"
	OpH2DPageable  = "h2d_pageable"
	OpD2HPageable  = "d2h_pageable"
	OpD2D          = "d2d"
	OpP2PWrite     = "p2p_write"
	OpP2PRead      = "p2p_read"
	OpP2PWriteBidi = "p2p_write_bidir"
	OpP2PReadBidi  = "p2p_read_bidir"
)

// AllCopyOps lists every copy operation in the order they are measured.
var AllCopyOps = []string{OpH2DPinned, OpD2HPinned, OpH2DPageable, OpD2HPageable, OpD2D,
	OpP2PWrite, OpP2PRead, OpP2PWriteBidi, OpP2PReadBidi}

// BandwidthConfig says what to copy, how big and how often.
type BandwidthConfig struct {
	Sizes []int64 // bytes per copy
	Ops   []string
	// Devices to measure; nil means all.
	Devices []int
	Warmup  int // untimed copies before each size
	Iters   int // copies per timed repetition
	Reps    int // timed repetitions; the median is reported
	// HostNodes, when set, measures h2d_pinned and d2h_pinned once per NUMA
	// node listed, with the pinned host buffer's pages bound to that node
	// (mbind, then cudaHostRegister); each sample's Label is "numa=N". Nil
	// leaves placement to cudaMallocHost (usually the allocating thread's
	// node). Pageable and device copies ignore it.
	HostNodes []int
	// Progress, when set, is called after each size.
	Progress func(done, total int, what string) `json:"-"`
}

// DefaultSizes sweeps 4 KiB to 1 GiB by factors of 4.
func DefaultSizes() []int64 {
	var s []int64
	for b := int64(4 << 10); b <= 1<<30; b *= 4 {
		s = append(s, b)
	}
	return s
}

func (c *BandwidthConfig) defaults() {
	if len(c.Sizes) == 0 {
		c.Sizes = DefaultSizes()
	}
	if len(c.Ops) == 0 {
		c.Ops = AllCopyOps
	}
	c.Warmup = probes.PositiveOr(c.Warmup, 3)
	c.Iters = probes.PositiveOr(c.Iters, 10)
	c.Reps = probes.PositiveOr(c.Reps, 7)
}

// checkBytes is how much of each end of a destination is read back to
// check a copy arrived.
const checkBytes = 4096

// Bandwidth times each copy operation at each size with CUDA events and
// returns one sample per operation, size and device (pair). Peer operations
// need two devices that can access each other; on one GPU they are skipped.
func Bandwidth(cfg BandwidthConfig) ([]probes.Sample, error) {
	cfg.defaults()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	devs, err := readyDevices(cfg.Devices)
	if err != nil {
		return nil, err
	}
	var maxSize int64
	for _, s := range cfg.Sizes {
		if s <= 0 {
			return nil, fmt.Errorf("cuda: copy size %d must be positive", s)
		}
		maxSize = max(maxSize, s)
	}
	type job struct {
		op       string
		src, dst int
		node     int // NUMA node of the pinned host buffer; -1: not placed
	}
	var jobs []job
	// hostJobs is one job per host node asked for (pinned copies), else one.
	hostJobs := func(op string, src, dst int) {
		if len(cfg.HostNodes) == 0 || (op != OpH2DPinned && op != OpD2HPinned) {
			jobs = append(jobs, job{op, src, dst, -1})
			return
		}
		for _, node := range cfg.HostNodes {
			jobs = append(jobs, job{op, src, dst, node})
		}
	}
	for _, op := range cfg.Ops {
		switch op {
		case OpH2DPinned, OpH2DPageable:
			for _, d := range devs {
				hostJobs(op, -1, d)
			}
		case OpD2HPinned, OpD2HPageable:
			for _, d := range devs {
				hostJobs(op, d, -1)
			}
		case OpD2D:
			for _, d := range devs {
				jobs = append(jobs, job{op, d, d, -1})
			}
		case OpP2PWrite, OpP2PRead, OpP2PWriteBidi, OpP2PReadBidi:
			for _, a := range devs {
				for _, b := range devs {
					if a == b {
						continue
					}
					ok1, err := canAccessPeer(a, b)
					if err != nil {
						return nil, err
					}
					ok2, err := canAccessPeer(b, a)
					if err != nil {
						return nil, err
					}
					if ok1 && ok2 {
						jobs = append(jobs, job{op, a, b, -1})
					}
				}
			}
		default:
			return nil, fmt.Errorf("cuda: unknown copy operation %q", op)
		}
	}
	total, done := len(jobs)*len(cfg.Sizes), 0
	var out []probes.Sample
	for _, j := range jobs {
		b, err := newBench(j.op, j.src, j.dst, j.node, maxSize)
		if err != nil {
			return out, err
		}
		for _, size := range cfg.Sizes {
			s, err := b.measure(size, cfg)
			if err != nil {
				b.close()
				return out, fmt.Errorf("cuda: %s %d->%d %d bytes: %w", j.op, j.src, j.dst, size, err)
			}
			out = append(out, s)
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, total, fmt.Sprintf("%s %s", j.op, humanBytes(size)))
			}
		}
		if err := b.close(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// bench holds the buffers, streams and events of one copy operation.
type bench struct {
	op       string
	src, dst int
	node     int            // NUMA node of a pinned host buffer; -1: not placed
	srcBuf   unsafe.Pointer // on src (or host)
	dstBuf   unsafe.Pointer
	// back holds the reverse-direction buffers of a bidirectional copy.
	backSrc, backDst unsafe.Pointer
	s1, s2           stream
	s1dev, s2dev     int
	start, mid, end  event
	frees            []func() error
}

// onDev is f run on device d, for frees.
func (b *bench) onDev(d int, f func() error) func() error {
	return func() error { return onDevice(d, f) }
}

func (b *bench) devBuf(d int, n int64) (unsafe.Pointer, error) {
	if err := setDevice(d); err != nil {
		return nil, err
	}
	p, err := devMalloc(n)
	if err != nil {
		return nil, err
	}
	b.frees = append(b.frees, b.onDev(d, func() error { return devFree(p) }))
	return p, nil
}

func (b *bench) hostBuf(pinned bool, n int64) (unsafe.Pointer, error) {
	if pinned && b.node >= 0 {
		p, free, err := pinnedOnNode(n, b.node)
		if err != nil {
			return nil, err
		}
		b.frees = append(b.frees, free)
		return p, nil
	}
	if pinned {
		p, err := pinnedMalloc(n)
		if err != nil {
			return nil, err
		}
		b.frees = append(b.frees, func() error { return pinnedFree(p) })
		return p, nil
	}
	p, err := pageableMalloc(n)
	if err != nil {
		return nil, err
	}
	b.frees = append(b.frees, func() error { pageableFree(p); return nil })
	return p, nil
}

func newBench(op string, src, dst, node int, n int64) (*bench, error) {
	b := &bench{op: op, src: src, dst: dst, node: node}
	var err error
	fail := func(e error) (*bench, error) { b.close(); return nil, e }
	switch op {
	case OpH2DPinned, OpH2DPageable:
		if b.srcBuf, err = b.hostBuf(op == OpH2DPinned, n); err != nil {
			return fail(err)
		}
		if b.dstBuf, err = b.devBuf(dst, n); err != nil {
			return fail(err)
		}
		b.s1dev = dst
	case OpD2HPinned, OpD2HPageable:
		if b.srcBuf, err = b.devBuf(src, n); err != nil {
			return fail(err)
		}
		if b.dstBuf, err = b.hostBuf(op == OpD2HPinned, n); err != nil {
			return fail(err)
		}
		b.s1dev = src
	case OpD2D:
		if b.srcBuf, err = b.devBuf(src, n); err != nil {
			return fail(err)
		}
		if b.dstBuf, err = b.devBuf(dst, n); err != nil {
			return fail(err)
		}
		b.s1dev = src
	default: // peer copies
		for _, pair := range [][2]int{{src, dst}, {dst, src}} {
			if err := setDevice(pair[0]); err != nil {
				return fail(err)
			}
			if err := enablePeer(pair[1]); err != nil {
				return fail(err)
			}
		}
		if b.srcBuf, err = b.devBuf(src, n); err != nil {
			return fail(err)
		}
		if b.dstBuf, err = b.devBuf(dst, n); err != nil {
			return fail(err)
		}
		b.s1dev, b.s2dev = src, dst
		if op == OpP2PRead || op == OpP2PReadBidi {
			b.s1dev, b.s2dev = dst, src
		}
		if op == OpP2PWriteBidi || op == OpP2PReadBidi {
			if b.backSrc, err = b.devBuf(dst, n); err != nil {
				return fail(err)
			}
			if b.backDst, err = b.devBuf(src, n); err != nil {
				return fail(err)
			}
		}
	}
	if b.s1, err = b.streamOn(b.s1dev); err != nil {
		return fail(err)
	}
	for _, e := range []*event{&b.start, &b.end} {
		if *e, err = b.eventOn(b.s1dev); err != nil {
			return fail(err)
		}
	}
	if b.backSrc != nil {
		if b.s2, err = b.streamOn(b.s2dev); err != nil {
			return fail(err)
		}
		// An event is recorded only on streams of the device it was made on.
		if b.mid, err = b.eventOn(b.s2dev); err != nil {
			return fail(err)
		}
	}
	return b, nil
}

// streamOn makes d current and creates a stream there that close frees.
func (b *bench) streamOn(d int) (stream, error) {
	if err := setDevice(d); err != nil {
		return nil, err
	}
	s, err := newStream()
	if err != nil {
		return nil, err
	}
	b.frees = append(b.frees, b.onDev(d, func() error { return destroyStream(s) }))
	return s, nil
}

// eventOn creates an event on the current device d that close frees.
func (b *bench) eventOn(d int) (event, error) {
	e, err := newEvent()
	if err != nil {
		return nil, err
	}
	b.frees = append(b.frees, b.onDev(d, func() error { return destroyEvent(e) }))
	return e, nil
}

// close frees in reverse order and returns the first error.
func (b *bench) close() error {
	var first error
	for i := len(b.frees) - 1; i >= 0; i-- {
		if err := b.frees[i](); err != nil && first == nil {
			first = err
		}
	}
	b.frees = nil
	return first
}

// issue enqueues one copy (both directions for bidirectional ones).
func (b *bench) issue(n int64) error {
	switch b.op {
	case OpH2DPinned, OpH2DPageable:
		return memcpyAsync(b.dstBuf, b.srcBuf, n, memcpyHostToDevice, b.s1)
	case OpD2HPinned, OpD2HPageable:
		return memcpyAsync(b.dstBuf, b.srcBuf, n, memcpyDeviceToHost, b.s1)
	case OpD2D:
		return memcpyAsync(b.dstBuf, b.srcBuf, n, memcpyDeviceToDevice, b.s1)
	}
	if err := memcpyPeerAsync(b.dstBuf, b.dst, b.srcBuf, b.src, n, b.s1); err != nil {
		return err
	}
	if b.backSrc != nil {
		return memcpyPeerAsync(b.backDst, b.src, b.backSrc, b.dst, n, b.s2)
	}
	return nil
}

// fill writes pattern v into every source buffer.
func (b *bench) fill(n int64, v byte) error {
	if b.src < 0 {
		hostMemset(b.srcBuf, v, n)
	} else if err := onDevice(b.src, func() error { return devMemset(b.srcBuf, v, n) }); err != nil {
		return err
	}
	if b.backSrc != nil {
		if err := onDevice(b.dst, func() error { return devMemset(b.backSrc, v, n) }); err != nil {
			return err
		}
	}
	return deviceSynchronize()
}

// verify reads back both ends of each destination and counts bytes that
// differ from v.
func (b *bench) verify(n int64, v byte) (int64, error) {
	var wrong int64
	check := func(p unsafe.Pointer, onHost bool) error {
		k := min(n, checkBytes)
		for _, off := range []int64{0, n - k} {
			host := make([]byte, k)
			src := unsafe.Add(p, off)
			if onHost {
				copy(host, unsafe.Slice((*byte)(src), k))
			} else if err := memcpySync(unsafe.Pointer(&host[0]), src, k, memcpyDeviceToHost); err != nil {
				return err
			}
			for _, c := range host {
				if c != v {
					wrong++
				}
			}
		}
		return nil
	}
	if err := check(b.dstBuf, b.dst < 0); err != nil {
		return 0, err
	}
	if b.backDst != nil {
		if err := check(b.backDst, false); err != nil {
			return 0, err
		}
	}
	return wrong, nil
}

func (b *bench) measure(n int64, cfg BandwidthConfig) (probes.Sample, error) {
	s := probes.Sample{Op: b.op, Bytes: n, Src: b.src, Dst: b.dst, Iters: cfg.Iters, Ranks: 1}
	if b.node >= 0 {
		s.Label = fmt.Sprintf("numa=%d", b.node)
	}
	if b.backSrc != nil {
		s.Bytes = 2 * n
		s.Ranks = 2
	}
	pattern := byte(0x5a ^ byte(n>>12) ^ byte(len(b.op)))
	if pattern == 0 {
		pattern = 0xa5
	}
	if err := b.fill(n, pattern); err != nil {
		return s, err
	}
	if err := setDevice(b.s1dev); err != nil {
		return s, err
	}
	for i := 0; i < cfg.Warmup; i++ {
		if err := b.issue(n); err != nil {
			return s, err
		}
	}
	times := make([]float64, 0, cfg.Reps)
	for r := 0; r < cfg.Reps; r++ {
		if err := eventRecord(b.start, b.s1); err != nil {
			return s, err
		}
		if b.s2 != nil {
			// Both directions start together: s2 waits for s1's start, and
			// s1's end waits for s2's last copy.
			if err := streamWaitEvent(b.s2, b.start); err != nil {
				return s, err
			}
		}
		for i := 0; i < cfg.Iters; i++ {
			if err := b.issue(n); err != nil {
				return s, err
			}
		}
		if b.s2 != nil {
			if err := eventRecord(b.mid, b.s2); err != nil {
				return s, err
			}
			if err := streamWaitEvent(b.s1, b.mid); err != nil {
				return s, err
			}
		}
		if err := eventRecord(b.end, b.s1); err != nil {
			return s, err
		}
		if err := eventSynchronize(b.end); err != nil {
			return s, err
		}
		us, err := elapsedUS(b.start, b.end)
		if err != nil {
			return s, err
		}
		times = append(times, us/float64(cfg.Iters))
	}
	if err := lastError(); err != nil {
		return s, err
	}
	wrong, err := b.verify(n, pattern)
	if err != nil {
		return s, err
	}
	s.Wrong = wrong
	s.SetTimes(times)
	s.BusBW = s.AlgBW
	return s, nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// CheckCopyOps refuses an operation that is not one of AllCopyOps
// (commlab probe bandwidth --ops).
func CheckCopyOps(ops []string) error {
	for _, op := range ops {
		if !slices.Contains(AllCopyOps, op) {
			return fmt.Errorf("unknown operation %q (known: %s)", op, strings.Join(AllCopyOps, ", "))
		}
	}
	return nil
}
