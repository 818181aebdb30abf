package main

// commlab doctor: the series' method on one machine, in one command and one
// report, and `commlab doctor --nccl-tests FILE`, the curve doctor of
// chapter 6 on one busbw curve. Gathering and reading the evidence, the
// checks, the launch plans and the report are doctor's and
// doctor/report's; this file reads the flags and prints.

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/parse/files"
)

type doctorFlags struct {
	out, nodeDir, topo, lspciFile, ncclLog, ncclRun, ncclTests, bandwidth, fr, stacks, dmesgFile, rdma, counters, trace, torch, env, baseline, recorded, rankRuns, nodes, pairs, hosts *string
	pairwise                                                                                                                                                                           *bool
	jsonOut, live, quick                                                                                                                                                               *bool
	launcher, hostfile, master                                                                                                                                                         *string
	numNodes, perNode, gpusPerNode                                                                                                                                                     *int
	run                                                                                                                                                                                *bool
}

func addDoctorFlags(fs *flag.FlagSet) doctorFlags {
	return doctorFlags{
		out:         fs.String("out", "", "write report.html, report.json, report.txt and the evidence into `DIR`"),
		nodeDir:     fs.String("node-dir", "", "like --out, into DIR/<node> (what each node runs under a launcher; the node is $COMMLAB_NODE_NAME, $SLURMD_NODENAME or the hostname)"),
		jsonOut:     fs.Bool("json", false, "print the report as JSON (for CI) instead of text"),
		topo:        fs.String("topo", "", "nvidia-smi topo -m output, or commlab probe topo --json"),
		lspciFile:   fs.String("lspci", "", "lspci -vvv output (as root: ACS, bridges, links)"),
		ncclLog:     fs.String("nccl-log", "", "NCCL_DEBUG=INFO log (the job's stderr will do); a directory or glob reads several files as one (one per rank)"),
		ncclRun:     fs.String("nccl-run", "", "a saved commlab probe nccl run (RUN.json, its log included)"),
		ncclTests:   fs.String("nccl-tests", "", "nccl-tests output (text or -J JSON) or a saved run: the busbw curve (alone, this flag runs the curve doctor)"),
		bandwidth:   fs.String("bandwidth", "", "a saved commlab probe bandwidth run"),
		fr:          fs.String("fr", "", "Flight Recorder dumps: a directory (other files in it are left out by content), or a glob"),
		stacks:      fs.String("stacks", "", "the ranks' stacks: a directory of py-spy dump (or faulthandler) text, one rank_N.txt or rankN.txt per rank"),
		dmesgFile:   fs.String("dmesg", "", "the nodes' kernel logs (dmesg -T, journalctl -k): a file, directory or glob; Xid events, GPUs off the bus, NIC ports down"),
		rdma:        fs.String("rdma", "", "the nodes' RDMA devices and ports: show_gids, ibv_devinfo -v, ibstat or rdma link output (a file, directory or glob)"),
		counters:    fs.String("counters", "", "the nodes' NIC port counters: perfquery -x, ethtool -S or sysfs port counters, a port read twice a before and after (a file, directory or glob)"),
		trace:       fs.String("trace", "", "a torch.profiler Chrome trace (overlap)"),
		torch:       fs.String("torch", "", "the job's PyTorch version (e.g. 2.11.0): the defaults it runs with and the TORCH_* names it reads"),
		env:         fs.String("env", "", "the job's environment (`env` output or NAME=VALUE lines)"),
		baseline:    fs.String("baseline", "", "compare with a saved healthy report.json"),
		recorded:    fs.String("recorded", "", "read a recorded machine: "+strings.Join(doctor.RecordedMachines(), ", ")),
		rankRuns:    fs.String("rank-runs", "", "directory of per-node commlab probe nccl runs (*.json), to find a slow node"),
		nodes:       fs.String("nodes", "", "directory of per-node doctor reports (DIR/<node>/report.json); with --launcher, the number of nodes"),
		live:        fs.Bool("live", false, "probe this machine even when files are given"),
		quick:       fs.Bool("quick", true, "short live sweeps (bandwidth 64M-256M, NCCL 8B-1G by 4x)"),
		launcher:    fs.String("launcher", "", "across nodes: print the commands for mpirun, srun or torchrun (--run runs them)"),
		hostfile:    fs.String("hostfile", "", "the nodes, one per line (mpirun's hostfile; srun's --nodelist and torchrun's rendezvous host come from it)"),
		master:      fs.String("master", "", "torchrun's rendezvous host:port (default: the first host, port 29500)"),
		numNodes:    fs.Int("num-nodes", 0, "nodes, with --launcher (also --nodes N; default: the hosts named, else 2)"),
		perNode:     fs.Int("per-node", 8, "GPUs per node, with --launcher"),
		gpusPerNode: fs.Int("gpus-per-node", 0, "the same as --per-node"),
		run:         fs.Bool("run", false, "with --launcher: run the commands, then the follow-up that reads them into one report"),
		pairwise:    fs.Bool("pairwise", false, "with --launcher mpirun or srun: also one two-node all_reduce per pair of hosts (finds a slow node)"),
		hosts:       fs.String("hosts", "", "the nodes, comma-separated (instead of --hostfile)"),
		pairs:       fs.String("pairs", "", "directory of pairwise nccl-tests outputs (<a>+<b>.txt), to find a slow node"),
	}
}

func (f doctorFlags) files() doctor.Files {
	return doctor.Files{Recorded: *f.recorded, Topo: *f.topo, LSPCI: *f.lspciFile, NCCLLog: *f.ncclLog, NCCLRun: *f.ncclRun,
		Bandwidth: *f.bandwidth, NCCLTests: *f.ncclTests, FlightRecorder: *f.fr, Stacks: *f.stacks, Dmesg: *f.dmesgFile, RDMA: *f.rdma, Counters: *f.counters,
		Trace: *f.trace, Env: *f.env, Torch: *f.torch, RankRuns: *f.rankRuns, NodeReports: *f.nodes, Pairs: *f.pairs}
}

var doctorUsage = []string{
	"usage: commlab doctor [--out DIR] [--json] [--topo F --lspci F --nccl-log LOG --nccl-tests F --fr DIR --stacks DIR --dmesg F --trace TRACE.json --env F --torch V --baseline F]",
	"       commlab doctor --nccl-tests FILE [--json] [--preset P ...]   (one busbw curve: see commlab doctor --nccl-tests -h)",
	"       commlab doctor --launcher mpirun|srun|torchrun --nodes N --per-node G --out SHARED_DIR [--hostfile F | --hosts a,b | --master H:P] [--run]",
	"On a GPU machine with no files given it probes: topology (NVML, sysfs), PCI facts, copy bandwidth, an NCCL sweep with its log.",
	"Exit status: 0 every check ok or skipped, 1 warnings, 2 failures (or bad input).",
}

// runDoctor is the full doctor, or the curve doctor when --nccl-tests is
// its one input: that one's flag set is its own, under the same name.
func runDoctor(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	if doctor.CurveOnly(args) {
		return runDoctorCurve(cli.NewFlags(fs.Name(), stderr, doctorCurveUsage...), args, stdout, stderr)
	}
	f := addDoctorFlags(fs)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	if *f.launcher != "" {
		return doctorLaunch(fs, f, stdout, stderr)
	}
	out := *f.out
	if *f.nodeDir != "" {
		out = filepath.Join(*f.nodeDir, doctor.NodeName())
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
		}
	}
	files := f.files()
	ev, err := doctor.ReadFiles(files)
	if err != nil {
		return cli.Fail(fs, stderr, statusOf(err), "%v", err)
	}
	r, err := doctor.Examine(ev, doctor.Gather{Out: out, Quick: *f.quick, Progress: cli.NewProgressBar(stderr).Update}, *f.live || !files.Any())
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	r.Command = doctor.ShellLine(cli.CommandLine(fs, args))
	if *f.baseline != "" {
		if err := r.CompareBaselineFile(*f.baseline); err != nil {
			return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
		}
	}
	if err := cells.ShowDoctorReport(r, out, *f.jsonOut, stdout, stderr); err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	return r.ExitCode
}

// doctorLaunch prints (or, with --run, runs) the commands that take the
// doctor across nodes through the user's launcher, and the follow-up that
// reads what they leave into one report.
func doctorLaunch(fs *flag.FlagSet, f doctorFlags, stdout, stderr io.Writer) int {
	exe, _ := os.Executable()
	plan, err := doctor.LaunchSettings{Launcher: *f.launcher, Hostfile: *f.hostfile, Hosts: *f.hosts, Master: *f.master, Out: *f.out,
		Binary: exe, Nodes: *f.nodes, NumNodes: *f.numNodes, PerNode: *f.perNode, GPUsPerNode: *f.gpusPerNode,
		Pairwise: *f.pairwise, JSON: *f.jsonOut}.Plan()
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	// With --run the plan goes to stderr beside the commands' own output,
	// and stdout carries the one report the follow-up writes.
	planOut := stdout
	if *f.run {
		planOut = stderr
	}
	plan.WriteText(planOut)
	if !*f.run {
		return 0
	}
	if err := plan.RunCommands(stderr); err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	fmt.Fprintf(stderr, "commlab doctor: reading everything: %s\n", doctor.ShellLine(plan.FollowUp))
	return dispatch(plan.FollowUp[1:], stdout, stderr)
}

var doctorCurveUsage = []string{
	"usage: commlab doctor --nccl-tests FILE [--json] [--preset P] [--gpus N] [--nodes N] [--nccl 2.28] [--nvls=false] [--network tcpxo] [--single-node FILE]",
	"  FILE: nccl-tests output (text or -J JSON; - is standard input) or a commlab run saved with --save.",
	"  Reads each busbw curve against costmodel's estimate for the machine (commlab model's: NCCL's tuner picks,",
	"  the links and fitted efficiencies give the bandwidth) and names its shape:",
	"  large-message plateau, small-message floor, dips, multi-node against single-node. The machine is",
	"  the preset of the GPU the file names (--preset to choose one); without one, or for a collective",
	"  the model does not cover, the curve is read on its own shape and the report says why.",
	"  Exit status: 0 all fine, 1 warnings, 2 a failure or bad input.",
}

// runDoctorCurve runs the curve doctor. Its exit status is doctor.ExitCode
// of the verdicts (0 fine, 1 warnings, 2 a failure), or 2 for bad input.
func runDoctorCurve(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	file := fs.String("nccl-tests", "", "nccl-tests output or a commlab NCCL run (required)")
	single := fs.String("single-node", "", "a single-node curve of the same collective, to judge a multi-node one against")
	jsonOut := fs.Bool("json", false, "print the reports and verdicts as JSON")
	preset := fs.String("preset", "", "costmodel node preset of the machine (default: the preset of the GPU the file names): "+costmodel.NodeNames())
	gpus := fs.Int("gpus", 0, "GPUs per node (default: the curve's ranks over its nodes)")
	nodes := fs.Int("nodes", 0, "nodes (default: the hosts the curve names, else 1)")
	family := fs.String("nccl", "", "NCCL version or tuner family: 2.19, 2.23 ... 2.28 (default: the file's NCCL version, else the newest modelled, "+costmodel.DefaultNCCL+")")
	nvls := fs.Bool("nvls", true, "NVLS where the node has it; --nvls=false is NCCL_NVLS_ENABLE=0")
	network := fs.String("network", "", "the network between nodes when the file does not say: ib, roce, efa, tcpx, tcpxo (default: the preset's, named as an assumption)")
	coll := fs.String("coll", "all_reduce", "the collective: for a commlab run, the one to read; for nccl-tests output that does not name it, what it is")
	inPlace := fs.Bool("in-place", false, "for a commlab run: the in-place samples")
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	if *file == "" {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "--nccl-tests FILE is required")
	}
	if *file == "-h" || *file == "-help" || *file == "--help" {
		// `commlab doctor --nccl-tests -h`, as commlab doctor -h says: the
		// flag took -h as its value.
		fs.Usage()
		return 0
	}
	d := doctor.CurveDoctor{Setup: doctor.CurveSetup{Preset: *preset, GPUsPerNode: *gpus, Nodes: *nodes, Family: *family, NVLSOff: !*nvls, Network: *network}}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "coll":
			d.Collective = *coll
		case "nvls":
			d.Setup.NVLSFrom = "--nvls"
		}
	})
	if *network != "" {
		d.Setup.NetworkFrom = "--network"
	}
	if *single != "" {
		d.Single = func() ([]doctor.NamedCurve, error) { return readCurveFile(*single, *coll, *inPlace) }
	}
	ins, err := readCurveFile(*file, *coll, *inPlace)
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	out, err := d.Judge(ins)
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	if *jsonOut {
		if err := cli.EncodeIndented(stdout, out); err != nil {
			return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
		}
		return out.Exit
	}
	out.WriteText(stdout)
	return out.Exit
}

// readCurveFile reads the curves of one input file ("-": standard input).
func readCurveFile(file, coll string, inPlace bool) ([]doctor.NamedCurve, error) {
	data, err := files.ReadInput(file, stdin)
	if err != nil {
		return nil, err
	}
	return doctor.ReadCurves(files.InputName(file), data, coll, inPlace)
}
