package main

import (
	"errors"
	"flag"
	"io"
	"os"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/parse/files"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/parse/ncclxml"
	"github.com/commlab/commlab/parse/nvbandwidth"
	"github.com/commlab/commlab/parse/perftest"
	"github.com/commlab/commlab/parse/rdmatools"
	"github.com/commlab/commlab/parse/torchtrace"
	"github.com/commlab/commlab/parse/ucxlog"
)

// `commlab parse <format> FILE... [--json]`: readable summaries of what
// nccl-tests, NCCL_DEBUG, NCCL's topology XML, nvidia-smi, nvbandwidth,
// perftest, UCX, the RDMA tools (ibstat, ibv_devinfo, show_gids, rdma link) and
// Flight Recorder print, or the parsed data as JSON. The parsers and their
// summaries live in parse/*, reading many files at once in parse/files;
// this file reads the flags. A file that fails to parse still shows what
// was read; the command then exits 1 with the error naming the file and line.

// parseVerbs are the formats `commlab parse` understands, each a verb of
// the command table; parseVerb gives them one shape: files, flags among
// them, --json.
var parseVerbs = []verb{
	parseVerb("flight-recorder", "PyTorch Flight Recorder dumps (pickle or JSON, one per rank; directories allowed)", files.FlightRecorder),
	formatVerb("nccl-log", "NCCL_DEBUG=INFO logs (many ranks and hosts per file)", "log", nccllog.Parse),
	formatVerb("nccl-tests", "nccl-tests text output (any version, NCCL_DEBUG lines allowed) or its -J JSON file", "result", nccltests.Parse),
	formatVerb("nccl-xml", "NCCL_TOPO_DUMP_FILE / NCCL_GRAPH_DUMP_FILE XML", "document", ncclxml.Parse),
	formatVerb("nvbandwidth", "nvbandwidth text or -j JSON output", "report", nvbandwidth.Parse),
	formatVerb("perftest", "perftest ib_*_bw / ib_*_lat reports and --out_json files", "report", perftest.Parse),
	formatVerb("rdma", "ibstat, ibv_devinfo [-v], show_gids or rdma link output (which one is detected)", "report", rdmatools.Parse),
	formatVerb("ibstat", "ibstat output (infiniband-diags)", "report", rdmatools.ParseIBStat),
	formatVerb("ibv-devinfo", "ibv_devinfo or ibv_devinfo -v output (rdma-core), or its GID lines", "report", rdmatools.ParseIBVDevinfo),
	formatVerb("show-gids", "show_gids tables (MLNX_OFED)", "report", rdmatools.ParseShowGIDs),
	formatVerb("rdma-link", "rdma link show output (iproute2)", "report", rdmatools.ParseRDMALink),
	parseVerb("smi", "nvidia-smi -q reports", files.SMI),
	{name: "torch-trace", summary: "torch.profiler Chrome traces (JSON or .json.gz): per-stream GPU intervals, communication under compute, overlap_fraction", usage: parseTorchTraceUsage, run: runParseTorchTrace},
	parseVerb("topo", "nvidia-smi topo -m matrices", files.Topo),
	formatVerb("ucx-log", "UCX's log with UCX_LOG_LEVEL=info and UCX_PROTO_INFO=y (NIXL, UCX-backed MPI): configurations, protocols per memory type", "log", ucxlog.Parse),
}

// formatVerb is parseVerb for a simple format: parseOne reads one file
// into a value that summarises itself, shown under key in --json.
func formatVerb[T files.Summarizer](name, summary, key string, parseOne func(io.Reader) (T, error)) verb {
	return parseVerb(name, summary, func(names []string, opt files.Options, stdout io.Writer) error {
		return files.Format(names, opt, stdout, key, parseOne)
	})
}

// parseVerb makes the verb for one format: run parses the named files and
// writes either a readable summary or, with --json, the parsed numbers as
// JSON.
func parseVerb(name, summary string, run func(names []string, opt files.Options, stdout io.Writer) error) verb {
	usage := []string{"usage: commlab parse " + name + " FILE... [--json]"}
	return verb{name: name, summary: summary, usage: usage, run: func(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
		jsonOut := fs.Bool("json", false, "print the parsed data as JSON")
		names, status, ok := cli.Parse(fs, args)
		if !ok {
			return status
		}
		if len(names) == 0 {
			return cli.Fail(fs, stderr, cli.ExitBadInput, "no input files")
		}
		if err := run(names, files.Options{JSON: *jsonOut, Stdin: stdin}, stdout); err != nil {
			return cli.Fail(fs, stderr, statusOf(err), "%v", err)
		}
		return 0
	}}
}

// stdin is what the file "-" reads; tests replace it.
var stdin io.Reader = os.Stdin

var parseTorchTraceUsage = []string{
	"usage: commlab parse torch-trace FILE... [--within NAME] [--device N] [--json]",
	"Reads torch.profiler Chrome traces (export_chrome_trace; gzipped too) and measures communication against compute.",
}

// runParseTorchTrace is `commlab parse torch-trace FILE... [--within NAME]
// [--json]`: each trace's streams and overlap, over the whole trace or
// inside the CPU ranges called NAME (a record_function annotation).
func runParseTorchTrace(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	jsonOut := fs.Bool("json", false, "print the parsed data as JSON")
	within := fs.String("within", "", "analyse only the GPU work launched inside the CPU ranges of this name (a record_function annotation)")
	device := fs.Int("device", -1, "the GPU to analyse (-1: the lowest in the trace)")
	names, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	if len(names) == 0 {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "no input files")
	}
	err := files.TorchTrace(names, files.Options{JSON: *jsonOut, Stdin: stdin}, torchtrace.Options{Within: *within, Device: *device}, stdout)
	var werr *files.WriteError
	if errors.As(err, &werr) {
		return cli.Fail(fs, stderr, 1, "%v", werr)
	}
	if err != nil {
		return cli.Fail(fs, stderr, statusOf(err), "%v", err)
	}
	return 0
}
