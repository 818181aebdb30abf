package topograph

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/ncclxml"
	"github.com/commlab/commlab/probes"
)

func ncclSystem(t *testing.T, file string) *ncclxml.System {
	t.Helper()
	b, err := os.ReadFile("../../parse/ncclxml/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := ncclxml.ParseTopology(bytes.NewReader(b))
	if err != nil && !strings.Contains(file, "excerpt") {
		t.Fatal(err)
	}
	return sys
}

func TestFromNCCL(t *testing.T) {
	for _, tc := range []struct {
		file                   string
		gpus, nics, numa       int
		nvlinks, nvswitchLinks int
	}{
		{"h200_topo_dump.xml", 1, 1, 1, 0, 0},
		{"azure_ndv5_topo_file.xml", 8, 8, 2, 0, 0},
		{"aws_p4d24xl_topo_file.xml", 8, 4, 2, 0, 0},
		{"nccl507_v100_dump_excerpt.xml", 2, 0, 1, 0, 2},
	} {
		topo := FromNCCL(ncclSystem(t, tc.file))
		nv, nvs := 0, 0
		for _, l := range topo.Links {
			if l.Kind == probes.LinkNVLink {
				if l.B == probes.NVSwitchID {
					nvs++
				} else {
					nv++
				}
			}
		}
		if len(topo.GPUs) != tc.gpus || len(topo.NICs) != tc.nics || len(topo.NUMANodes) != tc.numa || nv != tc.nvlinks || nvs != tc.nvswitchLinks {
			t.Errorf("%s: %d GPUs %d NICs %d NUMA %d NVLink pairs %d NVSwitch links, want %d %d %d %d %d", tc.file,
				len(topo.GPUs), len(topo.NICs), len(topo.NUMANodes), nv, nvs, tc.gpus, tc.nics, tc.numa, tc.nvlinks, tc.nvswitchLinks)
		}
		svg, err := SVG(context.Background(), topo)
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s: drawing failed: %v", tc.file, err)
		}
	}
}
