package published

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

func TestFakeMachines(t *testing.T) {
	tests := []struct {
		name     string
		gpus     int
		nics     int
		nvlinkTo string // where GPU0's NVLink goes, "" for none
		a, b     string
		path     string
		pcieGBps float64
		switches int
	}{
		{"hgx-h200", 8, 8, probes.NVSwitchID, "GPU0", "NIC0", "PIX", 63.0, 8},
		{"pcie-8gpu", 8, 0, "", "GPU0", "GPU1", "PIX", 0, 4},
		{"pcie-box", 8, 0, "", "GPU0", "GPU1", "PIX", 0, 4}, // the old name
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ByName(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			topo, err := m.Topology(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(topo.GPUs) != tc.gpus || len(topo.NICs) != tc.nics || len(topo.Switches) != tc.switches {
				t.Errorf("gpus %d nics %d switches %d", len(topo.GPUs), len(topo.NICs), len(topo.Switches))
			}
			if p, _ := topo.PathBetween(tc.a, tc.b); p.String() != tc.path {
				t.Errorf("path %s-%s = %v, want %s", tc.a, tc.b, p, tc.path)
			}
			if got := topo.GPUs[0].PCIe.GBps(); fmt.Sprintf("%.0f", got) != fmt.Sprintf("%.0f", tc.pcieGBps) {
				t.Errorf("GPU0 PCIe %.1f GB/s, want about %.0f", got, tc.pcieGBps)
			}
			var nv string
			for _, l := range topo.Links {
				if l.Kind == probes.LinkNVLink && l.A == "GPU0" {
					nv = l.B
				}
			}
			if nv != tc.nvlinkTo {
				t.Errorf("GPU0 NVLink to %q, want %q", nv, tc.nvlinkTo)
			}
		})
	}
	if _, err := ByName("nope"); err == nil || !strings.Contains(err.Error(), "hgx-h200") {
		t.Errorf("unknown machine error %v should list the known ones", err)
	}
}

// Topology hands out copies: editing one leaves the machine unchanged.
func TestFakeTopologyIsACopy(t *testing.T) {
	m := HGXH200()
	a, _ := m.Topology(context.Background())
	a.GPUs[0].Name = "changed"
	a.Paths[0][1] = probes.Path{Level: probes.LevelSYS}
	a.GPUs[0].NVLinks[0].Active = false
	b, _ := m.Topology(context.Background())
	if b.GPUs[0].Name == "changed" || b.Paths[0][1].Level == probes.LevelSYS || !b.GPUs[0].NVLinks[0].Active {
		t.Error("a caller's edit leaked into the machine")
	}
}

func TestFakeHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PCIeBox().Topology(ctx); err == nil {
		t.Error("cancelled context: want an error")
	}
}

func TestFakeHGXNVLinkBandwidth(t *testing.T) {
	topo, _ := HGXH200().Topology(context.Background())
	for _, l := range topo.Links {
		if l.Kind == probes.LinkNVLink && (l.Count != 18 || l.GBps != 450) {
			t.Errorf("NVLink %+v, want 18 links, 450 GB/s one way", l)
		}
	}
	nics, level := topo.NearestNICs("GPU5")
	if len(nics) != 1 || nics[0] != "NIC5" || level != probes.LevelPIX {
		t.Errorf("GPU5 nearest %v at %v", nics, level)
	}
}

// The NIC NCCL would give each GPU of the fake machines, checked against
// their recorded matrices: on the HGX each GPU has a NIC on its own PCIe
// switch (PIX), so GPUi takes NICi with GPUDirect RDMA at the NDR port's
// 50 GB/s; the PCIe box has no NIC.
func TestNICPathsFake(t *testing.T) {
	type row struct {
		nic, name, path string
		gdr             bool
		ceiling         float64
	}
	hgx := make([]row, 8)
	for i := range hgx {
		hgx[i] = row{fmt.Sprintf("NIC%d", i), fmt.Sprintf("mlx5_%d", i+1), "PIX", true, 50}
	}
	tests := []struct {
		machine string
		want    []row
		text    string
	}{
		{"hgx-h200", hgx, "GPU7  NIC7 mlx5_8  PIX   50 GB/s  yes             -"},
		{"pcie-8gpu", make([]row, 8), "no NIC in the topology"},
	}
	for _, tc := range tests {
		t.Run(tc.machine, func(t *testing.T) {
			m, err := ByName(tc.machine)
			if err != nil {
				t.Fatal(err)
			}
			topo, err := m.Topology(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := topo.NICPaths(probes.LevelUnknown)
			if len(got) != len(tc.want) {
				t.Fatalf("%d rows, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.GPU != fmt.Sprintf("GPU%d", i) || g.NIC != w.nic || g.NICName != w.name || g.GDR != w.gdr || g.CeilingGBps != w.ceiling || g.PXN != "" {
					t.Errorf("row %d = %+v, want %+v", i, g, w)
				}
				if w.nic != "" && g.Path.String() != w.path {
					t.Errorf("%s path %s, want %s", g.GPU, g.Path, w.path)
				}
			}
			if !strings.Contains(got.String(), tc.text) {
				t.Errorf("String lacks %q:\n%s", tc.text, got)
			}
		})
	}
}

// A recorded machine whose only NIC sits across the CPU sockets from every
// GPU (8x P40, the old SOC level): every GPU uses it through host memory,
// and no GPU is closer to relay through.
func TestNICPathsSYSOnlyNIC(t *testing.T) {
	text, err := os.ReadFile("../../parse/nvidiasmi/testdata/topo/p40-8gpu-soc-mlx5.txt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromTopoM("p40", string(text))
	if err != nil {
		t.Fatal(err)
	}
	topo, _ := m.Topology(context.Background())
	got := topo.NICPaths(probes.LevelUnknown)
	if len(got) != 8 {
		t.Fatalf("%d rows", len(got))
	}
	for _, p := range got {
		if p.NIC != "NIC0" || p.NICName != "mlx5_0" || p.Path.Level != probes.LevelSYS || p.GDR || p.PXN != "" || !strings.Contains(p.Why, "host memory") {
			t.Errorf("%+v", p)
		}
	}
}
