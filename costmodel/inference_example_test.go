package costmodel_test

import (
	"fmt"

	"github.com/commlab/commlab/costmodel"
)

// The decode step of the chapter-7 question: Llama 3.1 70B, batch 8, bf16,
// 8-way tensor parallelism. Two all_reduces per layer.
func ExampleTPDecode_Account() {
	m, _ := costmodel.ModelShapeByName("llama-3.1-70b")
	a, _ := costmodel.TPDecode{Batch: 8, Hidden: m.Hidden, DTypeBytes: 2, TP: 8, Layers: m.Layers}.Account()
	fmt.Println(a.AllReduceBytes, "bytes per all_reduce,", a.AllReducesPerStep, "per step,", a.PerStepBytes, "bytes per step")
	// Output: 131072 bytes per all_reduce, 160 per step, 2.097152e+07 bytes per step
}

// A 4096-token prompt's KV cache for Llama 3.1 70B in bf16.
func ExampleKVCache_Account() {
	a, _ := costmodel.KVCache{Layers: 80, KVHeads: 8, HeadDim: 128, DTypeBytes: 2, Tokens: 4096}.Account()
	t, _ := costmodel.TransferTime(a.Bytes, 1, 0, 50e9)
	fmt.Printf("%.0f B per token, %.0f MiB, %.1f ms at 50 GB/s\n", a.BytesPerToken, a.Bytes/(1<<20), t*1e3)
	// Output: 327680 B per token, 1280 MiB, 26.8 ms at 50 GB/s
}

// One-shot pulls (n-1)S, two-shot 2(n-1)S/n; both meet at two barriers,
// but two-shot's second phase waits on its first: where they cross for a
// second phase of 2.078 us (our kernel's one-rank two-shot minus one-shot,
// recorded run custom-allreduce-h200x1-ws1).
func ExampleCustomAllReduce_Crossover() {
	c := costmodel.CustomAllReduce{Ranks: 8, Launch: 3.68e-6, Flag: 0.6e-6, Phase: 2.078e-6, Beta: 390.6e9}
	x, _ := c.Crossover()
	fmt.Printf("8 GPUs: two-shot wins above %.0f KB\n", x/1e3)
	c.Ranks = 2
	x, _ = c.Crossover()
	fmt.Println("2 GPUs:", x)
	// Output:
	// 8 GPUs: two-shot wins above 155 KB
	// 2 GPUs: +Inf
}

// vLLM's choice for a 128 KiB bf16 all_reduce on 8 H200s with NVLink
// multicast, and without it.
func ExampleChooseBackend() {
	q := costmodel.DefaultBackendQuery(8, 128<<10)
	c, _ := costmodel.ChooseBackend(q)
	fmt.Println(c.Backend, c.Algorithm, c.CustomMaxBytes)
	q.Bytes = 1 << 20
	c, _ = costmodel.ChooseBackend(q)
	fmt.Println(c.Backend, c.Algorithm)
	q.Multicast = false
	c, _ = costmodel.ChooseBackend(q)
	fmt.Println(c.Backend, c.Algorithm, c.CustomMaxBytes)
	// Output:
	// custom oneshot 262144
	// torch-symm-mem multimem
	// custom twoshot 8.388608e+06
}
