package fake

import (
	"context"
	"fmt"
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
