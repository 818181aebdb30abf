package nvidiasmi_test

import (
	"fmt"

	"github.com/commlab/commlab/parse/nvidiasmi"
)

// A matrix pasted into a notebook cell: how does GPU1 reach each NIC?
func ExampleParseTopoMatrixString() {
	pasted := "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" +
		"GPU0\t X \tNV18\tPIX\tSYS\t0-47\t0\t\tN/A\n" +
		"GPU1\tNV18\t X \tSYS\tPIX\t48-95\t1\t\tN/A\n" +
		"NIC0\tPIX\tSYS\t X \tSYS\n" +
		"NIC1\tSYS\tPIX\tSYS\t X\n" +
		"\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n"
	m, err := nvidiasmi.ParseTopoMatrixString(pasted)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := m.GPUs[1]
	fmt.Printf("GPU1: NUMA %d, cores %s\n", g.NUMAAffinity, g.CPUAffinity)
	for _, n := range m.NICs {
		c, _ := m.Cell("GPU1", n.ID)
		fmt.Printf("  %s (%s): %s\n", n.ID, n.Name, c)
	}
	// Output:
	// GPU1: NUMA 1, cores 48-95
	//   NIC0 (mlx5_0): SYS
	//   NIC1 (mlx5_1): PIX
}

func ExampleParseQueryString() {
	text := `
==============NVSMI LOG==============

Driver Version                            : 565.57.01
CUDA Version                              : 12.7

Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    PCI
        GPU Link Info
            PCIe Generation
                Max                       : 5
                Current                   : 4
            Link Width
                Max                       : 16x
                Current                   : 16x
    FB Memory Usage
        Total                             : 81559 MiB
`
	q, err := nvidiasmi.ParseQueryString(text)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := q.GPUs[0]
	fmt.Printf("%s at %s: PCIe Gen%d x%d (max Gen%d x%d), %.0f MiB\n", g.Name, nvidiasmi.NormalizeBusID(g.BusID),
		g.PCIeGenCurrent, g.PCIeWidthCurrent, g.PCIeGenMax, g.PCIeWidthMax, g.MemoryTotalMiB)
	// Output:
	// NVIDIA H100 80GB HBM3 at 0000:18:00.0: PCIe Gen4 x16 (max Gen5 x16), 81559 MiB
}

// From a pasted matrix to a drawing: m.Topology() is the probes.Topology
// the matrix describes; as a cell's last expression it shows as a picture.
func ExampleTopoMatrix_Topology() {
	pasted := "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" +
		"GPU0\t X \tNV18\tPIX\t0-47\t0\t\tN/A\n" +
		"GPU1\tNV18\t X \tSYS\t48-95\t1\t\tN/A\n" +
		"NIC0\tPIX\tSYS\t X \n" +
		"\nNIC Legend:\n\n  NIC0: mlx5_0\n"
	m, err := nvidiasmi.ParseTopoMatrixString(pasted)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m)
	t := m.Topology()
	fmt.Println(len(t.GPUs), "GPUs,", len(t.NICs), "NIC:", t.NICs[0].Name)
	// Output:
	// 	GPU0	GPU1	NIC0
	// GPU0	X	NV18	PIX
	// GPU1	NV18	X	SYS
	// NIC0	PIX	SYS	X
	// 2 GPUs, 1 NIC: mlx5_0
}
