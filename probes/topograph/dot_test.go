package topograph

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

// dotSample is three GPUs on two NUMA nodes, two of them bonded by NVLink,
// and one NIC; it has paths but no links, so DOT infers the graph.
func dotSample() *probes.Topology {
	t := &probes.Topology{Source: "test"}
	t.GPUs = []probes.GPU{
		{Index: 0, Name: "G", NUMANode: 0, MemoryNUMANode: -1, CPUAffinity: "0-7", PCIe: probes.PCIeLink{GenCurrent: 4, WidthCurrent: 16}},
		{Index: 1, Name: "G", NUMANode: 0, MemoryNUMANode: -1, CPUAffinity: "0-7"},
		{Index: 2, Name: "G", NUMANode: 1, MemoryNUMANode: -1, CPUAffinity: "8-15"},
	}
	t.NICs = []probes.NIC{{Index: 0, Name: "mlx5_0", NUMANode: -1}}
	t.SetPath("GPU0", "GPU1", probes.Path{Level: probes.LevelNVLink, NVLinks: 4})
	t.SetPath("GPU0", "GPU2", probes.Path{Level: probes.LevelSYS})
	t.SetPath("GPU1", "GPU2", probes.Path{Level: probes.LevelSYS})
	t.SetPath("GPU0", "NIC0", probes.Path{Level: probes.LevelPIX})
	t.SetPath("GPU1", "NIC0", probes.Path{Level: probes.LevelPHB})
	t.SetPath("GPU2", "NIC0", probes.Path{Level: probes.LevelSYS})
	return t
}

func TestDOT(t *testing.T) {
	topo := dotSample()
	dot := DOT(topo)
	if len(topo.Links) != 0 {
		t.Error("DOT changed the topology it drew")
	}
	for _, want := range []string{
		`"GPU0" -- "GPU1" [label="NV4"`,
		`"NUMA0" -- "NUMA1" [label="SMP"`,
		`"PCISW0" -- "GPU0" [label="Gen4 x16"]`,
		`"NUMA0" -- "PCISW0"`,
		`"NUMA1" -- "GPU2"`,
		`label="NUMA 1 / CPU\ncores 8-15"`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
}

// Unknown NUMA nodes: the CPU sockets inferred from SYS paths are drawn.
func TestDOTInferredSocket(t *testing.T) {
	topo := &probes.Topology{}
	for i := 0; i < 4; i++ {
		topo.GPUs = append(topo.GPUs, probes.GPU{Index: i, NUMANode: -1, MemoryNUMANode: -1})
	}
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			topo.SetPath(topo.GPUs[i].ID(), topo.GPUs[j].ID(), probes.Path{Level: probes.LevelNVLink, NVLinks: 18})
		}
	}
	if dot := DOT(topo); !strings.Contains(dot, "SOCKET0") || !strings.Contains(dot, probes.NVSwitchID) {
		t.Errorf("want an inferred socket and the NVSwitch in the drawing:\n%s", dot)
	}
}
