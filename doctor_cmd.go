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
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/lab/atomicfile"
	"github.com/commlab/commlab/lab/doctor"
	"github.com/commlab/commlab/lab/doctor/report"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/nvml"
	"github.com/commlab/commlab/probes/parse/flightrec"
	"github.com/commlab/commlab/probes/parse/lspci"
	"github.com/commlab/commlab/probes/parse/nccllog"
	"github.com/commlab/commlab/probes/parse/nccltests"
	"github.com/commlab/commlab/probes/parse/nvidiasmi"
	"github.com/commlab/commlab/probes/sysfs"
	"github.com/commlab/commlab/units"
)

// curveOnly says whether the arguments ask for the curve doctor alone
// (--nccl-tests FILE), which has its own flags (commlab doctor --nccl-tests -h).
func curveOnly(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "nccl-tests" {
			return true
		}
	}
	return false
}

type doctorFlags struct {
	out, nodeDir, topo, lspciFile, ncclLog, ncclRun, bandwidth, fr, trace, torch, env, baseline, recorded, rankRuns, nodes, pairs, hosts *string
	pairwise                                                                                                                             *bool
	jsonOut, live, quick                                                                                                                 *bool
	launcher, hostfile, master                                                                                                           *string
	numNodes, perNode                                                                                                                    *int
	run                                                                                                                                  *bool
}

func addDoctorFlags(fs *flag.FlagSet) doctorFlags {
	return doctorFlags{
		out:       fs.String("out", "", "write report.html, report.json, report.txt and the evidence into `DIR`"),
		nodeDir:   fs.String("node-dir", "", "like --out, into DIR/<hostname> (what each node runs under a launcher)"),
		jsonOut:   fs.Bool("json", false, "print the report as JSON (for CI) instead of text"),
		topo:      fs.String("topo", "", "nvidia-smi topo -m output, or commlab probe topo --json"),
		lspciFile: fs.String("lspci", "", "lspci -vvv output (as root: ACS, bridges, links)"),
		ncclLog:   fs.String("nccl-log", "", "NCCL_DEBUG=INFO log; a glob reads several files as one (one per rank)"),
		ncclRun:   fs.String("nccl-run", "", "a saved commlab probe nccl run (RUN.json, its log included)"),
		bandwidth: fs.String("bandwidth", "", "a saved commlab probe bandwidth run"),
		fr:        fs.String("fr", "", "Flight Recorder dumps: a directory, or a glob"),
		trace:     fs.String("trace", "", "a torch.profiler Chrome trace (overlap)"),
		torch:     fs.String("torch", "", "the job's PyTorch version (e.g. 2.11.0): the environment lint then knows which TORCH_* names it reads"),
		env:       fs.String("env", "", "the job's environment (`env` output or NAME=VALUE lines)"),
		baseline:  fs.String("baseline", "", "compare with a saved healthy report.json"),
		recorded:  fs.String("recorded", "", "read one of the lab's recorded machines: "+strings.Join(doctor.RecordedMachines(), ", ")),
		rankRuns:  fs.String("rank-runs", "", "directory of per-node commlab probe nccl runs (*.json), to find a slow node"),
		nodes:     fs.String("nodes", "", "directory of per-node doctor reports (DIR/<host>/report.json), to find a slow node"),
		live:      fs.Bool("live", false, "probe this machine even when files are given"),
		quick:     fs.Bool("quick", true, "short live sweeps (bandwidth 64M-256M, NCCL 8B-1G by 4x)"),
		launcher:  fs.String("launcher", "", "across nodes: print the commands for mpirun, srun or torchrun (--run runs them)"),
		hostfile:  fs.String("hostfile", "", "mpirun's hostfile"),
		master:    fs.String("master", "", "torchrun's rendezvous host:port"),
		numNodes:  fs.Int("num-nodes", 2, "nodes, with --launcher"),
		perNode:   fs.Int("per-node", 8, "GPUs per node, with --launcher"),
		run:       fs.Bool("run", false, "with --launcher: run the commands instead of printing them"),
		pairwise:  fs.Bool("pairwise", false, "with --launcher mpirun or srun: also one two-node all_reduce per pair of hosts (finds a slow node)"),
		hosts:     fs.String("hosts", "", "with --pairwise under srun: the hosts, comma-separated (mpirun reads --hostfile)"),
		pairs:     fs.String("pairs", "", "directory of pairwise nccl-tests outputs (<a>+<b>.txt), to find a slow node"),
	}
}

func (f doctorFlags) anyInput() bool {
	for _, s := range []*string{f.topo, f.lspciFile, f.ncclLog, f.ncclRun, f.bandwidth, f.fr, f.trace, f.env, f.recorded, f.rankRuns, f.nodes, f.pairs} {
		if *s != "" {
			return true
		}
	}
	return false
}

func runDoctor(args []string, stdout, stderr io.Writer) int {
	if curveOnly(args) {
		return runDoctorCurve(args, stdout, stderr)
	}
	fs := newFlags("commlab doctor", stderr,
		"usage: commlab doctor [--out DIR] [--json] [--topo FILE --lspci FILE --nccl-log LOG --fr DIR --trace TRACE.json --env ENVFILE --baseline FILE]",
		"       commlab doctor --nccl-tests FILE [--json] [--preset P ...]   (one busbw curve: see commlab doctor --nccl-tests -h)",
		"       commlab doctor --launcher mpirun|srun|torchrun --num-nodes N --per-node G --out SHARED_DIR [--hostfile F | --master H:P] [--run]",
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
		host, _ := os.Hostname()
		out = filepath.Join(*f.nodeDir, host)
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
	}
	ev, err := gatherFiles(f)
	if err != nil {
		return fail(fs, stderr, statusOf(err), "%v", err)
	}
	if *f.live || !f.anyInput() {
		if err := gatherLive(ev, out, *f.quick, stderr); err != nil {
			return fail(fs, stderr, exitFailed, "%v", err)
		}
	}
	ev.Collective = append(ev.Collective, doctor.CheckCurves(ev)...)
	r := doctor.Diagnose(ev)
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

// gatherFiles reads the evidence a user brings.
func gatherFiles(f doctorFlags) (*doctor.Evidence, error) {
	ev := &doctor.Evidence{}
	if *f.recorded != "" {
		rec, err := doctor.Recorded(*f.recorded)
		if err != nil {
			return nil, err
		}
		ev = rec
	}
	if p := *f.topo; p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var t *probes.Topology
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			t = &probes.Topology{}
			if err := json.Unmarshal(data, t); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
		} else {
			m, err := nvidiasmi.ParseTopoMatrixString(string(data))
			if m == nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			t = m.Topology()
		}
		ev.Topology = t
		ev.AddInput("topology", p, t.Source)
	}
	if p := *f.lspciFile; p != "" {
		fh, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		rep, err := lspci.Parse(fh)
		fh.Close()
		if err != nil {
			return nil, err
		}
		ev.PCI = rep.Facts()
		ev.AddInput("pci", p, fmt.Sprintf("%d functions", len(rep.Devices)))
	}
	if p := *f.bandwidth; p != "" {
		run, err := probes.LoadRun(p)
		if err != nil {
			return nil, err
		}
		ev.Bandwidth = run
		ev.AddInput("bandwidth", p, run.Provenance())
	}
	if p := *f.ncclRun; p != "" {
		run, err := probes.LoadRun(p)
		if err != nil {
			return nil, err
		}
		ev.NCCL = run
		ev.AddInput("nccl sweep", p, run.Provenance())
		if lg := run.Logs["nccl-debug"]; lg != "" && *f.ncclLog == "" {
			if ev.NCCLLog, err = nccllog.ParseBytes([]byte(lg)); err != nil {
				return nil, fmt.Errorf("%s: nccl-debug log: %w", p, err)
			}
			ev.NCCLLogName = p + " (nccl-debug)"
		}
	}
	if p := *f.ncclLog; p != "" {
		files, err := globOrFile(p)
		if err != nil {
			return nil, err
		}
		var all []byte
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			all = append(append(all, b...), '\n')
		}
		lg, err := nccllog.ParseBytes(all)
		if lg == nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		ev.NCCLLog, ev.NCCLLogName = lg, p
		ev.AddInput("nccl log", p, fmt.Sprintf("%d file(s), %d NCCL lines", len(files), lg.NCCLLines))
	}
	if p := *f.fr; p != "" {
		files, err := globOrFile(p)
		if err != nil {
			return nil, err
		}
		dumps, err := flightrec.LoadDumps(files)
		if err != nil {
			return nil, err
		}
		ev.FlightRecorder = dumps
		ev.AddInput("flight recorder", p, fmt.Sprintf("%d dumps", len(dumps)))
	}
	if p := *f.env; p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		ev.Env, ev.EnvSource = doctor.EnvFromText(string(data)), p
		ev.AddInput("environment", p, fmt.Sprintf("%d variables", len(ev.Env)))
	}
	if *f.torch != "" {
		ev.TorchVersion = *f.torch
	}
	if p := *f.trace; p != "" {
		note := "1 overlap verdict"
		if f, err := os.Open(p); err != nil {
			note = err.Error()
		} else {
			v, err := doctor.TraceOverlap(f, filepath.Base(p))
			f.Close()
			if err != nil {
				note = err.Error()
			} else {
				ev.Framework = append(ev.Framework, v)
			}
		}
		ev.AddInput("torch trace", p, note)
	}
	if p := *f.rankRuns; p != "" {
		files, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil || len(files) == 0 {
			return nil, fmt.Errorf("%s: no *.json runs: %w", p, os.ErrNotExist)
		}
		sort.Strings(files)
		var runs []*probes.Run
		for _, name := range files {
			run, err := probes.LoadRun(name)
			if err != nil {
				return nil, err
			}
			runs = append(runs, run)
		}
		ev.RankTimes = doctor.RankTimesFromRuns(runs, "all_reduce")
		ev.AddInput("per-node runs", p, fmt.Sprintf("%d runs", len(runs)))
	}
	if p := *f.nodes; p != "" {
		files, _ := filepath.Glob(filepath.Join(p, "*", "report.json"))
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no */report.json: %w", p, os.ErrNotExist)
		}
		sort.Strings(files)
		var reps []*doctor.Report
		for _, name := range files {
			fh, err := os.Open(name)
			if err != nil {
				return nil, err
			}
			rep, err := doctor.ReadReport(fh)
			fh.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			reps = append(reps, rep)
		}
		ev.RankTimes = append(ev.RankTimes, doctor.RankTimesFromReports(reps)...)
		ev.AddInput("per-node reports", p, fmt.Sprintf("%d nodes", len(reps)))
	}
	if p := *f.pairs; p != "" {
		files, _ := filepath.Glob(filepath.Join(p, "*+*.txt"))
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no <a>+<b>.txt pairwise outputs: %w", p, os.ErrNotExist)
		}
		times := map[string]float64{}
		what := ""
		for _, name := range files {
			fh, err := os.Open(name)
			if err != nil {
				return nil, err
			}
			res, err := nccltests.Parse(fh)
			fh.Close()
			if res == nil || len(res.Runs) == 0 || len(res.Runs[0].Rows) == 0 {
				continue // a pair that failed to run leaves no rows: its log says why
			}
			rows := res.Runs[0].Rows
			last := rows[len(rows)-1]
			times[strings.TrimSuffix(filepath.Base(name), ".txt")] = last.OutOfPlace.TimeUs
			what = fmt.Sprintf("%s %s between two nodes", res.Runs[0].Collective, units.FormatSize(last.SizeBytes))
		}
		ev.RankTimes = append(ev.RankTimes, doctor.NodeTimesFromPairs(times, what)...)
		ev.AddInput("pairwise runs", p, fmt.Sprintf("%d pairs", len(times)))
	}
	return ev, nil
}

func globOrFile(p string) ([]string, error) {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range entries {
			if e.Type().IsRegular() {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
		return out, nil
	}
	files, err := filepath.Glob(p)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: %w", p, os.ErrNotExist)
	}
	sort.Strings(files)
	return files, nil
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
		ev.AddInput("bandwidth", "probed: commlab "+strings.Join(bwArgs, " "), run.Provenance())
	} else {
		ev.AddInput("bandwidth", "probed: commlab "+strings.Join(bwArgs, " "), "failed: "+err.Error())
	}
	pb.update(3, steps, "NCCL sweep")
	if run, err := childRun(exe, ncArgs, filepath.Join(dir, "nccl.json")); err == nil {
		ev.NCCL = run
		ev.AddInput("nccl sweep", "probed: commlab "+strings.Join(ncArgs, " "), run.Provenance())
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
			ev.AddInput("nccl-tests", "probed: commlab "+strings.Join(ntArgs, " "), run.Provenance())
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
// doctor across nodes through the user's launcher.
func doctorLaunch(fs *flag.FlagSet, f doctorFlags, stdout, stderr io.Writer) int {
	exe, _ := os.Executable()
	l := doctor.Launch{Launcher: *f.launcher, Hostfile: *f.hostfile, Nodes: *f.numNodes, PerNode: *f.perNode,
		Binary: exe, Out: *f.out, Master: *f.master}
	plan, err := l.Plan()
	if err != nil {
		return fail(fs, stderr, exitBadInput, "%v", err)
	}
	if *f.pairwise {
		var hosts []string
		switch {
		case *f.hosts != "":
			hosts = strings.Split(*f.hosts, ",")
		case *f.hostfile != "":
			data, err := os.ReadFile(*f.hostfile)
			if err != nil {
				return fail(fs, stderr, exitBadInput, "%v", err)
			}
			hosts = doctor.ReadHostfile(string(data))
		}
		pp, err := l.PairwisePlan(hosts)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
		plan.Commands = append(plan.Commands, pp.Commands...)
		plan.Notes = append(plan.Notes, pp.Notes...)
	}
	for _, n := range plan.Notes {
		fmt.Fprintln(stdout, "# "+n)
	}
	for _, c := range plan.Commands {
		fmt.Fprintln(stdout, doctor.ShellLine(c))
	}
	if !*f.run {
		return 0
	}
	for _, c := range plan.Commands {
		fmt.Fprintf(stderr, "commlab doctor: running %s\n", doctor.ShellLine(c))
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Run(); err != nil {
			// The doctor's own exit status 1 or 2 on a node is a finding, not a failure to run.
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() > 2 {
				return fail(fs, stderr, exitFailed, "%s: %v", c[0], err)
			}
		}
	}
	return 0
}
