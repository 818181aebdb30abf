package costmodel

import "math"

// DecodeQuestion is chapter 7's core question as the cost model answers
// it: one decode-step all_reduce of a model's shape on TP GPUs of one node,
// NCCL against a custom all-reduce, on two footings. Graphed: TP GPUs with
// the step replayed from a CUDA graph, NCCL's tuner against Custom's
// one-shot. Eager: two GPUs driven from one host thread (the lab's
// harness, NVLS off), this package's fitted estimate against a one-shot
// launched eagerly (EagerLaunch). The answer also prices what the question
// leaves out: a gradient bucket (DDPBucketBytes) on the same GPUs, and
// which backend vLLM takes with NCCL's symmetric memory on.
type DecodeQuestion struct {
	Node Node
	// GPU names the GPUs in the answer's tables: "H200".
	GPU        string
	Shape      ModelShape
	Batch      int
	DTypeBytes int
	TP         int
	// NVLS allows NVLink SHARP on the graphed footing.
	NVLS bool
	// Custom is the custom all-reduce on TP ranks, its Launch a graph replay.
	Custom CustomAllReduce
	// EagerLaunch is an eager kernel launch, seconds.
	EagerLaunch float64
}

// DecodeAnswer is the cost model's answer to a DecodeQuestion. Times are
// seconds unless the field (TunerChoice, Estimate) says microseconds.
type DecodeAnswer struct {
	Question DecodeQuestion
	// Bytes is one all_reduce: batch x hidden x dtype.
	Bytes  float64
	Decode TPDecodeAccount
	// Eager is NCCL on two GPUs on the lab's harness; EagerOneShot the
	// custom one-shot on two GPUs, the kernel alone.
	Eager        Estimate
	EagerOneShot float64
	// NCCL is the tuner's pick on TP GPUs; OneShot the custom kernel's
	// time and Read the part of it that reads the TP-1 peers.
	NCCL    TunerChoice
	OneShot float64
	Read    float64
	// Symm is vLLM's backend for Bytes on TP GPUs with
	// VLLM_USE_NCCL_SYMM_MEM=1.
	Symm BackendChoice
	// Bucket is DDP's default bucket; BucketTwoShot and BucketNCCL its
	// all_reduce by the custom two-shot and by NCCL on TP GPUs.
	Bucket        float64
	BucketTwoShot float64
	BucketNCCL    TunerChoice
}

// EagerMachine is the eager footing's NCCL: two GPUs of the node driven
// from one host thread (the lab's harness), NVLS off.
func (q DecodeQuestion) EagerMachine() Machine {
	return Machine{Node: q.Node, GPUsPerNode: 2, NVLSOff: true, Harness: LabHarness(2)}
}

// EagerCustom is the eager footing's custom all-reduce: Custom on two
// ranks, launched eagerly, with no second phase.
func (q DecodeQuestion) EagerCustom() CustomAllReduce {
	return CustomAllReduce{Ranks: 2, Launch: q.EagerLaunch, Flag: q.Custom.Flag, Beta: q.Custom.Beta}
}

// Answer prices the question.
func (q DecodeQuestion) Answer() (DecodeAnswer, error) {
	a := DecodeAnswer{Question: q, Bytes: float64(q.Batch * q.Shape.Hidden * q.DTypeBytes), Bucket: DDPBucketBytes}
	var err error
	if a.Decode, err = (TPDecode{Batch: q.Batch, Hidden: q.Shape.Hidden, DTypeBytes: q.DTypeBytes, TP: q.TP, Layers: q.Shape.Layers}).Account(); err != nil {
		return a, err
	}
	if a.Eager, err = q.EagerMachine().Estimate(AllReduce, a.Bytes, "", ""); err != nil {
		return a, err
	}
	if a.EagerOneShot, err = q.EagerCustom().OneShot(a.Bytes); err != nil {
		return a, err
	}
	if a.NCCL, err = NCCLAllReduceTime(q.Node, q.TP, a.Bytes, q.NVLS, DefaultNCCL); err != nil {
		return a, err
	}
	if a.OneShot, err = q.Custom.OneShot(a.Bytes); err != nil {
		return a, err
	}
	a.Read = float64(q.TP-1) * a.Bytes / q.Custom.Beta
	symm := DefaultBackendQuery(q.TP, a.Bytes)
	symm.NCCLSymmMem = true
	if a.Symm, err = ChooseBackend(symm); err != nil {
		return a, err
	}
	if a.BucketTwoShot, err = q.Custom.TwoShot(a.Bucket); err != nil {
		return a, err
	}
	a.BucketNCCL, err = NCCLAllReduceTime(q.Node, q.TP, a.Bucket, q.NVLS, DefaultNCCL)
	return a, err
}

// Gap is NCCL's graphed time less the custom one-shot's, seconds.
func (a DecodeAnswer) Gap() float64 { return a.NCCL.TimeUs*1e-6 - a.OneShot }

// CustomFixed is the custom kernel's fixed cost: a launch and two flag
// barriers, seconds.
func (a DecodeAnswer) CustomFixed() float64 {
	return a.Question.Custom.Launch + 2*a.Question.Custom.Flag
}

// FixedPart is the gap's fixed-cost part: NCCL's latency term (its base
// and the ring's hops) less the custom kernel's fixed cost, seconds.
func (a DecodeAnswer) FixedPart() float64 { return a.NCCL.LatencyUs*1e-6 - a.CustomFixed() }

// BytePart is the gap's byte part: NCCL's bandwidth term less the custom
// kernel's reads, seconds. FixedPart + BytePart = Gap.
func (a DecodeAnswer) BytePart() float64 { return (a.NCCL.TimeUs-a.NCCL.LatencyUs)*1e-6 - a.Read }

// CustomSweep is the custom all-reduce's two models beside NCCL's tuner
// over a range of sizes, seconds per size.
type CustomSweep struct {
	Sizes, OneShot, TwoShot, NCCL []float64
	// Crossover is where two-shot overtakes one-shot
	// (CustomAllReduce.Crossover); NCCLWinsFrom the first size at which
	// NCCL's model beats both, 0 when it beats neither up to the last size.
	Crossover, NCCLWinsFrom float64
}

// Sweep prices one-shot, two-shot and NCCL (its tuner, on c.Ranks GPUs of
// node, NVLS as nvls) at each size.
func (c CustomAllReduce) Sweep(node Node, sizes []float64, nvls bool) (CustomSweep, error) {
	sw := CustomSweep{Sizes: sizes}
	var err error
	if sw.Crossover, err = c.Crossover(); err != nil {
		return sw, err
	}
	for _, s := range sizes {
		o, _ := c.OneShot(s)
		w, _ := c.TwoShot(s)
		pick, err := NCCLAllReduceTime(node, c.Ranks, s, nvls, DefaultNCCL)
		if err != nil {
			return sw, err
		}
		n := pick.TimeUs * 1e-6
		sw.OneShot, sw.TwoShot, sw.NCCL = append(sw.OneShot, o), append(sw.TwoShot, w), append(sw.NCCL, n)
		if sw.NCCLWinsFrom == 0 && math.Min(o, w) > n {
			sw.NCCLWinsFrom = s
		}
	}
	return sw, nil
}
