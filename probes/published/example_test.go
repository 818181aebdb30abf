package published_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/probes/published"
)

// The chapters on a CPU-only machine draw the HGX H200 node's matrix.
func ExampleHGXH200() {
	topo, err := published.HGXH200().Topology(context.Background())
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
	topo, _ := published.PCIeBox().Topology(context.Background())
	p, _ := topo.PathBetween("GPU0", "GPU2")
	fmt.Println("GPU0-GPU1:", topo.Paths[0][1], "GPU0-GPU2:", p, "switches:", len(topo.Switches))
	// Output:
	// GPU0-GPU1: PIX GPU0-GPU2: PHB switches: 4
}

// The NIC each GPU of the HGX H200 node would use for NCCL's traffic to
// other nodes.
func ExampleHGXH200_nicPaths() {
	topo, _ := published.HGXH200().Topology(context.Background())
	paths := topo.NICPaths(0)
	fmt.Println(paths)
	fmt.Println(paths[0].Why)
	// Output:
	// GPU   NIC          path  ceiling  GPUDirect RDMA  PXN
	// GPU0  NIC0 mlx5_1  PIX   50 GB/s  yes             -
	// GPU1  NIC1 mlx5_2  PIX   50 GB/s  yes             -
	// GPU2  NIC2 mlx5_3  PIX   50 GB/s  yes             -
	// GPU3  NIC3 mlx5_4  PIX   50 GB/s  yes             -
	// GPU4  NIC4 mlx5_5  PIX   50 GB/s  yes             -
	// GPU5  NIC5 mlx5_6  PIX   50 GB/s  yes             -
	// GPU6  NIC6 mlx5_7  PIX   50 GB/s  yes             -
	// GPU7  NIC7 mlx5_8  PIX   50 GB/s  yes             -
	// NIC0 (mlx5_1) is on the GPU's PCIe switch (PIX); the NIC reads and writes GPU memory directly (GPUDirect RDMA).
}

// The recorded matrix itself, parsed as a reader parses their own: the
// HGX matrix behind HGXH200 was recorded on an H20 node.
func ExampleMatrix() {
	text, source, err := published.Matrix("hgx-h20")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := nvidiasmi.ParseTopoMatrixString(text)
	if err != nil {
		fmt.Println(err)
		return
	}
	topo := m.Topology()
	p, _ := topo.PathBetween("GPU3", "NIC3")
	fmt.Println(source)
	fmt.Println(len(topo.GPUs), "GPUs,", len(topo.NICs), "NICs; GPU3 to NIC3:", p)
	// Output:
	// nvidia-smi topo -m of an 8x NVIDIA H20 HGX node, driver 535.161.08, 8 ConnectX NICs (sgl-project/sglang issue #24966)
	// 8 GPUs, 8 NICs; GPU3 to NIC3: PIX
}
