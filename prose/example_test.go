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
