package topom_test

import (
	"fmt"

	"github.com/commlab/commlab/probes/parse/topom"
)

// A matrix pasted into a notebook cell: which NIC should GPU1 use?
func ExampleParseString() {
	pasted := "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" +
		"GPU0\t X \tNV18\tPIX\tSYS\t0-47\t0\t\tN/A\n" +
		"GPU1\tNV18\t X \tSYS\tPIX\t48-95\t1\t\tN/A\n" +
		"NIC0\tPIX\tSYS\t X \tSYS\n" +
		"NIC1\tSYS\tPIX\tSYS\t X\n" +
		"\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n"
	topo, err := topom.ParseString(pasted)
	if err != nil {
		fmt.Println(err)
		return
	}
	nics, level := topo.NearestNICs("GPU1")
	nic, _ := topo.NICByID(nics[0])
	fmt.Printf("GPU1: NUMA %d, cores %s, nearest NIC %s (%s) at %s\n",
		topo.GPUs[1].NUMANode, topo.GPUs[1].CPUAffinity, nics[0], nic.Name, level)
	// Output:
	// GPU1: NUMA 1, cores 48-95, nearest NIC NIC1 (mlx5_1) at PIX
}
