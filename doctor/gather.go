package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/parse/lspci"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/child"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/nccl"
	"github.com/commlab/commlab/probes/nvml"
	"github.com/commlab/commlab/probes/sysfs"
	"github.com/commlab/commlab/units"
)

// This file holds the doctor's live evidence: what it reads of the machine
// it runs on (topology, PCI facts, CPU affinity, environment, PyTorch) and
// the measurements it takes there, each in a child commlab process so that
// a crash or hang in CUDA or NCCL cannot take the report with it.

// Gather says how GatherLive probes: Exe is the commlab binary the
// measurements run in (child.Run: copy bandwidth, an NCCL sweep, nccl-tests); Out
// keeps their runs and logs (empty: a temporary folder); Quick asks for
// short sweeps; Progress, when set, hears each step.
type Gather struct {
	Exe      string
	Out      string
	Quick    bool
	Progress func(done, total int, what string)
}

// GatherLive probes this machine into ev: topology, PCI facts, RDMA
// ports (GIDs, counters), CPU affinity and environment always, each only where ev has none from a
// file; copy bandwidth, an NCCL sweep and nccl-tests (when installed) when
// there is a GPU. A measurement that fails is named in ev's inputs; the
// error is for what stops the gathering itself.
func GatherLive(ev *Evidence, g Gather) error {
	progress := g.Progress
	if progress == nil {
		progress = func(int, int, string) {}
	}
	const steps = 5
	ctx := context.Background()
	progress(0, steps, "topology")
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
	progress(1, steps, "PCI facts")
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
	host := ev.Host
	if host == "" {
		host = NodeName()
	}
	rdmaPorts := addLiveRDMA(ev, sysfs.New(root), host)
	if len(ev.Interfaces) == 0 {
		addInterfaces(ev, LiveInterfaces)
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
		ev.Env, ev.EnvSource = CommEnv(all), "this process"
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
		progress(steps, steps, "no GPU: nothing to measure")
		return nil
	}
	dir := g.Out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "commlab-doctor-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	bw := child.Request{Probe: child.Bandwidth}
	ncs := nccl.DefaultSettings()
	ncs.DebugSubsys = "INIT,GRAPH,ENV,TUNING,NET"
	ncs.Sizes, _ = units.Sweep(8, 1<<30, 4)
	if g.Quick {
		bw.Bandwidth.Sizes, _ = units.Sweep(64<<20, 256<<20, 4)
	} else {
		ncs.Sizes, _ = units.Sweep(8, 8<<30, 2)
	}
	nc := child.Request{Probe: child.NCCL}
	if nc.NCCL, err = ncs.Config(); err != nil {
		return err
	}
	progress(2, steps, "copy bandwidth")
	if run := g.measure(ev, "bandwidth", bw, filepath.Join(dir, "bandwidth.json")); run != nil {
		ev.Bandwidth = run
	}
	progress(3, steps, "NCCL sweep")
	if run := g.measure(ev, "nccl sweep", nc, filepath.Join(dir, "nccl.json")); run != nil {
		ev.NCCL = run
		if lg := run.Logs["nccl-debug"]; lg != "" && ev.NCCLLog == nil {
			if ev.NCCLLog, err = nccllog.ParseBytes([]byte(lg)); err == nil {
				ev.NCCLLogName = "the sweep's NCCL_DEBUG=INFO log"
				ev.AddInput("nccl log", "the sweep's NCCL_DEBUG=INFO log", fmt.Sprintf("%d NCCL lines", ev.NCCLLog.NCCLLines))
			}
		}
	}
	// nccl-tests when installed: its output is what the curve doctor reads.
	if _, err := exec.LookPath("all_reduce_perf"); err == nil {
		progress(4, steps, "nccl-tests")
		nt := child.Request{Probe: child.NCCLTests, Tool: launch.Tool{Kind: "nccl-tests", Program: "all_reduce_perf",
			Args: []string{"-b", "8", "-e", "1G", "-f", "2", "-g", strconv.Itoa(len(ev.Topology.GPUs))}}}
		if run := g.measure(ev, "nccl-tests", nt, filepath.Join(dir, "nccl-tests.json")); run != nil {
			launch.ParseInto(func(out string, r *probes.Run) (any, error) { return AddNCCLTestsOutput(out, r) }, run.Logs["output"], run)
			run.Save(filepath.Join(dir, "nccl-tests.json"))
			ev.NCCLTests = run
		}
	}
	rereadLiveCounters(ev, sysfs.New(root), host, rdmaPorts)
	progress(steps, steps, "done")
	return nil
}

// measure runs one child measurement (child.Run, its output in path's
// .log beside the run it saves at path) and names it among ev's inputs,
// with its provenance or why it failed; the run is nil when it failed.
func (g Gather) measure(ev *Evidence, what string, req child.Request, path string) *probes.Run {
	source := "probed: " + strings.Join(req.Command(), " ")
	run, err := childRun(g.Exe, req, path)
	if err != nil {
		ev.AddInput(what, source, "failed: "+err.Error())
		return nil
	}
	ev.AddInput(what, source, RunProvenance(run))
	return run
}

// childRun runs req in a child of exe and saves its run at path; the
// child's output goes to path's .log beside it.
func childRun(exe string, req child.Request, path string) (*probes.Run, error) {
	logf, err := os.Create(strings.TrimSuffix(path, ".json") + ".log")
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	run, err := child.Run(context.Background(), req, child.Options{Exe: exe, Log: logf})
	if run == nil {
		return nil, fmt.Errorf("%w (see %s)", err, logf.Name())
	}
	if err != nil && run.Error == "" {
		run.Error = err.Error()
	}
	return run, run.Save(path)
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

// NodeName is this node's name for a per-node folder: what the launcher
// says ($SLURMD_NODENAME under srun), or $COMMLAB_NODE_NAME where
// hostnames repeat (containers), else the hostname.
func NodeName() string {
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
