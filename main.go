// Command commlab is a Go Jupyter kernel and literate lab for GPU
// communication: it runs the kernel, installs its kernelspec, runs and syncs
// the chapter notebooks, evaluates cost models, parses tool outputs and probes
// the machine.
//
// The command is thin: flags, printing and the one verb table below; what a
// verb does lives in the packages it calls (kernel, install, lab, costmodel,
// probes and its sub-packages).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/kernel/conn"
	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/literate"
	"github.com/commlab/commlab/notebook/runner"
	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/probes/child"
)

// verb is one verb of the commlab command, or a group of verbs under one
// name (`commlab probe <kind>`), dispatched by the same code at each level.
// The table names each verb once: its flag set is named by the path to it
// ("commlab probe topo") and prints usage for -h.
type verb struct {
	name    string
	summary string
	// usage is what -h prints above the flags.
	usage []string
	// run executes the verb with its flag set (cli.NewFlags: named by the
	// path, printing usage for -h) and the arguments after its name, and
	// returns the process exit status (2 for usage errors).
	run func(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int
	// sub holds the verbs under this one. With run too, arguments that do
	// not start with one of their names go to run (`commlab model
	// all_reduce` beside `commlab model kv`).
	sub []verb
}

// verbs is the command table, in the order usage lists it. init fills it:
// verbs that run other verbs (lab runs install and run, doctor --launcher
// --run its follow-up) dispatch through it.
var verbs []verb

func init() {
	verbs = []verb{
		{name: "course", summary: "write an nbgrader course from the chapters: source notebooks with the trainer's answers, nbgrader_config.py", usage: courseUsage, run: runCourse},
		{name: "doctor", summary: "check this machine layer by layer (or the files you bring; --nccl-tests FILE: one busbw curve) and report: HTML, JSON, exit 0/1/2", usage: doctorUsage, run: runDoctor},
		{name: "export", summary: "write executed notebooks as self-contained HTML with an index", usage: exportUsage, run: runExport},
		{name: "install", summary: "install the Jupyter kernelspec (Go (commlab))", usage: installUsage, run: runInstall},
		{name: "kernel", summary: "run the Jupyter kernel on a connection file", usage: kernelUsage, run: runKernel},
		{name: "lab", summary: "write the chapters this binary carries into DIR, register the kernel and run them (make lab without a clone)", usage: labUsage, run: runLab},
		{name: "model", summary: "predict a collective's time, algbw and busbw (alpha-beta, NCCL-like tuner)", usage: modelUsage, run: runModel, sub: []verb{
			{name: "calibrate", summary: "the calibrated model beside published measurements", usage: modelCalibrateUsage, run: runModelCalibrate},
			{name: "kv", summary: "KV cache bytes and their transfer time", usage: modelKVUsage, run: runModelKV},
			{name: "tp-allreduce", summary: "a tensor-parallel decode step's all_reduces and the backend vLLM picks", usage: modelTPAllReduceUsage, run: runModelTPAllReduce},
		}},
		{name: "parse", summary: "parse tool outputs (nccl-tests, NCCL logs, topo, ...)", sub: parseVerbs},
		{name: "probe", summary: "read this machine's topology or measure it", sub: []verb{
			{name: "bandwidth", summary: "copy bandwidth: host<->device, device-local, peer to peer", usage: probeBandwidthUsage, run: runProbeBandwidth},
			{name: "c10d", summary: "chapter 5's c10d experiments (c10d_lab.py, embedded): store traffic, coalescing, timeouts per error-handling mode, compiled functional collectives", usage: probeC10dUsage, run: runProbeC10d},
			{name: "custom-allreduce", summary: "commlab's own one-shot and two-shot all-reduce over CUDA IPC (nvcc): sums checked, times per size", usage: probeCustomAllReduceUsage, run: runProbeCustomAllReduce},
			{name: "hang", summary: "stage a collective hang on CPU ranks (hang_torch.py, embedded): Flight Recorder dumps, stacks, fr_trace", usage: probeHangUsage, run: runProbeHang},
			{name: "kv-nixl", summary: "a KV-sized transfer through NIXL on one GPU (kv_nixl.py, embedded): device to host and back, beside PyTorch copies", usage: probeKVNixlUsage, run: runProbeKVNixl},
			{name: "latency", summary: "kernel launch, event and CUDA-graph latency", usage: probeLatencyUsage, run: runProbeLatency},
			{name: "nccl", summary: "NCCL collectives over the local GPUs, nccl-tests style", usage: probeNCCLUsage, run: runProbeNCCL},
			{name: "nccl-tests", summary: "run an nccl-tests binary (locally or through mpirun/srun) and parse it", usage: probeNCCLTestsUsage, run: runProbeNCCLTests},
			{name: "nvbandwidth", summary: "run nvbandwidth and parse its output", usage: probeNVBandwidthUsage, run: runProbeNVBandwidth},
			{name: "overlap", summary: "the overlap micro-benchmark (bench_overlap.py, embedded): GEMMs under a collective, torch.profiler traces read", usage: probeOverlapUsage, run: runProbeOverlap},
			{name: "perftest", summary: "run a perftest binary (ib_write_bw, ...) and parse it", usage: probePerftestUsage, run: runProbePerftest},
			{name: "rdma-write", summary: "commlab's own RDMA WRITE program (libibverbs): build, run, time a size sweep", usage: probeRDMAWriteUsage, run: runProbeRDMAWrite},
			{name: "topo", summary: "this machine's GPUs, NICs, PCIe and NVLink topology (NVML + sysfs)", usage: probeTopoUsage, run: runProbeTopo},
			{name: "torch", summary: "run the PyTorch reference (bench_torch.py, embedded) that --compare reads", usage: probeTorchUsage, run: runProbeTorch},
		}},
		{name: "run", summary: "run notebooks or chapters headless and write the executed copies", usage: runUsage, run: runRun},
		{name: "sync", summary: "sync chapters/*.md and notebooks/*.ipynb (--check: fail when they disagree)", usage: syncUsage, run: runSync},
	}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version") {
		fmt.Fprintln(stdout, "commlab", version())
		return 0
	}
	if len(args) > 0 && args[0] == child.Verb {
		return runProbeChild(stderr) // hidden: the child side of child.Run
	}
	return dispatchIn("commlab", verbs, args, stdout, stderr)
}

// dispatchIn runs the verb of table that args name; path is what precedes
// it on the command line ("commlab", "commlab probe").
func dispatchIn(path string, table []verb, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr, path, table)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	v := findVerb(table, args[0])
	if v == nil {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", path, args[0])
		usage(stderr, path, table)
		return 2
	}
	path += " " + v.name
	if v.sub != nil && (v.run == nil || len(args) > 1 && findVerb(v.sub, args[1]) != nil) {
		return dispatchIn(path, v.sub, args[1:], stdout, stderr)
	}
	return v.run(cli.NewFlags(path, stderr, v.usage...), args[1:], stdout, stderr)
}

func findVerb(table []verb, name string) *verb {
	for i := range table {
		if table[i].name == name {
			return &table[i]
		}
	}
	return nil
}

func usage(w io.Writer, path string, table []verb) {
	fmt.Fprintf(w, "usage: %s <command> [arguments]\n", path)
	fmt.Fprintln(w, "\ncommands:")
	width := 10
	for _, v := range table {
		width = max(width, len(v.name))
	}
	for _, v := range table {
		fmt.Fprintf(w, "  %-*s %s\n", width, v.name, v.summary)
	}
	fmt.Fprintf(w, "\nRun '%s <command> -h' for a command's flags.\n", path)
}

// version reports the module version the binary was built from, as
// `go install module@version` records it, or "devel" for a local build.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}

// inputErrors are the sentinels that say an error is the input's fault.
var inputErrors = []error{fs.ErrNotExist, fs.ErrPermission, notebook.ErrFormat, notebook.ErrInvalid,
	parse.ErrFormat, conn.ErrBadInfo, runner.ErrParameter, runner.ErrOverSource, literate.ErrUnclosed, literate.ErrMetadata}

// statusOf is the exit status for err: cli.ExitBadInput when the input is at
// fault (missing, unreadable, not the format, malformed), else cli.ExitFailed.
func statusOf(err error) int {
	for _, s := range inputErrors {
		if errors.Is(err, s) {
			return cli.ExitBadInput
		}
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return cli.ExitBadInput
	}
	return cli.ExitFailed
}
