package main

// commlab doctor: the series' method on one machine, in one command and one
// report. The checks and the report are lab/doctor's and lab/doctor/report's;
// this file gathers the evidence (probing a GPU machine, or reading the files
// a user brings), builds a launcher's command across nodes, and writes the
// outputs.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/lab/atomicfile"
	"github.com/commlab/commlab/lab/doctor"
	"github.com/commlab/commlab/lab/doctor/report"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/nvml"
	"github.com/commlab/commlab/probes/parse/lspci"
	"github.com/commlab/commlab/probes/parse/nccllog"
	"github.com/commlab/commlab/probes/sysfs"
)

// fullDoctorFlags are the flags only the full doctor reads: with any of
// them, --nccl-tests FILE is one more piece of its evidence rather than
// the curve doctor's one input.
var fullDoctorFlags = map[string]bool{"out": true, "node-dir": true, "topo": true, "lspci": true, "nccl-log": true, "nccl-run": true,
	"bandwidth": true, "fr": true, "trace": true, "env": true, "baseline": true, "recorded": true, "rank-runs": true, "nodes": true,
	"pairs": true, "stacks": true, "dmesg": true, "launcher": true, "torch": true, "live": true}

// curveOnly says whether the arguments ask for the curve doctor alone
// (--nccl-tests FILE and its own flags: commlab doctor --nccl-tests -h).
func curveOnly(args []string) bool {
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
		if fullDoctorFlags[name] {
			return false
		}
	}
	return curve
}

type doctorFlags struct {
	out, nodeDir, topo, lspciFile, ncclLog, ncclRun, ncclTests, bandwidth, fr, stacks, dmesgFile, trace, torch, env, baseline, recorded, rankRuns, nodes, pairs, hosts *string
	pairwise                                                                                                                                                           *bool
	jsonOut, live, quick                                                                                                                                               *bool
	launcher, hostfile, master                                                                                                                                         *string
	numNodes, perNode, gpusPerNode                                                                                                                                     *int
	run                                                                                                                                                                *bool
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
		Bandwidth: *f.bandwidth, NCCLTests: *f.ncclTests, FlightRecorder: *f.fr, Stacks: *f.stacks, Dmesg: *f.dmesgFile,
		Trace: *f.trace, Env: *f.env, Torch: *f.torch, RankRuns: *f.rankRuns, NodeReports: *f.nodes, Pairs: *f.pairs}
}

func runDoctor(args []string, stdout, stderr io.Writer) int {
	if curveOnly(args) {
		return runDoctorCurve(args, stdout, stderr)
	}
	fs := newFlags("commlab doctor", stderr,
		"usage: commlab doctor [--out DIR] [--json] [--topo F --lspci F --nccl-log LOG --nccl-tests F --fr DIR --stacks DIR --dmesg F --trace TRACE.json --env F --torch V --baseline F]",
		"       commlab doctor --nccl-tests FILE [--json] [--preset P ...]   (one busbw curve: see commlab doctor --nccl-tests -h)",
		"       commlab doctor --launcher mpirun|srun|torchrun --nodes N --per-node G --out SHARED_DIR [--hostfile F | --hosts a,b | --master H:P] [--run]",
		"On a GPU machine with no files given it probes: topology (NVML, sysfs), PCI facts, copy bandwidth, an NCCL sweep with its log.",
		"Exit status: 0 every check ok or skipped, 1 warnings, 2 failures (or bad input).")
	f := addDoctorFlags(fs)
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	if *f.launcher != "" {
		return doctorLaunch(fs, f, stdout, stderr)
	}
	out := *f.out
	if *f.nodeDir != "" {
		out = filepath.Join(*f.nodeDir, nodeName())
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
	}
	files := f.files()
	ev, err := doctor.ReadFiles(files)
	if err != nil {
		return fail(fs, stderr, statusOf(err), "%v", err)
	}
	if *f.live || !files.Any() {
		if err := gatherLive(ev, out, *f.quick, stderr); err != nil {
			return fail(fs, stderr, exitFailed, "%v", err)
		}
	}
	ev.Collective = append(ev.Collective, doctor.CheckCurves(ev)...)
	r := doctor.Diagnose(ev)
	r.Command = doctor.ShellLine(append([]string{"commlab", "doctor"}, args...))
	if *f.baseline != "" {
		bf, err := os.Open(*f.baseline)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
		base, err := doctor.ReadReport(bf)
		bf.Close()
		if err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
		r.CompareBaseline(base, *f.baseline)
	}
	if out != "" {
		if err := writeDoctorOutputs(out, r); err != nil {
			return fail(fs, stderr, exitFailed, "%v", err)
		}
		fmt.Fprintf(stderr, "commlab doctor: wrote %s\n", filepath.Join(out, "report.html"))
	}
	if *f.jsonOut {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		return fail(fs, stderr, exitFailed, "%v", err)
	}
	return r.ExitCode
}

// nodeName is this node's name for --node-dir: what the launcher says
// ($SLURMD_NODENAME under srun), or $COMMLAB_NODE_NAME where hostnames
// repeat (containers), else the hostname.
func nodeName() string {
	for _, k := range []string{"COMMLAB_NODE_NAME", "SLURMD_NODENAME"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "node"
	}
	return host
}

// gatherLive probes this machine: topology, PCI facts, CPU affinity and
// environment always; copy bandwidth and an NCCL sweep (each in a child
// commlab, so a crash or hang there cannot take the report with it) when
// there is a GPU. Runs are kept in out (or a temporary directory).
func gatherLive(ev *doctor.Evidence, out string, quick bool, stderr io.Writer) error {
	pb := newProgressBar(stderr)
	const steps = 5
	ctx := context.Background()
	pb.update(0, steps, "topology")
	root := os.DirFS("/")
	t, err := nvml.New(sysfs.New(root)).Topology(ctx)
	if err != nil && !errors.Is(err, probes.ErrUnavailable) {
		return err
	}
	if t != nil && ev.Topology == nil {
		ev.Topology = t
		ev.Host = t.Host
		ev.AddInput("topology", "probed: NVML and sysfs", t.Source)
	}
	pb.update(1, steps, "PCI facts")
	if ev.PCI == nil {
		if f, err := sysfs.New(root).PCIFacts(); err == nil {
			if !f.ACSRead {
				if lf := lspciFacts(); lf != nil && lf.ACSRead {
					f.ACS, f.ACSRead, f.Source = lf.ACS, true, "sysfs, ACS from lspci -vvv"
				}
			}
			ev.PCI = f
			ev.AddInput("pci", "probed: sysfs (config space, iommu_groups, /proc/cmdline)", fmt.Sprintf("ACS readable: %v", f.ACSRead))
		}
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				ev.AllowedCPUs = strings.TrimSpace(v)
			}
		}
	}
	if ev.Env == nil {
		all := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			all[k] = v
		}
		ev.Env, ev.EnvSource = doctor.CommEnv(all), "this process"
		ev.AddInput("environment", "this process", fmt.Sprintf("%d NCCL/TORCH/CUDA variables", len(ev.Env)))
	}
	if ev.TorchVersion == "" {
		if py, err := exec.LookPath("python3"); err == nil {
			ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			v, err := exec.CommandContext(ctx, py, "-c", "import torch; print(torch.__version__)").Output()
			cancel()
			if err == nil {
				ev.TorchVersion = strings.TrimSpace(string(v))
				ev.AddInput("pytorch", "python3 -c 'import torch'", "PyTorch "+ev.TorchVersion)
			}
		}
	}
	if ev.Topology == nil || len(ev.Topology.GPUs) == 0 {
		pb.update(steps, steps, "no GPU: nothing to measure")
		return nil
	}
	dir := out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "commlab-doctor-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	bwArgs := []string{"probe", "bandwidth", "-b", "64M", "-e", "256M", "-f", "4"}
	ncArgs := []string{"probe", "nccl", "-b", "8", "-e", "1G", "-f", "4", "--debug-subsys", "INIT,GRAPH,ENV,TUNING,NET"}
	if !quick {
		bwArgs = []string{"probe", "bandwidth"}
		ncArgs = []string{"probe", "nccl", "-b", "8", "-e", "8G", "-f", "2", "--debug-subsys", "INIT,GRAPH,ENV,TUNING,NET"}
	}
	pb.update(2, steps, "copy bandwidth")
	if run, err := childRun(exe, bwArgs, filepath.Join(dir, "bandwidth.json")); err == nil {
		ev.Bandwidth = run
		ev.AddInput("bandwidth", "probed: commlab "+strings.Join(bwArgs, " "), doctor.RunProvenance(run))
	} else {
		ev.AddInput("bandwidth", "probed: commlab "+strings.Join(bwArgs, " "), "failed: "+err.Error())
	}
	pb.update(3, steps, "NCCL sweep")
	if run, err := childRun(exe, ncArgs, filepath.Join(dir, "nccl.json")); err == nil {
		ev.NCCL = run
		ev.AddInput("nccl sweep", "probed: commlab "+strings.Join(ncArgs, " "), doctor.RunProvenance(run))
		if lg := run.Logs["nccl-debug"]; lg != "" && ev.NCCLLog == nil {
			if ev.NCCLLog, err = nccllog.ParseBytes([]byte(lg)); err == nil {
				ev.NCCLLogName = "the sweep's NCCL_DEBUG=INFO log"
				ev.AddInput("nccl log", "the sweep's NCCL_DEBUG=INFO log", fmt.Sprintf("%d NCCL lines", ev.NCCLLog.NCCLLines))
			}
		}
	} else {
		ev.AddInput("nccl sweep", "probed: commlab "+strings.Join(ncArgs, " "), "failed: "+err.Error())
	}
	// nccl-tests when installed: its output is what the curve doctor reads.
	if _, err := exec.LookPath("all_reduce_perf"); err == nil {
		pb.update(4, steps, "nccl-tests")
		ntArgs := []string{"probe", "nccl-tests", "--", "-b", "8", "-e", "1G", "-f", "2", "-g", strconv.Itoa(len(ev.Topology.GPUs))}
		if run, err := childRun(exe, ntArgs, filepath.Join(dir, "nccl-tests.json")); err == nil {
			ev.NCCLTests = run
			ev.AddInput("nccl-tests", "probed: commlab "+strings.Join(ntArgs, " "), doctor.RunProvenance(run))
		} else {
			ev.AddInput("nccl-tests", "probed: commlab "+strings.Join(ntArgs, " "), "failed: "+err.Error())
		}
	}
	pb.update(steps, steps, "done")
	return nil
}

// childRun runs `exe args... --save path` and loads the run it saved; the
// child's output goes to path's .log beside it.
func childRun(exe string, args []string, path string) (*probes.Run, error) {
	logf, err := os.Create(strings.TrimSuffix(path, ".json") + ".log")
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	// --save goes before a "--" (the tool's arguments follow it).
	full := append([]string(nil), args...)
	if i := slices.Index(full, "--"); i >= 0 {
		full = append(full[:i], append([]string{"--save", path}, args[i:]...)...)
	} else {
		full = append(full, "--save", path)
	}
	cmd := exec.Command(exe, full...)
	cmd.Stdout, cmd.Stderr = logf, logf
	runErr := cmd.Run()
	run, err := probes.LoadRun(path)
	if err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("%s: %w (see %s)", strings.Join(args[:2], " "), runErr, logf.Name())
		}
		return nil, err
	}
	return run, nil
}

// lspciFacts runs lspci -vvv when it is installed (as root it reads ACS).
func lspciFacts() *probes.PCIFacts {
	path, err := exec.LookPath("lspci")
	if err != nil {
		return nil
	}
	outb, err := exec.Command(path, "-vvv").Output()
	if err != nil {
		return nil
	}
	rep, err := lspci.Parse(bytes.NewReader(outb))
	if err != nil {
		return nil
	}
	return rep.Facts()
}

func writeDoctorOutputs(dir string, r *doctor.Report) error {
	var html, js, txt bytes.Buffer
	if err := report.Page(&html, r); err != nil {
		return err
	}
	if err := r.WriteJSON(&js); err != nil {
		return err
	}
	if err := r.WriteText(&txt); err != nil {
		return err
	}
	for name, b := range map[string][]byte{"report.html": html.Bytes(), "report.json": js.Bytes(), "report.txt": txt.Bytes()} {
		if err := atomicfile.Write(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	// The evidence the probes gathered, so the run can be read again
	// (lab/doctor's recorded machines are such directories).
	if ev := r.Evidence; ev != nil {
		for name, v := range map[string]any{"topology.json": ev.Topology, "pci.json": ev.PCI} {
			if reflect.ValueOf(v).IsNil() {
				continue
			}
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return err
			}
			if err := atomicfile.Write(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// doctorLaunch prints (or, with --run, runs) the commands that take the
// doctor across nodes through the user's launcher, and the follow-up that
// reads what they leave into one report.
func doctorLaunch(fs *flag.FlagSet, f doctorFlags, stdout, stderr io.Writer) int {
	exe, _ := os.Executable()
	nodes := *f.numNodes
	if *f.nodes != "" {
		n, err := strconv.Atoi(*f.nodes)
		if err != nil || n < 1 {
			return fail(fs, stderr, exitBadInput, "--nodes %q: with --launcher, the number of nodes", *f.nodes)
		}
		if nodes != 0 && nodes != n {
			return fail(fs, stderr, exitBadInput, "--nodes %d and --num-nodes %d disagree", n, nodes)
		}
		nodes = n
	}
	perNode := *f.perNode
	if *f.gpusPerNode > 0 {
		perNode = *f.gpusPerNode
	}
	var hosts []string
	switch {
	case *f.hosts != "":
		for _, h := range strings.Split(*f.hosts, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hosts = append(hosts, h)
			}
		}
	case *f.hostfile != "":
		data, err := os.ReadFile(*f.hostfile)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
		hosts = doctor.ReadHostfile(string(data))
	}
	if nodes == 0 && len(hosts) == 0 {
		nodes = 2
	}
	l := doctor.Launch{Launcher: *f.launcher, Hostfile: *f.hostfile, Hosts: hosts, Nodes: nodes, PerNode: perNode,
		Binary: exe, Out: *f.out, Master: *f.master}
	plan, err := l.Plan()
	if err != nil {
		return fail(fs, stderr, exitBadInput, "%v", err)
	}
	if *f.pairwise {
		pp, err := l.PairwisePlan(hosts)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
		plan.Commands = append(plan.Commands, pp.Commands...)
		plan.Notes = append(plan.Notes, pp.Notes...)
		plan.FollowUp = append(plan.FollowUp, "--pairs", filepath.Join(*f.out, "pairs"))
	}
	if *f.jsonOut {
		plan.FollowUp = append(plan.FollowUp, "--json")
	}
	// With --run the plan goes to stderr beside the commands' own output,
	// and stdout carries the one report the follow-up writes.
	planOut := stdout
	if *f.run {
		planOut = stderr
	}
	for _, n := range plan.Notes {
		fmt.Fprintln(planOut, "# "+n)
	}
	for _, c := range plan.Commands {
		fmt.Fprintln(planOut, doctor.ShellLine(c))
	}
	fmt.Fprintln(planOut, doctor.ShellLine(plan.FollowUp))
	if !*f.run {
		return 0
	}
	for _, c := range plan.Commands {
		fmt.Fprintf(stderr, "commlab doctor: running %s\n", doctor.ShellLine(c))
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Run(); err != nil {
			// The doctor's own exit status 1 or 2 on a node is a finding, not a failure to run.
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() > 2 {
				return fail(fs, stderr, exitFailed, "%s: %v", c[0], err)
			}
		}
	}
	fmt.Fprintf(stderr, "commlab doctor: reading everything: %s\n", doctor.ShellLine(plan.FollowUp))
	return runDoctor(plan.FollowUp[2:], stdout, stderr)
}
