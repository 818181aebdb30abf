package topom_test

import (
	"fmt"

	"github.com/commlab/commlab/probes/parse/topom"
)

// A matrix pasted into a notebook cell: how does GPU1 reach each NIC?
func ExampleParseString() {
	pasted := "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" +
		"GPU0\t X \tNV18\tPIX\tSYS\t0-47\t0\t\tN/A\n" +
		"GPU1\tNV18\t X \tSYS\tPIX\t48-95\t1\t\tN/A\n" +
		"NIC0\tPIX\tSYS\t X \tSYS\n" +
		"NIC1\tSYS\tPIX\tSYS\t X\n" +
		"\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n"
	m, err := topom.ParseString(pasted)
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
