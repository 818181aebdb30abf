package nccl

import (
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// What a sweep measures: the collectives, the sizes and how each size
// becomes NCCL's count, the settings of a run and their defaults.

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

// known says whether c is a collective or scenario Measure runs.
func known(c string) bool {
	for _, k := range append(Collectives, UnpairedSend, StalledStream) {
		if c == k {
			return true
		}
	}
	return false
}
