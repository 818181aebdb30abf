package prose

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/costmodel"
)

// DecodeFootings is the core question's table of chapter 7: NCCL and the
// custom one-shot, model and measurement, on each footing (two GPUs eager
// on the lab's harness; TP GPUs replayed from a CUDA graph). measuredUs is
// NCCL's measured all_reduce of the answer's size on two GPUs,
// microseconds; the custom kernel's cells await runs on several GPUs.
func DecodeFootings(a costmodel.DecodeAnswer, measuredUs float64) *Table {
	q := a.Question
	return NewTable("footing", "NCCL, model", "NCCL, measured", "custom one-shot, model", "custom, measured").
		Row(fmt.Sprintf("2 %ss, eager, one host thread", q.GPU),
			fmt.Sprintf("%s, %s/%s", Us(a.Eager.TimeUs), a.Eager.Algorithm, a.Eager.Protocol),
			Us(measuredUs), Secs(a.EagerOneShot)+", kernel only", "awaits 2 GPUs").
		Row(fmt.Sprintf("%d %ss, CUDA graph (the question)", q.TP, q.GPU),
			fmt.Sprintf("%s, %s/%s", Us(a.NCCL.TimeUs), a.NCCL.Algorithm, a.NCCL.Protocol),
			fmt.Sprintf("awaits %d GPUs", q.TP), Secs(a.OneShot), fmt.Sprintf("awaits %d GPUs", q.TP))
}

// DecodeGap splits the graphed footing's gap into the parts that add up
// to it: the fixed cost (NCCL's base and ring hops against a launch and two
// flag barriers) and the bytes (the ring's share through the protocol's
// bandwidth against one read of every peer).
func DecodeGap(a costmodel.DecodeAnswer) *Table {
	tp := a.Question.TP
	return NewTable(fmt.Sprintf("part of the %s gap (%d GPUs, graphed, models)", Secs(a.Gap()), tp), "NCCL", "custom", "difference").
		Row(fmt.Sprintf("fixed cost: NCCL's base and %d ring steps of one NVLink hop each, against a launch and 2 flag barriers", 2*(tp-1)),
			Us(a.NCCL.LatencyUs), Secs(a.CustomFixed()), Secs(a.FixedPart())).
		Row(fmt.Sprintf("bytes: the ring's 2(n-1)/n of %s through %s's bandwidth, against %d peers read at once", IEC(a.Bytes), a.NCCL.Protocol, tp-1),
			Us(a.NCCL.TimeUs-a.NCCL.LatencyUs), Secs(a.Read), Secs(a.BytePart())).
		Row("total", Us(a.NCCL.TimeUs), Secs(a.OneShot), Secs(a.FixedPart()+a.BytePart()))
}

// DecodeAnswer states the core question's answer in Markdown around the
// two tables: the size and count of the all_reduces, the measurement
// against the model and what is model only, the cost per decode step,
// vLLM's choice with NCCL's symmetric memory, and the computed reasons the
// trick does not suit gradient synchronisation. measuredUs is as for
// DecodeFootings.
func DecodeAnswer(a costmodel.DecodeAnswer, measuredUs float64) string {
	q := a.Question
	steps := float64(a.Decode.AllReducesPerStep)
	var b strings.Builder
	fmt.Fprintf(&b, "- **Each all_reduce**: %s, batch %d, TP %d: %s; %d per layer (after attention, after the MLP), %d per step.\n",
		q.Shape.Name, q.Batch, q.TP, IEC(a.Bytes), a.Decode.AllReducesPerLayer, a.Decode.AllReducesPerStep)
	fmt.Fprintf(&b, "- **Measured**: NCCL on 2 %ss, %s against the model's %s on the same harness (one host thread issuing for both GPUs); the model's host floor, %s, is fitted to the recorded %s runs, and at this size it overshoots the measurement by %s.\n",
		q.GPU, Us(measuredUs), Us(a.Eager.TimeUs), Us(a.Eager.FloorUs), q.GPU, Us(a.Eager.TimeUs-measuredUs))
	fmt.Fprintf(&b, "- **Model only**: the model's one-shot on 2 GPUs, %s, is the kernel alone (one eager launch, no host work) and has no measurement across two GPUs here; the %d-GPU row is model only.\n",
		Secs(a.EagerOneShot), q.TP)
	fmt.Fprintf(&b, "- **Per decode step**, x %d all_reduces (%d GPUs, graphed, models): NCCL %s, custom %s.\n",
		a.Decode.AllReducesPerStep, q.TP, Secs(a.NCCL.TimeUs*1e-6*steps), Secs(a.OneShot*steps))
	fmt.Fprintf(&b, "- **NCCL's symmetric memory** on in vLLM (VLLM_USE_NCCL_SYMM_MEM=1, off by default), %d GPUs, %s: vLLM picks %s, %s; not measured here (no multi-GPU run).\n",
		q.TP, IEC(a.Bytes), a.Symm.Backend, a.Symm.Reason())
	fmt.Fprintf(&b, "- **Not for gradients, by the numbers**: the custom all-reduce takes inputs up to %s by default, DDP's buckets are %s; a %s bucket takes %s two-shot against NCCL's %s (models, %d GPUs), microseconds saved against a backward pass of tens of milliseconds.\n",
		IEC(costmodel.CustomARDefaultMaxBytes), IEC(a.Bucket), IEC(a.Bucket), Secs(a.BucketTwoShot), Us(a.BucketNCCL.TimeUs), q.TP)
	return b.String()
}

// CustomInputs lists the four numbers the custom all-reduce's model takes,
// each with where it comes from; eagerLaunch is the eager launch shown
// beside the replayed one, and the sources name the runs.
func CustomInputs(c costmodel.CustomAllReduce, eagerLaunch float64, launchSource, phaseSource, peerSource string) string {
	return fmt.Sprintf("- **Launch** %s replayed from a graph, %s eager (%s)\n"+
		"- **Flag barrier** %s (a tuner constant, not a measured round trip)\n"+
		"- **Two-shot's second phase** %s (our kernel, 1 rank, two-shot minus one-shot at 8 B: %s)\n"+
		"- **Peer read** %s (%s)\n",
		Secs(c.Launch), Secs(eagerLaunch), launchSource, Secs(c.Flag), Secs(c.Phase), phaseSource, Rate(c.Beta), peerSource)
}

// CustomCrossing says where the sweep's models cross: one-shot and
// two-shot, and NCCL against both.
func CustomCrossing(sw costmodel.CustomSweep) string {
	s := fmt.Sprintf("One-shot and two-shot cross at %s (model); ", IEC(sw.Crossover))
	if sw.NCCLWinsFrom > 0 {
		return s + fmt.Sprintf("NCCL's model beats both from %s.", IEC(sw.NCCLWinsFrom))
	}
	if len(sw.Sizes) == 0 {
		return s + "no sizes priced against NCCL."
	}
	return s + fmt.Sprintf("the custom models stay under NCCL's up to %s.", IEC(sw.Sizes[len(sw.Sizes)-1]))
}

// KVPaths is the KV handoff over each of chapter 3's paths: the rate each
// GPU keeps with the whole node sending, one shard per GPU all at once,
// and the whole cache through one GPU alone.
func KVPaths(k costmodel.KVHandoff, paths []costmodel.Transfer) *Table {
	shard := k.ShardBytes()
	t := NewTable("path", "rate per GPU, whole node sending", fmt.Sprintf("%s per GPU (TP %d, all GPUs at once)", IEC(shard), k.TP),
		fmt.Sprintf("the whole %s through one GPU alone", IEC(k.CacheBytes)))
	for _, p := range paths {
		t.Row(p.Name, Rate(p.NodeCeiling), Secs(shard/p.NodeCeiling), Secs(k.CacheBytes/p.Ceiling))
	}
	return t
}

// KVLayerOverlap says what sending the KV layer by layer over path hides
// under prefill: one layer's shard against one layer's prefill, and what
// stays exposed either way. gemmSource names the run the GEMM rate is from.
func KVLayerOverlap(k costmodel.KVHandoff, path costmodel.Transfer, gemmSource string) string {
	send := k.LayerShardBytes() / path.NodeCeiling
	prefill := k.PrefillLayer()
	return fmt.Sprintf("Per layer, per GPU: %s of KV over %s takes %s; prefill of that layer takes at least %s "+
		"(%.3g TFLOP per GPU: 2 x %.0f million weights x %d tokens for the matrices, 2 x tokens^2 x hidden for causal attention, over TP %d, "+
		"at the %.0f TFLOP/s a 4096-cube bf16 GEMM reached, %s). "+
		"So a layer's transfer is %.1f%% of its prefill: sent layer by layer, all but the last layer's %s hides under compute, "+
		"against %s exposed when the whole shard goes after prefill.\n",
		IEC(k.LayerShardBytes()), path.Name, Secs(send), Secs(prefill),
		k.LayerFLOPs()/1e12, k.Shape.LayerWeights()/1e6, k.Tokens, k.TP, k.GEMMRate/1e12, gemmSource,
		100*send/prefill, Secs(send), Secs(k.ShardBytes()/path.NodeCeiling))
}

// MeasuredUs writes a measured time in microseconds, or "n/a" when the
// run has no such sample: it takes probes' (seconds, found) pair as it is.
func MeasuredUs(seconds float64, found bool) string {
	if !found {
		return "n/a"
	}
	return Us(seconds * 1e6)
}

// CustomAgainstFloor says where the eager one-shot model of two GPUs
// (model2) sits against our kernel's one-rank floor, measured at 8 KiB and
// 128 KiB (seconds), and what second phase vLLM's switch from one-shot to
// two-shot at 256 KiB on 8 GPUs implies (implied) against our kernel's
// own one-rank phase and a flag barrier.
func CustomAgainstFloor(model2 costmodel.CustomAllReduce, floor8K, floor128K, implied, phase, flag float64) string {
	o8, _ := model2.OneShot(8 << 10)
	o128, _ := model2.OneShot(128 << 10)
	return fmt.Sprintf("The one-shot model of 2 GPUs comes in %s under our kernel's 1-rank floor at 8 KiB and %s at 128 KiB: "+
		"its Launch is an empty kernel's (%s eager), less than this kernel's own fixed cost, so the model is optimistic by about this much.\n\n"+
		"vLLM switches 8 GPUs from one-shot to two-shot at 256 KiB; in the model that crossing means a second phase of %s, "+
		"against %s for our kernel's second phase on one GPU with no peers (and %s for one NVLink flag barrier, a tuner constant, not measured): "+
		"either the fence and the second round of remote loads cost that much across NVLink, or one-shot reads slower than the model's "+
		"full ingress; only a kernel timed on 8 GPUs can tell.\n",
		Secs(floor8K-o8), Secs(floor128K-o128), Secs(model2.Launch), Secs(implied), Secs(phase), Secs(flag))
}
