package costmodel_test

import (
	"fmt"

	"github.com/commlab/commlab/costmodel"
)

// Chapter 7's core question on 8 H200s: the gap between NCCL's graphed
// all_reduce and a custom one-shot splits into a fixed-cost part and a
// byte part that add up to it.
func ExampleDecodeQuestion_Answer() {
	shape, _ := costmodel.ModelShapeByName("llama-3.1-70b")
	node, _ := costmodel.NodeByName("hgx-h200")
	custom := costmodel.CustomAllReduce{Ranks: 8, Launch: 0.53e-6, Flag: 0.6e-6, Phase: 2.078e-6, Beta: 390.6e9}
	a, _ := costmodel.DecodeQuestion{Node: node, GPU: "H200", Shape: shape, Batch: 8, DTypeBytes: 2, TP: 8,
		NVLS: true, Custom: custom, EagerLaunch: 3.68e-6}.Answer()
	fmt.Printf("%.0f B, %d per step; NCCL %s/%s %.2f us, one-shot %.2f us\n",
		a.Bytes, a.Decode.AllReducesPerStep, a.NCCL.Algorithm, a.NCCL.Protocol, a.NCCL.TimeUs, a.OneShot*1e6)
	fmt.Printf("gap %.2f us = fixed %.2f us + bytes %.2f us\n", a.Gap()*1e6, a.FixedPart()*1e6, a.BytePart()*1e6)
	fmt.Printf("eager on 2 GPUs: NCCL %.2f us, one-shot %.2f us; symmetric memory: %s\n", a.Eager.TimeUs, a.EagerOneShot*1e6, a.Symm.Backend)
	// Output:
	// 131072 B, 160 per step; NCCL Ring/LL 16.63 us, one-shot 4.08 us
	// gap 12.55 us = fixed 13.27 us + bytes -0.72 us
	// eager on 2 GPUs: NCCL 24.20 us, one-shot 5.22 us; symmetric memory: nccl-symm-mem
}

// The custom all-reduce's models against NCCL's tuner over sizes: where
// one-shot and two-shot cross, and where NCCL beats both.
func ExampleCustomAllReduce_Sweep() {
	node, _ := costmodel.NodeByName("hgx-h200")
	c := costmodel.CustomAllReduce{Ranks: 8, Launch: 0.53e-6, Flag: 0.6e-6, Phase: 2.078e-6, Beta: 390.6e9}
	sw, _ := c.Sweep(node, costmodel.Sizes(1<<10, 64<<20, 2), true)
	fmt.Printf("%d sizes; cross at %.0f B; NCCL wins from %.0f B\n", len(sw.Sizes), sw.Crossover, sw.NCCLWinsFrom)
	// Output: 17 sizes; cross at 154603 B; NCCL wins from 33554432 B
}

// Llama 3.1 70B's 4096-token cache handed from prefill to decode on 8
// GPUs: each GPU's shard, one layer of it, and one layer of prefill at
// 771 TFLOP/s; with more GPUs than KV heads each holds a replicated head.
func ExampleKVHandoff() {
	shape, _ := costmodel.ModelShapeByName("llama-3.1-70b")
	kv, _ := costmodel.KVCache{Layers: shape.Layers, KVHeads: shape.KVHeads, HeadDim: shape.HeadDim, DTypeBytes: 2, Tokens: 4096}.Account()
	k := costmodel.KVHandoff{Shape: shape, TP: 8, Tokens: 4096, CacheBytes: kv.Bytes, GEMMRate: 771e12}
	fmt.Printf("shard %.0f MiB, layer %.0f MiB, prefill layer %.3f ms\n", k.ShardBytes()/(1<<20), k.LayerShardBytes()/(1<<20), k.PrefillLayer()*1e3)
	k.TP = 16
	fmt.Printf("TP 16: shard %.0f MiB\n", k.ShardBytes()/(1<<20))
	paths, _ := costmodel.Transfers(costmodel.DefaultTransferNode())
	gdr, _ := costmodel.GPUDirect(paths)
	_, err := costmodel.GPUDirect(nil)
	fmt.Println(gdr.Name, err != nil)
	// Output:
	// shard 160 MiB, layer 2 MiB, prefill layer 1.181 ms
	// TP 16: shard 160 MiB
	// GPUDirect RDMA true
}

// TP 2 x PP 2 x DP 2 on nodes of 4 GPUs: TP groups stay in a node, DP
// groups cross nodes.
func ExampleParallelGroups() {
	for _, g := range costmodel.ParallelGroups(2, 2, 2) {
		fmt.Println(g.Kind, g.Ranks, g.Nodes(4))
	}
	// Output:
	// TP [0 1] 1
	// TP [2 3] 1
	// TP [4 5] 1
	// TP [6 7] 1
	// PP [0 2] 1
	// PP [1 3] 1
	// PP [4 6] 1
	// PP [5 7] 1
	// DP [0 4] 2
	// DP [1 5] 2
	// DP [2 6] 2
	// DP [3 7] 2
}
