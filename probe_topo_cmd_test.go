package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

// topoStubSource answers with a fixed topology and error, as a machine without
// a driver does.
type topoStubSource struct {
	topo *probes.Topology
	err  error
}

func (s topoStubSource) Topology(context.Context) (*probes.Topology, error) { return s.topo, s.err }

func topoRunCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestProbeTopoCLIFake(t *testing.T) {
	code, out, errs := topoRunCLI("probe", "topo", "--fake", "hgx-h200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"GPU0\t X \tNV18", "nearest NIC NIC0 (PIX)", "NIC7 mlx5_8", "PCIe Gen5 x16 = 63.0 GB/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = topoRunCLI("probe", "topo", "--json", "--fake", "pcie-box")
	var topo probes.Topology
	if code != 0 || json.Unmarshal([]byte(out), &topo) != nil || len(topo.GPUs) != 8 {
		t.Errorf("--json: exit %d, %d GPUs", code, len(topo.GPUs))
	}
	code, out, _ = topoRunCLI("probe", "topo", "--dot", "--fake", "pcie-box")
	if code != 0 || !strings.HasPrefix(out, "graph topology {") {
		t.Errorf("--dot: exit %d:\n%.200s", code, out)
	}
}

func TestProbeTopoCLISVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "topo.svg")
	code, _, errs := topoRunCLI("probe", "topo", "--fake", "pcie-box", "--svg", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("SVG file: %v %.100s", err, data)
	}
}

func TestProbeTopoCLIBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{"probe", "topo", "--bogus"},
		{"probe", "topo", "extra"},
		{"probe", "topo", "--fake", "nope"},
	} {
		if code, _, _ := topoRunCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// Without a driver the command says so plainly and shows what sysfs gave.
func TestProbeTopoCLINoGPU(t *testing.T) {
	saved := topoSource
	defer func() { topoSource = saved }()
	unavailable := fmt.Errorf("nvml: %w: libnvidia-ml.so.1 not found", probes.ErrUnavailable)

	partial := &probes.Topology{Source: "nvml+sysfs", NUMANodes: []probes.NUMANode{{ID: 0, CPUs: "0-7"}}}
	topoSource = func(string) (probes.Source, error) { return topoStubSource{partial, unavailable}, nil }
	code, out, errs := topoRunCLI("probe", "topo")
	if code != 0 || !strings.Contains(errs, "no NVIDIA driver/GPU on this machine: nvml:") || !strings.Contains(out, "NUMA nodes: 1") {
		t.Errorf("partial: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	topoSource = func(string) (probes.Source, error) { return topoStubSource{nil, unavailable}, nil }
	if code, _, errs := topoRunCLI("probe", "topo"); code != 1 || !strings.Contains(errs, "nothing to show") {
		t.Errorf("nothing: exit %d, %s", code, errs)
	}

	topoSource = func(string) (probes.Source, error) { return topoStubSource{nil, fmt.Errorf("boom")}, nil }
	if code, _, errs := topoRunCLI("probe", "topo"); code != 1 || !strings.Contains(errs, "boom") {
		t.Errorf("other error: exit %d, %s", code, errs)
	}
}

// The live probe never fails on this machine, GPU or not.
func TestProbeTopoCLILive(t *testing.T) {
	code, out, errs := topoRunCLI("probe", "topo")
	if code != 0 && !strings.Contains(errs, "nothing to show") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
