package prose_test

import (
	"fmt"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/prose"
)

// The quantities a chapter writes into its sentences.
func Example() {
	fmt.Println(prose.Secs(0.0752302), prose.Ms(1.5), prose.Us(4.58752))
	fmt.Println(prose.IEC(1<<30), prose.IEC(1e6), prose.SI(1e6), prose.Size(64<<10), prose.Size(64e3))
	fmt.Println(prose.Rate(25e9), prose.GBps(345.21), prose.Pct(0.875), prose.Num(1070.4), prose.Count(268435456))
	fmt.Println(prose.Change(0.052), prose.Change(-0.031), prose.Change(-0.00001))
	fmt.Println(prose.List([]string{"NIC0", "NIC1"}), "|", prose.List(nil), "|", prose.List(prose.Distinct([]string{"a", "b", "a"})), "|", prose.IntList([]int{0, 1}))
	// Output:
	// 75.23 ms 1.5 ms 4.588 µs
	// 1 GiB 976.6 KiB 1 MB 64 KiB 64 KB
	// 25 GB/s 345.2 GB/s 87.5% 1,070 268,435,456
	// +5.2% -3.1% 0%
	// NIC0, NIC1 | none | a, b | 0, 1
}

// A table's text columns align left and its number columns right.
func ExampleTable() {
	t := prose.NewTable("protocol", "intercept", "busbw", "note")
	t.Row("LL", prose.Us(20.01), prose.GBps(134), "8-byte stores | flags")
	t.Row("Simple", prose.Us(23.01), prose.GBps(316))
	fmt.Print(t.Markdown())
	// Output:
	// | protocol | intercept | busbw | note |
	// |:---|---:|---:|:---|
	// | LL | 20.01 µs | 134 GB/s | 8-byte stores \| flags |
	// | Simple | 23.01 µs | 316 GB/s |  |
}

// The cost model's rows, as chapter 1 compares algorithms.
func ExampleCostTable() {
	var costs []costmodel.Cost
	for _, size := range []float64{64 << 10, 1 << 30} {
		c, err := costmodel.Predict(costmodel.Params{Collective: costmodel.AllReduce, Algorithm: costmodel.Ring,
			Ranks: 8, Bytes: size, Alpha: 5e-6, Beta: 25e9})
		if err != nil {
			fmt.Println(err)
			return
		}
		costs = append(costs, c)
	}
	fmt.Print(prose.CostTable(costs))
	// Output:
	// | algorithm | GPUs | nodes | size | steps | latency term | bandwidth term | total | busbw | bound |
	// |:---|---:|---:|---:|---:|---:|---:|---:|---:|:---|
	// | ring | 8 | 1 | 64 KiB | 14 | 70 µs | 4.588 µs | 74.59 µs | 1.538 GB/s | latency |
	// | ring | 8 | 1 | 1 GiB | 14 | 70 µs | 75.16 ms | 75.23 ms | 24.98 GB/s | bandwidth |
}

func ExamplePlural() {
	fmt.Println(prose.Plural(1, "head"))
	fmt.Println(prose.Plural(8, "head"))
	// Output:
	// 1 head
	// 8 heads
}

// Chapter 2's link table: each link as quoted, one way, as NCCL rates it,
// in practice, with its source numbered once under the table.
func ExampleLinks() {
	links, _ := costmodel.LinksByName("pcie5x16", "nvlink4-gpu", "ib-ndr", "ddr5-4800-8ch")
	fmt.Print(prose.Links(links...).Markdown())
	// Output:
	// | link | as quoted | one way | NCCL rates it | seen in practice | source |
	// |:---|:---|:---|---:|:---|:---|
	// | PCIe 5.0 x16 | 63.02 GB/s one way | 63.02 GB/s | 48 GB/s | about 87%: pinned host-to-device copy measured on an H200, about 55 GB/s (recorded run copies-h200x1) | [1] |
	// | NVLink 4 (H100/H200/H20), 18 links per GPU | 900 GB/s both ways | 450 GB/s | 370.8 GB/s | about 82%: 8xH100 nccl-tests all_reduce ring busbw about 370 GB/s (NVIDIA/nccl-tests#212) | [2] |
	// | InfiniBand NDR 4x port | 400 Gb/s per port | 50 GB/s | 50 GB/s | about 94%: 46-48 GB/s per NDR NIC expected by NVIDIA (NVIDIA/nccl-tests#290) | [3] |
	// | host memory, DDR5-4800, 8 channels (one socket) | 307.2 GB/s, reads + writes share it | (no directions) |  |  | [4] |
	//
	// 1. PCI-SIG base specifications 3.0-6.0: 8/16/32/64 GT/s per lane; 128b/130b encoding (3.0-5.0), 242B/256B FLIT (6.0); per direction
	// 2. NVIDIA NVLink page (nvidia.com/en-us/data-center/nvlink): V100 6 links 300 GB/s, A100 12 links 600 GB/s, H100 18 links 900 GB/s, B200 18 links 1.8 TB/s, totals both ways; 50 GB/s per NVLink 2-4 link and 100 GB/s per NVLink 5 link both ways; NCCL's link rates: NVIDIA/nccl v2.28.9-1 src/graph/topo.h (SMxx_NVLINK_BW) and src/graph/topo.cc (PCIe: width x per-lane rate from kvDictPciGen / 80)
	// 3. InfiniBand Trade Association roadmap: EDR 100 Gb/s, HDR 200 Gb/s, NDR 400 Gb/s, XDR 800 Gb/s per 4x port, each direction; NCCL rates a NIC at its port speed (ncclNetProperties_t.speed, Mb/s / 8000 GB/s)
	// 4. JEDEC DDR5-4800: 4800 MT/s x 8 bytes = 38.4 GB/s per channel
}
