package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/parse/lspci"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/nvml"
	"github.com/commlab/commlab/probes/sysfs"
)

// This file holds the doctor's live evidence: what it reads of the machine
// it runs on (topology, PCI facts, CPU affinity, environment, PyTorch) and
// the measurements it takes there, each in a child commlab process so that
// a crash or hang in CUDA or NCCL cannot take the report with it.

// Gather says how GatherLive probes: Exe is the commlab binary the
// measurements run in (probe bandwidth, probe nccl, probe nccl-tests); Out
// keeps their runs and logs (empty: a temporary folder); Quick asks for
// short sweeps; Progress, when set, hears each step.
type Gather struct {
	Exe      string
	Out      string
	Quick    bool
	Progress func(done, total int, what string)
}

// GatherLive probes this machine into ev: topology, PCI facts, CPU
// affinity and environment always, each only where ev has none from a
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
	bwArgs := []string{"probe", "bandwidth", "-b", "64M", "-e", "256M", "-f", "4"}
	ncArgs := []string{"probe", "nccl", "-b", "8", "-e", "1G", "-f", "4", "--debug-subsys", "INIT,GRAPH,ENV,TUNING,NET"}
	if !g.Quick {
		bwArgs = []string{"probe", "bandwidth"}
		ncArgs = []string{"probe", "nccl", "-b", "8", "-e", "8G", "-f", "2", "--debug-subsys", "INIT,GRAPH,ENV,TUNING,NET"}
	}
	progress(2, steps, "copy bandwidth")
	if run := g.measure(ev, "bandwidth", bwArgs, filepath.Join(dir, "bandwidth.json")); run != nil {
		ev.Bandwidth = run
	}
	progress(3, steps, "NCCL sweep")
	if run := g.measure(ev, "nccl sweep", ncArgs, filepath.Join(dir, "nccl.json")); run != nil {
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
		ntArgs := []string{"probe", "nccl-tests", "--", "-b", "8", "-e", "1G", "-f", "2", "-g", strconv.Itoa(len(ev.Topology.GPUs))}
		if run := g.measure(ev, "nccl-tests", ntArgs, filepath.Join(dir, "nccl-tests.json")); run != nil {
			ev.NCCLTests = run
		}
	}
	progress(steps, steps, "done")
	return nil
}

// measure runs one child measurement and names it among ev's inputs,
// with its provenance or why it failed; the run is nil when it failed.
func (g Gather) measure(ev *Evidence, what string, args []string, path string) *probes.Run {
	source := "probed: commlab " + strings.Join(args, " ")
	run, err := childRun(g.Exe, args, path)
	if err != nil {
		ev.AddInput(what, source, "failed: "+err.Error())
		return nil
	}
	ev.AddInput(what, source, RunProvenance(run))
	return run
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
