package prose_test

import (
	"fmt"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/prose"
)

func decodeAnswer() costmodel.DecodeAnswer {
	shape, _ := costmodel.ModelShapeByName("llama-3.1-70b")
	node, _ := costmodel.NodeByName("hgx-h200")
	custom := costmodel.CustomAllReduce{Ranks: 8, Launch: 0.53e-6, Flag: 0.6e-6, Phase: 2.078e-6, Beta: 390.6e9}
	a, _ := costmodel.DecodeQuestion{Node: node, GPU: "H200", Shape: shape, Batch: 8, DTypeBytes: 2, TP: 8,
		NVLS: true, Custom: custom, EagerLaunch: 3.68e-6}.Answer()
	return a
}

// Chapter 7's core question: the two footings, the graphed gap's parts,
// and the answer's sentences, with 21.77 µs measured on two H200s.
func ExampleDecodeAnswer() {
	a := decodeAnswer()
	fmt.Print(prose.DecodeFootings(a, 21.77).Markdown())
	fmt.Print(prose.DecodeGap(a).Markdown())
	fmt.Print(prose.DecodeAnswer(a, 21.77))
	// Output:
	// | footing | NCCL, model | NCCL, measured | custom one-shot, model | custom, measured |
	// |:---|:---|:---|:---|:---|
	// | 2 H200s, eager, one host thread | 24.2 µs, Ring/LL | 21.77 µs | 5.216 µs, kernel only | awaits 2 GPUs |
	// | 8 H200s, CUDA graph (the question) | 16.63 µs, Ring/LL | awaits 8 GPUs | 4.079 µs | awaits 8 GPUs |
	// | part of the 12.55 µs gap (8 GPUs, graphed, models) | NCCL | custom | difference |
	// |:---|---:|---:|---:|
	// | fixed cost: NCCL's base and 14 ring steps of one NVLink hop each, against a launch and 2 flag barriers | 15 µs | 1.73 µs | 13.27 µs |
	// | bytes: the ring's 2(n-1)/n of 128 KiB through LL's bandwidth, against 7 peers read at once | 1.627 µs | 2.349 µs | -722.2 ns |
	// | total | 16.63 µs | 4.079 µs | 12.55 µs |
	// - **Each all_reduce**: llama-3.1-70b, batch 8, TP 8: 128 KiB; 2 per layer (after attention, after the MLP), 160 per step.
	// - **Measured**: NCCL on 2 H200s, 21.77 µs against the model's 24.2 µs on the same harness (one host thread issuing for both GPUs); the model's host floor, 24.2 µs, is fitted to the recorded H200 runs, and at this size it overshoots the measurement by 2.43 µs.
	// - **Model only**: the model's one-shot on 2 GPUs, 5.216 µs, is the kernel alone (one eager launch, no host work) and has no measurement across two GPUs here; the 8-GPU row is model only.
	// - **Per decode step**, x 160 all_reduces (8 GPUs, graphed, models): NCCL 2.66 ms, custom 652.6 µs.
	// - **NCCL's symmetric memory** on in vLLM (VLLM_USE_NCCL_SYMM_MEM=1, off by default), 8 GPUs, 128 KiB: vLLM picks nccl-symm-mem, NCCL symmetric memory (ncclCommWindowRegister buffers, copy in and out); not measured here (no multi-GPU run).
	// - **Not for gradients, by the numbers**: the custom all-reduce takes inputs up to 8 MiB by default, DDP's buckets are 25 MiB; a 25 MiB bucket takes 121.3 µs two-shot against NCCL's 121.4 µs (models, 8 GPUs), microseconds saved against a backward pass of tens of milliseconds.
}

// The custom all-reduce's inputs, each with its source, and where its
// models cross.
func ExampleCustomCrossing() {
	a := decodeAnswer()
	fmt.Print(prose.CustomInputs(a.Question.Custom, 3.68e-6, "run A", "run B", "run C"))
	node, _ := costmodel.NodeByName("hgx-h200")
	sw, _ := a.Question.Custom.Sweep(node, costmodel.Sizes(1<<10, 64<<20, 2), true)
	fmt.Println(prose.CustomCrossing(sw))
	sw, _ = a.Question.Custom.Sweep(node, costmodel.Sizes(1<<10, 1<<20, 2), true)
	fmt.Println(prose.CustomCrossing(sw))
	fmt.Println(prose.CustomCrossing(costmodel.CustomSweep{}))
	// Output:
	// - **Launch** 530 ns replayed from a graph, 3.68 µs eager (run A)
	// - **Flag barrier** 600 ns (a tuner constant, not a measured round trip)
	// - **Two-shot's second phase** 2.078 µs (our kernel, 1 rank, two-shot minus one-shot at 8 B: run B)
	// - **Peer read** 390.6 GB/s (run C)
	// One-shot and two-shot cross at 151 KiB (model); NCCL's model beats both from 32 MiB.
	// One-shot and two-shot cross at 151 KiB (model); the custom models stay under NCCL's up to 1 MiB.
	// One-shot and two-shot cross at 0 B (model); no sizes priced against NCCL.
}

// The KV handoff over chapter 3's paths, and what sending it layer by
// layer over GPUDirect RDMA hides under prefill.
func ExampleKVPaths() {
	shape, _ := costmodel.ModelShapeByName("llama-3.1-70b")
	k := costmodel.KVHandoff{Shape: shape, TP: 8, Tokens: 4096, CacheBytes: 1.25 * (1 << 30), GEMMRate: 771e12}
	paths, _ := costmodel.Transfers(costmodel.DefaultTransferNode())
	gdr, _ := costmodel.GPUDirect(paths)
	fmt.Print(prose.KVPaths(k, paths).Markdown())
	fmt.Print(prose.KVLayerOverlap(k, gdr, "run A"))
	// Output:
	// | path | rate per GPU, whole node sending | 160 MiB per GPU (TP 8, all GPUs at once) | the whole 1.25 GiB through one GPU alone |
	// |:---|---:|---:|---:|
	// | TCP sockets | 9.6 GB/s | 17.48 ms | 111.8 ms |
	// | RDMA through host memory | 19.2 GB/s | 8.738 ms | 42.6 ms |
	// | GPUDirect RDMA | 50 GB/s | 3.355 ms | 26.84 ms |
	// Per layer, per GPU: 2 MiB of KV over GPUDirect RDMA takes 41.94 µs; prefill of that layer takes at least 1.181 ms (0.911 TFLOP per GPU: 2 x 856 million weights x 4096 tokens for the matrices, 2 x tokens^2 x hidden for causal attention, over TP 8, at the 771 TFLOP/s a 4096-cube bf16 GEMM reached, run A). So a layer's transfer is 3.6% of its prefill: sent layer by layer, all but the last layer's 41.94 µs hides under compute, against 3.355 ms exposed when the whole shard goes after prefill.
}

// The eager one-shot model of two GPUs against our kernel's one-rank
// floor, and the second phase vLLM's 256 KiB switch on 8 GPUs implies; a
// sample a run lacks reads n/a.
func ExampleCustomAgainstFloor() {
	model2 := costmodel.CustomAllReduce{Ranks: 2, Launch: 3.68e-6, Flag: 0.6e-6, Beta: 390.6e9}
	implied := costmodel.CustomAllReduce{Ranks: 8, Beta: 390.6e9}.PhaseFor(256 << 10)
	fmt.Print(prose.CustomAgainstFloor(model2, 5.211e-6, 5.652e-6, implied, 2.078e-6, 0.6e-6))
	fmt.Println(prose.MeasuredUs(20.88e-6, true), prose.MeasuredUs(0, false))
	// Output:
	// The one-shot model of 2 GPUs comes in 310 ns under our kernel's 1-rank floor at 8 KiB and 436.4 ns at 128 KiB: its Launch is an empty kernel's (3.68 µs eager), less than this kernel's own fixed cost, so the model is optimistic by about this much.
	//
	// vLLM switches 8 GPUs from one-shot to two-shot at 256 KiB; in the model that crossing means a second phase of 3.523 µs, against 2.078 µs for our kernel's second phase on one GPU with no peers (and 600 ns for one NVLink flag barrier, a tuner constant, not measured): either the fence and the second round of remote loads cost that much across NVLink, or one-shot reads slower than the model's full ingress; only a kernel timed on 8 GPUs can tell.
	// 20.88 µs n/a
}
