package fake_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes/fake"
)

// The chapters on a CPU-only machine draw the HGX H200 node's matrix.
func ExampleHGXH200() {
	topo, err := fake.HGXH200().Topology(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(topo.Matrix(), "\n")
	for _, l := range lines[:3] {
		fmt.Println(strings.ReplaceAll(l, "\t", " | "))
	}
	nics, level := topo.NearestNICs("GPU0")
	fmt.Println("GPU0 uses", nics, "at", level)
	// Output:
	//  | GPU0 | GPU1 | GPU2 | GPU3 | GPU4 | GPU5 | GPU6 | GPU7 | NIC0 | NIC1 | NIC2 | NIC3 | NIC4 | NIC5 | NIC6 | NIC7 | CPU Affinity | NUMA Affinity | GPU NUMA ID
	// GPU0 |  X  | NV18 | NV18 | NV18 | NV18 | NV18 | NV18 | NV18 | PIX | NODE | NODE | NODE | SYS | SYS | SYS | SYS | 0-47,96-143 | 0 |  | N/A
	// GPU1 | NV18 |  X  | NV18 | NV18 | NV18 | NV18 | NV18 | NV18 | NODE | PIX | NODE | NODE | SYS | SYS | SYS | SYS | 0-47,96-143 | 0 |  | N/A
	// GPU0 uses [NIC0] at PIX
}

func ExamplePCIeBox() {
	topo, _ := fake.PCIeBox().Topology(context.Background())
	p, _ := topo.PathBetween("GPU0", "GPU2")
	fmt.Println("GPU0-GPU1:", topo.Paths[0][1], "GPU0-GPU2:", p, "switches:", len(topo.Switches))
	// Output:
	// GPU0-GPU1: PIX GPU0-GPU2: PHB switches: 4
}
