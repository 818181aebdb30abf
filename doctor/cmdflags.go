package doctor

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/parse/files"
)

// fullFlags are the flags of commlab doctor that only the full doctor
// reads: with any of them, --nccl-tests FILE is one more piece of its
// evidence rather than the curve doctor's one input.
var fullFlags = map[string]bool{"out": true, "node-dir": true, "topo": true, "lspci": true, "nccl-log": true, "nccl-run": true,
	"bandwidth": true, "fr": true, "trace": true, "env": true, "baseline": true, "recorded": true, "rank-runs": true, "nodes": true,
	"pairs": true, "stacks": true, "dmesg": true, "rdma": true, "counters": true, "launcher": true, "torch": true, "live": true}

// CurveOnly says whether the arguments ask for the curve doctor alone
// (--nccl-tests FILE and its own flags: commlab doctor --nccl-tests -h).
func CurveOnly(args []string) bool {
	curve := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "nccl-tests" {
			curve = true
		}
		if fullFlags[name] {
			return false
		}
	}
	return curve
}

// Flags are commlab doctor's flags: the evidence files, where the report
// goes, and the launch across nodes. They sit beside fullFlags, which must
// name the same flags: the command defines them on its flag set
// (AddFlags), parses, and hands them back here (OutDir, LaunchSettings).
type Flags struct {
	Files Files
	// Out is --out; NodeDir --node-dir, the same under DIR/<node>.
	Out, NodeDir string
	// Baseline is a saved healthy report.json to compare with.
	Baseline string
	// JSON prints the report as JSON; Live probes this machine even when
	// files are given; Quick keeps the live sweeps short; Run runs the
	// launch plan's commands.
	JSON, Live, Quick, Run bool
	// launch holds the launch flags but Out, Nodes, JSON and Binary,
	// which LaunchSettings fills from the others.
	launch LaunchSettings
}

// AddFlags defines the doctor's flags on fs.
func (f *Flags) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.Out, "out", "", "write report.html, report.json, report.txt and the evidence into `DIR`")
	fs.StringVar(&f.NodeDir, "node-dir", "", "like --out, into DIR/<node> (what each node runs under a launcher; the node is $COMMLAB_NODE_NAME, $SLURMD_NODENAME or the hostname)")
	fs.BoolVar(&f.JSON, "json", false, "print the report as JSON (for CI) instead of text")
	fs.StringVar(&f.Files.Topo, "topo", "", "nvidia-smi topo -m output, or commlab probe topo --json")
	fs.StringVar(&f.Files.LSPCI, "lspci", "", "lspci -vvv output (as root: ACS, bridges, links)")
	fs.StringVar(&f.Files.NCCLLog, "nccl-log", "", "NCCL_DEBUG=INFO log (the job's stderr will do); a directory or glob reads several files as one (one per rank)")
	fs.StringVar(&f.Files.NCCLRun, "nccl-run", "", "a saved commlab probe nccl run (RUN.json, its log included)")
	fs.StringVar(&f.Files.NCCLTests, "nccl-tests", "", "nccl-tests output (text or -J JSON) or a saved run: the busbw curve (alone, this flag runs the curve doctor)")
	fs.StringVar(&f.Files.Bandwidth, "bandwidth", "", "a saved commlab probe bandwidth run")
	fs.StringVar(&f.Files.FlightRecorder, "fr", "", "Flight Recorder dumps: a directory (other files in it are left out by content), or a glob")
	fs.StringVar(&f.Files.Stacks, "stacks", "", "the ranks' stacks: a directory of py-spy dump (or faulthandler) text, one rank_N.txt or rankN.txt per rank")
	fs.StringVar(&f.Files.Dmesg, "dmesg", "", "the nodes' kernel logs (dmesg -T, journalctl -k): a file, directory or glob; Xid events, GPUs off the bus, NIC ports down")
	fs.StringVar(&f.Files.RDMA, "rdma", "", "the nodes' RDMA devices and ports: show_gids, ibv_devinfo -v, ibstat or rdma link output (a file, directory or glob)")
	fs.StringVar(&f.Files.Counters, "counters", "", "the nodes' NIC port counters: perfquery -x, ethtool -S or sysfs port counters, a port read twice a before and after (a file, directory or glob)")
	fs.StringVar(&f.Files.Trace, "trace", "", "a torch.profiler Chrome trace (overlap)")
	fs.StringVar(&f.Files.Torch, "torch", "", "the job's PyTorch version (e.g. 2.11.0): the defaults it runs with and the TORCH_* names it reads")
	fs.StringVar(&f.Files.Env, "env", "", "the job's environment (`env` output or NAME=VALUE lines)")
	fs.StringVar(&f.Baseline, "baseline", "", "compare with a saved healthy report.json")
	fs.StringVar(&f.Files.Recorded, "recorded", "", "read a recorded machine: "+strings.Join(RecordedMachines(), ", "))
	fs.StringVar(&f.Files.RankRuns, "rank-runs", "", "directory of per-node commlab probe nccl runs (*.json), to find a slow node")
	fs.StringVar(&f.Files.NodeReports, "nodes", "", "directory of per-node doctor reports (DIR/<node>/report.json); with --launcher, the number of nodes")
	fs.BoolVar(&f.Live, "live", false, "probe this machine even when files are given")
	fs.BoolVar(&f.Quick, "quick", true, "short live sweeps (bandwidth 64M-256M, NCCL 8B-1G by 4x)")
	fs.StringVar(&f.launch.Launcher, "launcher", "", "across nodes: print the commands for mpirun, srun or torchrun (--run runs them)")
	fs.StringVar(&f.launch.Hostfile, "hostfile", "", "the nodes, one per line (mpirun's hostfile; srun's --nodelist and torchrun's rendezvous host come from it)")
	fs.StringVar(&f.launch.Master, "master", "", "torchrun's rendezvous host:port (default: the first host, port 29500)")
	fs.IntVar(&f.launch.NumNodes, "num-nodes", 0, "nodes, with --launcher (also --nodes N; default: the hosts named, else 2)")
	fs.IntVar(&f.launch.PerNode, "per-node", 8, "GPUs per node, with --launcher")
	fs.IntVar(&f.launch.GPUsPerNode, "gpus-per-node", 0, "the same as --per-node")
	fs.BoolVar(&f.Run, "run", false, "with --launcher: run the commands, then the follow-up that reads them into one report")
	fs.BoolVar(&f.launch.Pairwise, "pairwise", false, "with --launcher mpirun or srun: also one two-node all_reduce per pair of hosts (finds a slow node)")
	fs.StringVar(&f.launch.Hosts, "hosts", "", "the nodes, comma-separated (instead of --hostfile)")
	fs.StringVar(&f.Files.Pairs, "pairs", "", "directory of pairwise nccl-tests outputs (<a>+<b>.txt), to find a slow node")
}

// Launching says whether the flags ask for the launch across nodes
// (--launcher) rather than a report.
func (f *Flags) Launching() bool { return f.launch.Launcher != "" }

// LaunchSettings are the launch flags, with binary the commlab that the
// nodes run: --out, --nodes and --json serve the launch too.
func (f *Flags) LaunchSettings(binary string) LaunchSettings {
	s := f.launch
	s.Out, s.Nodes, s.JSON, s.Binary = f.Out, f.Files.NodeReports, f.JSON, binary
	return s
}

// OutDir is where the report and the evidence go: --out, or with
// --node-dir this node's folder under it; empty for none.
func (f *Flags) OutDir() string {
	if f.NodeDir != "" {
		return filepath.Join(f.NodeDir, NodeName())
	}
	return f.Out
}

// MakeOutDir creates OutDir when there is one, and returns it.
func (f *Flags) MakeOutDir() (string, error) {
	out := f.OutDir()
	if out == "" {
		return "", nil
	}
	return out, os.MkdirAll(out, 0o755)
}

// CurveUsage is what commlab doctor --nccl-tests -h prints above the
// flags CurveFlags defines.
var CurveUsage = []string{
	"usage: commlab doctor --nccl-tests FILE [--json] [--preset P] [--gpus N] [--nodes N] [--nccl 2.28] [--nvls=false] [--network tcpxo] [--single-node FILE]",
	"  FILE: nccl-tests output (text or -J JSON; - is standard input) or a commlab run saved with --save.",
	"  Reads each busbw curve against costmodel's estimate for the machine (commlab model's: NCCL's tuner picks,",
	"  the links and fitted efficiencies give the bandwidth) and names its shape:",
	"  large-message plateau, small-message floor, dips, multi-node against single-node. The machine is",
	"  the preset of the GPU the file names (--preset to choose one); without one, or for a collective",
	"  the model does not cover, the curve is read on its own shape and the report says why.",
	"  Exit status: 0 all fine, 1 warnings, 2 a failure or bad input.",
}

// CurveFlags are the curve doctor's flags (commlab doctor --nccl-tests
// FILE, alone): the file, the machine it ran on, how to print.
type CurveFlags struct {
	// File is the nccl-tests output or saved run ("-": standard input);
	// Single a single-node curve to judge a multi-node one against.
	File, Single string
	JSON         bool
	setup        CurveSetup
	nvls         bool
	coll         string
	inPlace      bool
}

// AddFlags defines the curve doctor's flags on fs.
func (c *CurveFlags) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.File, "nccl-tests", "", "nccl-tests output or a commlab NCCL run (required)")
	fs.StringVar(&c.Single, "single-node", "", "a single-node curve of the same collective, to judge a multi-node one against")
	fs.BoolVar(&c.JSON, "json", false, "print the reports and verdicts as JSON")
	fs.StringVar(&c.setup.Preset, "preset", "", "costmodel node preset of the machine (default: the preset of the GPU the file names): "+costmodel.NodeNames())
	fs.IntVar(&c.setup.GPUsPerNode, "gpus", 0, "GPUs per node (default: the curve's ranks over its nodes)")
	fs.IntVar(&c.setup.Nodes, "nodes", 0, "nodes (default: the hosts the curve names, else 1)")
	fs.StringVar(&c.setup.Family, "nccl", "", "NCCL version or tuner family: 2.19, 2.23 ... 2.28 (default: the file's NCCL version, else the newest modelled, "+costmodel.DefaultNCCL+")")
	fs.BoolVar(&c.nvls, "nvls", true, "NVLS where the node has it; --nvls=false is NCCL_NVLS_ENABLE=0")
	fs.StringVar(&c.setup.Network, "network", "", "the network between nodes when the file does not say: ib, roce, efa, tcpx, tcpxo (default: the preset's, named as an assumption)")
	fs.StringVar(&c.coll, "coll", "all_reduce", "the collective: for a commlab run, the one to read; for nccl-tests output that does not name it, what it is")
	fs.BoolVar(&c.inPlace, "in-place", false, "for a commlab run: the in-place samples")
}

// Judge reads the curves of the file (and of the single-node one) and
// judges them; fs, the parsed flag set, tells which flags the user gave
// (those name themselves as the source of a setting). Its errors are the
// input's fault.
func (c *CurveFlags) Judge(fs *flag.FlagSet, stdin io.Reader) (CurveDoctorOutput, error) {
	d := CurveDoctor{Setup: c.setup}
	d.Setup.NVLSOff = !c.nvls
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "coll":
			d.Collective = c.coll
		case "nvls":
			d.Setup.NVLSFrom = "--nvls"
		}
	})
	if c.setup.Network != "" {
		d.Setup.NetworkFrom = "--network"
	}
	read := func(file string) ([]NamedCurve, error) {
		data, err := files.ReadInput(file, stdin)
		if err != nil {
			return nil, err
		}
		return ReadCurves(files.InputName(file), data, c.coll, c.inPlace)
	}
	if c.Single != "" {
		d.Single = func() ([]NamedCurve, error) { return read(c.Single) }
	}
	ins, err := read(c.File)
	if err != nil {
		return CurveDoctorOutput{}, err
	}
	return d.Judge(ins)
}
