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

// Which NIC NCCL would give each GPU: GPU0 shares a PCIe switch with the
// NIC, GPU1 reaches it only across the CPU sockets, so its data goes
// through host memory, or through GPU0 over NVLink (PXN).
func ExampleTopology_NICPaths() {
	gen5 := probes.PCIeLink{GenCurrent: 5, GenMax: 5, WidthCurrent: 16, WidthMax: 16}
	t := &probes.Topology{
		GPUs: []probes.GPU{{Index: 0, PCIe: gen5}, {Index: 1, PCIe: gen5}},
		NICs: []probes.NIC{{Index: 0, Name: "mlx5_0", PCIe: gen5, Ports: []probes.RDMAPort{{Port: 1, State: "ACTIVE", RateGbps: 400}}}},
	}
	t.SetPath("GPU0", "GPU1", probes.Path{Level: probes.LevelNVLink, NVLinks: 18})
	t.SetPath("GPU0", "NIC0", probes.Path{Level: probes.LevelPIX})
	t.SetPath("GPU1", "NIC0", probes.Path{Level: probes.LevelSYS})
	paths := t.NICPaths(probes.LevelUnknown) // NCCL_NET_GDR_LEVEL unset: PXB
	fmt.Println(paths)
	fmt.Println(paths[1].Why)
	// Output:
	// GPU   NIC          path  ceiling  GPUDirect RDMA  PXN
	// GPU0  NIC0 mlx5_0  PIX   50 GB/s  yes             -
	// GPU1  NIC0 mlx5_0  SYS   50 GB/s  no              via GPU0
	// NIC0 (mlx5_0) is across the link between CPU sockets (SYS); farther than NCCL_NET_GDR_LEVEL=PXB, so data is staged through host memory; NCCL may send through GPU0 over NVLink, which reaches NIC0 at PIX (PXN).
}

// An NVLink cell reads with its count in place of the legend's "#".
func ExamplePath_Describe() {
	p, _ := probes.ParsePath("NV18")
	fmt.Println(p, "=", p.Describe())
	// Output:
	// NV18 = Connection traversing a bonded set of 18 NVLinks
}
