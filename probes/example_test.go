package probes_test

import (
	"fmt"

	"github.com/commlab/commlab/probes"
)

// What a PCIe link carries one way, per generation, for a x16 slot.
func ExamplePCIeGBps() {
	for gen := 3; gen <= 6; gen++ {
		fmt.Printf("Gen%d x16: %.1f GB/s\n", gen, probes.PCIeGBps(gen, 16))
	}
	// Output:
	// Gen3 x16: 15.8 GB/s
	// Gen4 x16: 31.5 GB/s
	// Gen5 x16: 63.0 GB/s
	// Gen6 x16: 121.0 GB/s
}

// A topology built by hand renders as nvidia-smi's matrix.
func ExampleTopology_SetPath() {
	t := &probes.Topology{Source: "by hand", GPUs: []probes.GPU{
		{Index: 0, NUMANode: 0, MemoryNUMANode: -1, CPUAffinity: "0-7"},
		{Index: 1, NUMANode: 0, MemoryNUMANode: -1, CPUAffinity: "0-7"},
	}}
	t.SetPath("GPU0", "GPU1", probes.Path{Level: probes.LevelPIX})
	p, _ := t.PathBetween("GPU1", "GPU0")
	fmt.Println(p, "=", p.Level.Describe())
	// Output:
	// PIX = Connection traversing at most a single PCIe bridge
}
