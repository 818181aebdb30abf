package doctor

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/recorded"
)

//go:embed recorded
var recordedFS embed.FS

// RecordedMachines are the machines Recorded knows.
func RecordedMachines() []string {
	entries, _ := fs.ReadDir(recordedFS, "recorded")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// recordedRuns names the probes/recorded runs of each machine: its copy
// bandwidth, its NCCL sweep, and the run whose log carries NCCL's
// per-size picks (TUNING).
var recordedRuns = map[string][3]string{
	"h200x2": {"bandwidth-h200x2", "nccl-h200x2-proto-auto", "nccl-h200x2-tuning"},
}

// Recorded returns the evidence of one of the lab's recorded machines
// (RecordedMachines), so the doctor's report can be read without a GPU:
// its topology, Flight Recorder dumps, copy-bandwidth run and NCCL sweep
// with NCCL's log, and the environment the sweep ran in.
func Recorded(name string) (*Evidence, error) {
	dir := "recorded/" + name
	topoFile := dir + "/probe-topo.json" // commlab probe topo --json
	topoJSON, err := recordedFS.ReadFile(topoFile)
	if err != nil {
		topoFile = dir + "/topology.json" // written by commlab doctor --out
		topoJSON, err = recordedFS.ReadFile(topoFile)
	}
	if err != nil {
		return nil, fmt.Errorf("doctor: no recorded machine %q (known: %s): %w", name, strings.Join(RecordedMachines(), ", "), err)
	}
	var topo probes.Topology
	if err := json.Unmarshal(topoJSON, &topo); err != nil {
		return nil, fmt.Errorf("doctor: recorded %s topology: %w", name, err)
	}
	ev := &Evidence{Host: topo.Host, Topology: &topo}
	ev.AddInput("topology", topoFile, topo.Source)
	names, _ := fs.Glob(recordedFS, dir+"/flight-recorder-rank*.json")
	for _, n := range names {
		b, err := recordedFS.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("doctor: %w", err)
		}
		d, err := flightrec.ParseDump(bytes.NewReader(b), n)
		if err != nil {
			return nil, fmt.Errorf("doctor: recorded %s: %w", n, err)
		}
		ev.FlightRecorder = append(ev.FlightRecorder, d)
	}
	if len(names) > 0 {
		ev.AddInput("flight recorder", fmt.Sprintf("%d dumps (%s)", len(names), dir), "torch_capture.py, PyTorch 2.11")
	}
	if b, err := recordedFS.ReadFile(dir + "/pci.json"); err == nil {
		var pci probes.PCIFacts
		if err := json.Unmarshal(b, &pci); err != nil {
			return nil, fmt.Errorf("doctor: recorded %s pci facts: %w", name, err)
		}
		ev.PCI = &pci
		ev.AddInput("pci", dir+"/pci.json", pci.Source)
	}
	if err := localRuns(ev, dir); err != nil {
		return nil, err
	}
	runs := recordedRuns[name]
	if runs[0] != "" {
		if ev.Bandwidth, err = recorded.Load(runs[0]); err != nil {
			return nil, fmt.Errorf("doctor: %w", err)
		}
		ev.AddInput("bandwidth", "recorded "+runs[0], RunProvenance(ev.Bandwidth))
		ev.Date = ev.Bandwidth.Date
	}
	if runs[1] != "" {
		if ev.NCCL, err = recorded.Load(runs[1]); err != nil {
			return nil, fmt.Errorf("doctor: %w", err)
		}
		ev.AddInput("nccl sweep", "recorded "+runs[1], RunProvenance(ev.NCCL))
		ev.Env, ev.EnvSource = ev.NCCL.Env, "the sweep's environment ("+runs[1]+")"
	}
	if runs[2] != "" {
		run, err := recorded.Load(runs[2])
		if err != nil {
			return nil, fmt.Errorf("doctor: %w", err)
		}
		if ev.NCCLLog, err = nccllog.ParseBytes([]byte(run.Logs["nccl-debug"])); err != nil {
			return nil, fmt.Errorf("doctor: recorded %s log: %w", runs[2], err)
		}
		ev.NCCLLogName = runs[2] + " (nccl-debug)"
		ev.AddInput("nccl log", "recorded "+runs[2]+", NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING", "")
	}
	return ev, nil
}

// localRuns loads the runs a doctor run kept beside its report
// (bandwidth.json, nccl.json with its NCCL log) when the recorded machine
// has them, and the date of the report.
func localRuns(ev *Evidence, dir string) error {
	load := func(file string) (*probes.Run, error) {
		b, err := recordedFS.ReadFile(dir + "/" + file)
		if err != nil {
			return nil, nil
		}
		run, err := probes.ReadRun(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("doctor: recorded %s/%s: %w", dir, file, err)
		}
		return run, nil
	}
	bw, err := load("bandwidth.json")
	if err != nil {
		return err
	}
	if bw != nil {
		ev.Bandwidth, ev.Date = bw, bw.Date
		ev.AddInput("bandwidth", dir+"/bandwidth.json", RunProvenance(bw))
	}
	nc, err := load("nccl.json")
	if err != nil {
		return err
	}
	if nc != nil {
		ev.NCCL = nc
		ev.AddInput("nccl sweep", dir+"/nccl.json", RunProvenance(nc))
		if lg := nc.Logs["nccl-debug"]; lg != "" {
			if ev.NCCLLog, err = nccllog.ParseBytes([]byte(lg)); err != nil {
				return fmt.Errorf("doctor: recorded %s nccl log: %w", dir, err)
			}
			ev.NCCLLogName = dir + "/nccl.json (nccl-debug)"
			ev.AddInput("nccl log", ev.NCCLLogName, fmt.Sprintf("%d NCCL lines", ev.NCCLLog.NCCLLines))
		}
		if ev.Env == nil {
			ev.Env, ev.EnvSource = nc.Env, "the sweep's environment ("+dir+"/nccl.json)"
		}
	}
	if b, err := recordedFS.ReadFile(dir + "/torch-version.txt"); err == nil {
		ev.TorchVersion = strings.TrimSpace(string(b))
		ev.AddInput("pytorch", dir+"/torch-version.txt", "PyTorch "+ev.TorchVersion)
	}
	if b, err := recordedFS.ReadFile(dir + "/torch-capture-stdout.txt"); err == nil {
		if l, why := launcherFromLog(string(b)); l != "" {
			ev.Launcher, ev.LauncherWhy = l, why+" in "+dir+"/torch-capture-stdout.txt"
			ev.AddInput("launcher", dir+"/torch-capture-stdout.txt", "the job's output: "+l)
		}
	}
	return nil
}
