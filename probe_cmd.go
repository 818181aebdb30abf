package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/parse/nvbandwidth"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/child"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/customar"
	"github.com/commlab/commlab/probes/nccl"
	"github.com/commlab/commlab/probes/nvml"
	"github.com/commlab/commlab/probes/published"
	"github.com/commlab/commlab/probes/rdma"
	"github.com/commlab/commlab/probes/sysfs"
	"github.com/commlab/commlab/probes/topograph"
)

// This file holds the probe verbs: topo reads the machine (NVML, sysfs);
// bandwidth and latency measure through probes/cuda, nccl through
// probes/nccl; rdma-write builds and runs commlab's own verbs program
// (probes/rdma), and perftest runs ib_write_bw and its kin through it too;
// nccl-tests and nvbandwidth run the external tools through probes/launch
// and parse their outputs; torch runs the PyTorch
// reference that --compare reads.

// runProbeChild is the hidden verb child.Verb: the child side of
// child.Run, which a library starts to run one probe in isolation.
func runProbeChild(stderr io.Writer) int {
	ctx, stop := cli.Interruptible()
	defer stop()
	if err := child.Serve(ctx, os.Stdin, stderr); err != nil {
		fmt.Fprintf(stderr, "commlab %s: %v\n", child.Verb, err)
		return 1
	}
	return 0
}

var probeBandwidthUsage = []string{"usage: commlab probe bandwidth [flags]"}

func runProbeBandwidth(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	sf := cli.AddSweepFlags(fs, "copy size", "4K", "1G", 4, "")
	ops := fs.String("ops", strings.Join(cuda.AllCopyOps, ","), "copy operations to measure")
	var cfg cuda.BandwidthConfig
	cli.AddRepeatFlags(fs, &cfg.Warmup, &cfg.Iters, "copies", 3, 10, true, "")
	reps := fs.Int("reps", 7, "timed repetitions (median reported)")
	hostNUMA := fs.String("host-numa", "", "NUMA nodes to place the pinned host buffer on, one measurement each (e.g. 0,1)")
	mf := cli.AddOutputFlags(fs, true)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	cfg.Reps, cfg.Ops = *reps, strings.Split(*ops, ",")
	var err error
	if cfg.Sizes, cfg.Devices, err = sf.Values(); err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	for _, f := range strings.FieldsFunc(*hostNUMA, func(r rune) bool { return r == ',' }) {
		node, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || node < 0 {
			return cli.Fail(fs, stderr, 2, "--host-numa %q: want NUMA node numbers, e.g. 0,1", *hostNUMA)
		}
		cfg.HostNodes = append(cfg.HostNodes, node)
	}
	if err := cuda.CheckCopyOps(cfg.Ops); err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	r, ref, err := mf.Inputs()
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	if r != nil {
		return cli.FinishRun(r, ref, mf, stdout, stderr, cuda.WriteCopyTable)
	}
	cfg.Progress = cli.NewProgressBar(stderr).Update
	run, err := cuda.MeasureBandwidth(cfg)
	if run == nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	run.Command = cli.CommandLine(fs, args)
	return cli.FinishRun(run, ref, mf, stdout, stderr, cuda.WriteCopyTable)
}

var probeLatencyUsage = []string{"usage: commlab probe latency [flags]"}

func runProbeLatency(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	device := fs.Int("device", 0, "device index")
	iters := fs.Int("iters", 200, "operations per repetition")
	reps := fs.Int("reps", 11, "repetitions (median reported)")
	graphK := fs.Int("graph-kernels", 100, "kernels captured in the replayed graph")
	mf := cli.AddOutputFlags(fs, false)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	if *iters <= 0 || *reps <= 0 || *graphK <= 0 || *device < 0 {
		return cli.Fail(fs, stderr, 2, "--iters, --reps, --graph-kernels must be positive and --device not negative")
	}
	run, err := cuda.MeasureLatency(cuda.LatencyConfig{Device: *device, Iters: *iters, Reps: *reps, GraphKernels: *graphK, Progress: cli.NewProgressBar(stderr).Update})
	if run == nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	run.Command = cli.CommandLine(fs, args)
	return cli.FinishRun(run, nil, mf, stdout, stderr, cuda.WriteLatencyTable)
}

var probeNCCLUsage = []string{"usage: commlab probe nccl [flags]"}

func runProbeNCCL(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	s := nccl.DefaultSettings()
	sf := cli.AddSweepFlags(fs, "size", "8", "128M", nccl.DefaultFactor, "nccl-tests")
	cli.AddRepeatFlags(fs, &s.Warmup, &s.Iters, "operations", s.Warmup, s.Iters, true, "nccl-tests")
	s.AddFlags(fs)
	mf := cli.AddOutputFlags(fs, true)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	var err error
	if s.Sizes, s.Devices, err = sf.Values(); err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	cfg, err := s.Config()
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	r, ref, err := mf.Inputs()
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	if r != nil {
		return cli.FinishRun(r, ref, mf, stdout, stderr, nccl.WriteTable)
	}
	cfg.Progress = cli.NewProgressBar(stderr).Update
	run, err := child.MeasureNCCL(cfg, s, stdout)
	if run == nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	run.Command = cli.CommandLine(fs, args)
	if err != nil && run.Error == "" {
		run.Error = err.Error()
	}
	return cli.FinishRun(run, ref, mf, stdout, stderr, nccl.WriteTable)
}

var probeNCCLTestsUsage = []string{"usage: commlab probe nccl-tests [flags] [-- tool arguments]"}

func runProbeNCCLTests(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	return cli.ToolRun(fs, "all_reduce_perf", args, stdout, stderr, cli.ToolParser{
		Parse:   func(out string, run *probes.Run) (any, error) { return doctor.AddNCCLTestsOutput(out, run) },
		Summary: func(w io.Writer, v any) { doctor.WriteNCCLTestsRuns(w, v.(*nccltests.Result)) }})
}

var probeNVBandwidthUsage = []string{"usage: commlab probe nvbandwidth [flags] [-- tool arguments]"}

func runProbeNVBandwidth(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	return cli.ToolRun(fs, "nvbandwidth", args, stdout, stderr, cli.ToolParser{
		Parse:   func(out string, run *probes.Run) (any, error) { return doctor.AddNVBandwidthOutput(out, run) },
		Summary: func(w io.Writer, v any) { doctor.WriteNVBandwidthSums(w, v.(*nvbandwidth.Report)) }})
}

var probePerftestUsage = []string{
	"usage: commlab probe perftest [flags] [-- tool arguments]           server and client here (loopback through the NIC)",
	"       commlab probe perftest --server :PORT [flags]                 machine A: the server",
	"       commlab probe perftest --connect A:PORT [flags]               machine B: the client, which reports",
	"Runs perftest's " + strings.Join(rdma.PerftestTools, ", ") + " (package perftest) and parses the client's report.",
	"Without sizes (--sizes, -b/-e, --all) the tool runs its own default, 65536 bytes.",
}

// runProbePerftest runs a perftest tool (probes/rdma.Perftest): the
// server and then the client here by default, one side per machine with
// --server and --connect, or the client through the user's launcher.
func runProbePerftest(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	cfg := rdma.PerftestConfig{}
	fs.StringVar(&cfg.Tool, "tool", "ib_write_bw", "the perftest tool: "+strings.Join(rdma.PerftestTools, ", ")+" (a name on PATH or a path)")
	cli.AddRDMAPortFlags(fs, &cfg.Device, &cfg.IBPort, &cfg.GIDIndex)
	fs.IntVar(&cfg.UseCUDA, "use-cuda", -1, "CUDA device of both buffers, perftest --use_cuda=N (-1: host memory)")
	sizes := cli.AddSizeFlags(fs, "message size", "", "", 2, "")
	fs.BoolVar(&cfg.All, "all", false, "every size from 2 bytes to 8 MiB in one run (perftest -a)")
	fs.IntVar(&cfg.Iters, "iters", 0, "iterations per size, perftest -n (default: the tool's)")
	fs.BoolVar(&cfg.ReportGbits, "report-gbits", false, "the tool prints Gb/s (--report_gbits); samples are GB/s either way")
	cli.AddSidesFlags(fs, &cfg.Listen, &cfg.Connect, &cfg.Port, &cfg.ServerHost)
	cli.AddCacheDirFlag(fs, &cfg.CacheDir)
	fs.DurationVar(&cfg.Timeout, "timeout", 2*time.Minute, "how long one server and client pair may take")
	reparse := fs.String("load", "", "parse again the output kept in a saved run instead of running the tool")
	dryRun := cli.AddDryRunFlag(fs)
	cfg.Launch.AddFlags(fs)
	mf := cli.AddOutputFlags(fs, false)
	args, cfg.Extra = cli.ToolArgs(args)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	if *reparse != "" {
		if len(cfg.Extra) > 0 {
			return cli.Fail(fs, stderr, 2, "--load takes no tool arguments")
		}
		run, err := probes.LoadRun(*reparse)
		if err != nil {
			return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
		}
		if run.Kind != rdma.PerftestKind {
			return cli.Fail(fs, stderr, cli.ExitBadInput, "%s is a %q run, not a perftest run", *reparse, run.Kind)
		}
		if _, err := rdma.PerftestReparse(run); err != nil {
			return cli.Fail(fs, stderr, 1, "%v", err)
		}
		return cli.FinishRun(run, nil, mf, stdout, stderr, rdma.WritePerftestTable)
	}
	var err error
	if cfg.Sizes, err = sizes.OptionalValues(); err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	if err := cfg.CheckFlags(); err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	if *dryRun {
		if err := rdma.WritePerftestCommands(stdout, cfg); err != nil {
			return cli.Fail(fs, stderr, 2, "%v", err)
		}
		return 0
	}
	run, status := cli.MeasureRun(fs, stderr, args, func(ctx context.Context) (*probes.Run, error) { return rdma.Perftest(ctx, cfg) })
	if run == nil {
		return status
	}
	cli.DescribeMachine(run)
	return cli.FinishRun(run, nil, mf, stdout, stderr, rdma.WritePerftestTable)
}

var probeCustomAllReduceUsage = []string{
	"usage: commlab probe custom-allreduce [flags]                       N processes here, one per GPU (two on one GPU share it)",
	"       commlab probe custom-allreduce --from-logs R0.log,R1.log [--provenance FILE] [--save RUN.json]",
	"Builds probes/customar's customar.cu with nvcc into a cache and times one-shot and two-shot all-reduces over CUDA IPC,",
	"checking every sum, sizes doubling from -b to -e. Ranks that share a GPU time-slice: such a run proves the sums, not speed or cross-GPU ordering.",
}

// runProbeCustomAllReduce builds and runs commlab's own custom all-reduce
// over CUDA IPC (probes/customar), or rebuilds its run from rank logs
// recorded elsewhere (--from-logs).
func runProbeCustomAllReduce(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	cfg := customar.Config{}
	fs.IntVar(&cfg.Ranks, "ranks", 2, "processes (ranks), at most 8")
	device := fs.Int("device", -1, "put every rank on this GPU (-1: rank r on GPU r modulo the GPUs present)")
	sizes := cli.AddSizeRange(fs, "size", "8", "8M", "")
	cli.AddRepeatFlags(fs, &cfg.Warmup, &cfg.Iters, "calls", 5, 20, false, "")
	algos := fs.String("algos", "oneshot,twoshot", "oneshot, twoshot or both")
	fs.IntVar(&cfg.Blocks, "blocks", 36, "CUDA blocks per kernel (at most 64)")
	fs.IntVar(&cfg.Threads, "threads", 512, "threads per block")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "deadline of each flag wait inside the kernels")
	cli.AddCacheDirFlag(fs, &cfg.CacheDir)
	fs.StringVar(&cfg.Arch, "arch", "native", "nvcc -arch")
	fromLogs := fs.String("from-logs", "", "comma-separated rank logs (rank 0 first) to build the run from, instead of measuring")
	prov := fs.String("provenance", "", "with --from-logs: the recording's provenance file (date, GPU, driver)")
	mf := cli.AddOutputFlags(fs, false)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	var run *probes.Run
	var err error
	if *fromLogs != "" {
		if run, err = customar.FromLogFiles(strings.Split(*fromLogs, ","), *prov); err != nil {
			return cli.Fail(fs, stderr, 1, "%v", err)
		}
	} else {
		cfg.MinBytes, cfg.MaxBytes = sizes.Lo.Value, sizes.Hi.Value
		cfg.Algos = strings.Split(*algos, ",")
		if *device >= 0 {
			cfg.SameGPU, cfg.Device = true, *device
		}
		if err := cfg.CheckFlags(); err != nil {
			return cli.Fail(fs, stderr, 2, "%v", err)
		}
		var status int
		if run, status = cli.MeasureRun(fs, stderr, args, func(ctx context.Context) (*probes.Run, error) { return customar.Measure(ctx, cfg) }); run == nil {
			return status
		}
		cli.DescribeDriver(run) // the ranks' placement set the GPU count
	}
	return cli.FinishRun(run, nil, mf, stdout, stderr, customar.WriteTable)
}

// topoSource is where probe topo reads from; tests replace it.
var topoSource = func(fakeName string) (probes.Source, error) {
	if fakeName != "" {
		return published.ByName(fakeName)
	}
	return nvml.New(sysfs.New(os.DirFS("/"))), nil
}

var probeTopoUsage = []string{"usage: commlab probe topo [--json] [--dot] [--svg FILE] [--fake NAME]"}

func runProbeTopo(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	jsonOut := fs.Bool("json", false, "print the topology as JSON")
	svgPath := fs.String("svg", "", "also draw the topology as SVG into `FILE`")
	dotOut := fs.Bool("dot", false, "print the topology as Graphviz DOT")
	fakeName := fs.String("fake", "", "read a fake machine instead of this one: "+strings.Join(published.Names(), ", "))
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	src, err := topoSource(*fakeName)
	if err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	ctx := context.Background()
	topo, err := topograph.Read(ctx, src, stderr)
	if err != nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	if err := (topograph.Show{JSON: *jsonOut, DOT: *dotOut, SVG: *svgPath}).Write(ctx, topo, stdout); err != nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	return 0
}

var probeRDMAWriteUsage = []string{
	"usage: commlab probe rdma-write [flags]                      both sides here (loopback through the NIC)",
	"       commlab probe rdma-write --server :PORT [flags]       machine A: the target buffer",
	"       commlab probe rdma-write --connect A:PORT [flags]     machine B: posts and times the writes",
	"Builds probes/rdma's rdma_write.c (cc, libibverbs) into a cache and times RDMA WRITEs of each size.",
}

// runProbeRDMAWrite builds and runs commlab's own RDMA WRITE program
// (probes/rdma): both sides here by default (a loopback through the NIC),
// or one side per machine with --server and --connect.
func runProbeRDMAWrite(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	cfg := rdma.Config{}
	cli.AddRDMAPortFlags(fs, &cfg.Device, &cfg.IBPort, &cfg.GIDIndex)
	sizes := cli.AddSizeFlags(fs, "write size", "8", "8M", 2, "")
	cli.AddRepeatFlags(fs, &cfg.Warmup, &cfg.Iters, "writes", 10, 1000, false, "")
	gpu := fs.Bool("gpu", false, "register GPU memory (cuMemAlloc; dma-buf, else nvidia-peermem) instead of host memory")
	gpuIndex := fs.Int("gpu-index", 0, "CUDA device of --gpu")
	cli.AddSidesFlags(fs, &cfg.Listen, &cfg.Connect, &cfg.Port, &cfg.ServerHost)
	fs.BoolVar(&cfg.OOBOnly, "oob-only", false, "only exchange connection info over TCP (no device): checks the two machines reach each other")
	cli.AddCacheDirFlag(fs, &cfg.CacheDir)
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "how long one side waits for the other")
	cfg.Launch.AddFlags(fs)
	mf := cli.AddOutputFlags(fs, false)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	var err error
	if cfg.Sizes, err = sizes.Values(); err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	if err := cfg.CheckFlags(*gpuIndex); err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	cfg.GPU = -1
	if *gpu {
		cfg.GPU = *gpuIndex
	}
	run, status := cli.MeasureRun(fs, stderr, args, func(ctx context.Context) (*probes.Run, error) { return rdma.Measure(ctx, cfg) })
	if run == nil {
		return status
	}
	cli.DescribeMachine(run)
	return cli.FinishRun(run, nil, mf, stdout, stderr, func(w io.Writer, r *probes.Run) { rdma.WriteTable(w, r, cfg.OOBOnly) })
}
