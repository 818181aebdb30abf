package costmodel

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// This file holds the accounts of communication in LLM inference: the
// tensor-parallel all_reduce of a decode step (pure latency), the KV cache
// and its transfer (pure bandwidth), named model shapes, and the one-shot
// and two-shot custom all-reduce models that inference engines run instead
// of NCCL for small messages. The engine's backend choice is in
// inferencebackend.go.

// DTypeBytes returns the size of one element of a dtype named as PyTorch
// and Hugging Face name them ("bf16", "bfloat16", "fp16", "float16",
// "fp32", "float32", "fp8", "int8").
func DTypeBytes(name string) (int, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "bf16", "bfloat16", "fp16", "float16", "half":
		return 2, nil
	case "fp32", "float32", "float":
		return 4, nil
	case "fp8", "float8", "fp8_e4m3", "fp8_e5m2", "int8", "uint8":
		return 1, nil
	case "fp64", "float64", "double":
		return 8, nil
	}
	return 0, fmt.Errorf("%w: unknown dtype %q (want bf16, fp16, fp32, fp8 or int8)", ErrParams, name)
}

// ModelShape is the part of a transformer's configuration that sets its
// communication: layers, hidden size, attention heads and key/value heads
// (grouped-query attention), and the head dimension.
type ModelShape struct {
	Name    string
	Layers  int
	Hidden  int
	Heads   int
	KVHeads int
	HeadDim int
	// FFN is the MLP's inner width (Llama's hidden_dim: 4 x dim, times 2/3,
	// times ffn_dim_multiplier, rounded up to multiple_of, as model.py
	// computes it from the model_args Source names).
	FFN int
	// Source names where the numbers come from (repository, file, commit).
	Source string
}

// LayerWeights is the number of weights in one transformer layer's
// matrices: the attention projections (query and output Hidden x Hidden,
// key and value Hidden x KVHeads x HeadDim) and the gated MLP (three
// Hidden x FFN matrices). A forward pass over T tokens costs about
// 2 x LayerWeights x T floating-point operations per layer, before
// attention's own T x T terms.
func (m ModelShape) LayerWeights() float64 {
	h, kv := float64(m.Hidden), float64(m.KVHeads*m.HeadDim)
	return 2*h*h + 2*h*kv + 3*h*float64(m.FFN)
}

// llamaFFN is Llama's MLP width from its model_args (llama3 model.py,
// FeedForward): int(2 x 4 dim / 3), times the multiplier, rounded up to a
// multiple of multipleOf.
func llamaFFN(dim int, multiplier float64, multipleOf int) int {
	h := int(multiplier * float64(2*4*dim/3))
	return multipleOf * ((h + multipleOf - 1) / multipleOf)
}

// srcLlama31 is Meta's own table of the Llama 3.1 model arguments.
const srcLlama31 = "meta-llama/llama-models, models/llama3_1/api/sku_list.py at 1768925a9d343b19459b5bc2acc893c842874179: model_args dim, n_layers, n_heads, n_kv_heads, ffn_dim_multiplier, multiple_of; head_dim = dim / n_heads"

// ModelShapes returns the named model shapes, smallest first.
func ModelShapes() []ModelShape {
	ms := []ModelShape{
		{Name: "llama-3.1-8b", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, FFN: llamaFFN(4096, 1.3, 1024), Source: srcLlama31 + " (meta-llama/Meta-Llama-3.1-8B)"},
		{Name: "llama-3.1-70b", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: llamaFFN(8192, 1.3, 4096), Source: srcLlama31 + " (meta-llama/Meta-Llama-3.1-70B)"},
		{Name: "llama-3.1-405b", Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, HeadDim: 128, FFN: llamaFFN(16384, 1.2, 4096), Source: srcLlama31 + " (meta-llama/Meta-Llama-3.1-405B)"},
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Layers*ms[i].Hidden < ms[j].Layers*ms[j].Hidden })
	return ms
}

// ModelShapeNames lists the named model shapes as usage names them:
// "[name name ...]", smallest first.
func ModelShapeNames() string {
	var names []string
	for _, m := range ModelShapes() {
		names = append(names, m.Name)
	}
	return fmt.Sprint(names)
}

// ModelShapeByName returns the named shape (case-insensitive). "llama-3-8b"
// and "llama-3-70b" name the 3.1 shapes, which Meta's table gives the same
// dimensions as Llama 3 (only the context length and RoPE scaling differ).
func ModelShapeByName(name string) (ModelShape, error) {
	switch strings.ToLower(name) {
	case "llama-3-8b", "llama3-8b":
		name = "llama-3.1-8b"
	case "llama-3-70b", "llama3-70b":
		name = "llama-3.1-70b"
	}
	return presetByName(ModelShapes(), func(m ModelShape) string { return m.Name }, name, "model shape")
}

// TPDecode is one decode step of a tensor-parallel transformer: Batch
// sequences each produce one token; every layer ends its attention block
// and its MLP block with an all_reduce of the activations (Megatron-style
// row-parallel linear layers), so a step does two all_reduces per layer.
type TPDecode struct {
	Batch      int
	Hidden     int
	DTypeBytes int
	TP         int
	Layers     int
}

// TPDecodeAccount is what a decode step moves.
type TPDecodeAccount struct {
	// AllReduceBytes is one all_reduce: batch x hidden x dtype size.
	AllReduceBytes float64 `unit:"B"`
	// AllReducesPerLayer is 2 (after attention, after the MLP);
	// AllReducesPerStep is 2 x layers.
	AllReducesPerLayer int
	AllReducesPerStep  int
	// PerStepBytes is AllReduceBytes x AllReducesPerStep, the payload one
	// GPU hands to all_reduce per step; PerTokenBytes divides it by the
	// batch (each sequence gets one token per step).
	PerStepBytes  float64 `unit:"B"`
	PerTokenBytes float64 `unit:"B"`
	// RingWireBytes is what a ring all_reduce sends per GPU per step,
	// 2(n-1)/n of PerStepBytes; OneShotWireBytes what one-shot reads per
	// GPU, (n-1) x PerStepBytes.
	RingWireBytes    float64 `unit:"B"`
	OneShotWireBytes float64 `unit:"B"`
}

// Account computes a decode step's communication.
func (d TPDecode) Account() (TPDecodeAccount, error) {
	if d.Batch < 1 || d.Hidden < 1 || d.DTypeBytes < 1 || d.TP < 1 || d.Layers < 1 {
		return TPDecodeAccount{}, fmt.Errorf("%w: batch, hidden, dtype size, tp and layers must be positive", ErrParams)
	}
	b := float64(d.Batch) * float64(d.Hidden) * float64(d.DTypeBytes)
	a := TPDecodeAccount{AllReduceBytes: b, AllReducesPerLayer: 2, AllReducesPerStep: 2 * d.Layers}
	a.PerStepBytes = b * float64(a.AllReducesPerStep)
	a.PerTokenBytes = a.PerStepBytes / float64(d.Batch)
	n := float64(d.TP)
	a.RingWireBytes = a.PerStepBytes * 2 * (n - 1) / n
	a.OneShotWireBytes = a.PerStepBytes * (n - 1)
	return a, nil
}

// KVCache is the key/value cache of some tokens of one sequence.
type KVCache struct {
	Layers, KVHeads, HeadDim, DTypeBytes int
	Tokens                               int
}

// KVAccount is its size and what moving it costs.
type KVAccount struct {
	// BytesPerToken = layers x 2 (K and V) x kv_heads x head_dim x dtype.
	BytesPerToken float64 `unit:"B"`
	// Bytes = BytesPerToken x tokens; PerLayerBytes is one layer's share,
	// the size of one message when the cache moves layer by layer.
	Bytes         float64 `unit:"B"`
	PerLayerBytes float64 `unit:"B"`
}

// Account computes the cache's size.
func (k KVCache) Account() (KVAccount, error) {
	if k.Layers < 1 || k.KVHeads < 1 || k.HeadDim < 1 || k.DTypeBytes < 1 || k.Tokens < 0 {
		return KVAccount{}, fmt.Errorf("%w: layers, kv heads, head dim and dtype size must be positive, tokens not negative", ErrParams)
	}
	per := float64(k.Layers) * 2 * float64(k.KVHeads) * float64(k.HeadDim) * float64(k.DTypeBytes)
	a := KVAccount{BytesPerToken: per, Bytes: per * float64(k.Tokens)}
	a.PerLayerBytes = a.Bytes / float64(k.Layers)
	return a, nil
}

// TransferTime is the time to move bytes as messages of equal size over a
// link of one-way bandwidth beta (bytes per second) with a per-message cost
// alpha (seconds): messages x alpha + bytes / beta. One message is a whole
// cache sent at once; layers messages send it layer by layer.
func TransferTime(bytes float64, messages int, alpha, beta float64) (float64, error) {
	if beta <= 0 || bytes < 0 || alpha < 0 || messages < 1 {
		return 0, fmt.Errorf("%w: bandwidth must be positive, bytes and latency not negative, messages at least 1", ErrParams)
	}
	return float64(messages)*alpha + bytes/beta, nil
}

// CustomAllReduce models vLLM's custom all-reduce over CUDA IPC on one
// node (csrc/custom_all_reduce.cuh, cross_device_reduce_1stage and
// _2stage): every GPU maps its peers' buffers and reads them directly,
// and ranks meet at flag barriers written into each other's memory.
//
//	one-shot: Launch + 2 Flag + (n-1) S / Beta
//	          (start barrier, read all n-1 peers' whole buffers, end barrier)
//	two-shot: Launch + 2 Flag + Phase + 2 (n-1) S / (n Beta)
//	          (start barrier, reduce-scatter reading (n-1)/n of S, barrier,
//	          all-gather reading (n-1)/n of S; no barrier after it, the next
//	          call's start barrier guards the scratch)
//
// Both kernels meet at two barriers; what two-shot adds is Phase, the cost
// of a second phase that depends on the first: a __threadfence_system
// before the middle barrier and a second round of remote loads that cannot
// start until it clears. Beta is what one GPU can pull from all its peers
// together, one way (on NVSwitch its NVLink ingress); Launch is the
// kernel's fixed cost (launch, plus the local read and write of S when
// that is not negligible), Flag one flag barrier (a peer write and its
// observation: about one NVLink hop). The models are first-order:
// one-shot's reads all contend for the same ingress, which is what Beta
// already charges.
type CustomAllReduce struct {
	Ranks int
	// Launch, Flag and Phase are seconds; Beta bytes per second, one way.
	Launch, Flag, Phase, Beta float64
}

func (c CustomAllReduce) check() error {
	if c.Ranks < 1 || c.Beta <= 0 || c.Launch < 0 || c.Flag < 0 || c.Phase < 0 {
		return fmt.Errorf("%w: custom all-reduce needs ranks >= 1, bandwidth > 0, launch, flag and phase >= 0", ErrParams)
	}
	return nil
}

// OneShot is the one-shot time of an all-reduce of size bytes.
func (c CustomAllReduce) OneShot(size float64) (float64, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	n := float64(c.Ranks)
	return c.Launch + 2*c.Flag + (n-1)*size/c.Beta, nil
}

// TwoShot is the two-shot time of an all-reduce of size bytes.
func (c CustomAllReduce) TwoShot(size float64) (float64, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	n := float64(c.Ranks)
	return c.Launch + 2*c.Flag + c.Phase + 2*(n-1)*size/(n*c.Beta), nil
}

// Crossover is the size above which two-shot beats one-shot: its second
// phase (Phase) against the (n-1)(n-2)/n S/Beta that it saves,
// S* = Phase n Beta / ((n-1)(n-2)); with Phase 0 two-shot is never slower
// on more than two ranks (0). With two ranks the two move the same bytes
// and one-shot never loses (+Inf): vLLM runs one-shot at world size 2 at
// every size.
func (c CustomAllReduce) Crossover() (float64, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	n := float64(c.Ranks)
	if c.Ranks <= 2 {
		return math.Inf(1), nil
	}
	return c.Phase * n * c.Beta / ((n - 1) * (n - 2)), nil
}

// PhaseFor is the second phase that puts Crossover at crossing bytes:
// Phase = S* (n-1)(n-2) / (n Beta), the inverse of Crossover; what a
// kernel's observed switch from one-shot to two-shot implies. Ranks and
// Beta are c's; its Phase is ignored.
func (c CustomAllReduce) PhaseFor(crossing float64) float64 {
	n := float64(c.Ranks)
	return crossing * (n - 1) * (n - 2) / (n * c.Beta)
}

// WireBytes is what one GPU pulls from its peers in one all-reduce of
// size bytes: one-shot (n-1) S, two-shot and ring 2 (n-1) S / n.
func WireBytes(algorithm string, ranks int, size float64) (float64, error) {
	n := float64(ranks)
	if ranks < 1 || size < 0 {
		return 0, fmt.Errorf("%w: ranks must be positive, size not negative", ErrParams)
	}
	switch strings.ToLower(algorithm) {
	case "oneshot", "one-shot":
		return (n - 1) * size, nil
	case "twoshot", "two-shot", "ring":
		return 2 * (n - 1) * size / n, nil
	}
	return 0, fmt.Errorf("%w: algorithm %q (want oneshot, twoshot or ring)", ErrParams, algorithm)
}

// NCCLAllReduceTime is NCCL's own model (this package's tuner, tuning.cc
// family) of one all_reduce of size bytes on gpus GPUs of one node of the
// given preset, with NVLS off when nvls is false (NCCL_NVLS_ENABLE=0, as on
// the lab's machines). It returns the tuner's pick with its time.
func NCCLAllReduceTime(node Node, gpus int, size float64, nvls bool, family string) (TunerChoice, error) {
	T, err := TuneNodes(node, gpus, 1, family, nvls)
	if err != nil {
		return TunerChoice{}, err
	}
	return T.Pick(AllReduce, size)
}

// FillModelShape completes a shape from the named model: the fields given
// sets (non-zero) are kept, the others take the model's, and the name and
// source are the model's. An empty name returns given unchanged, so a
// shape typed out in full needs no model.
func FillModelShape(name string, given ModelShape) (ModelShape, error) {
	if name == "" {
		return given, nil
	}
	m, err := ModelShapeByName(name)
	if err != nil {
		return ModelShape{}, err
	}
	given.Name, given.Source = m.Name, m.Source
	for _, f := range []struct {
		dst *int
		src int
	}{
		{&given.Layers, m.Layers}, {&given.Hidden, m.Hidden}, {&given.Heads, m.Heads},
		{&given.KVHeads, m.KVHeads}, {&given.HeadDim, m.HeadDim}, {&given.FFN, m.FFN},
	} {
		if *f.dst == 0 {
			*f.dst = f.src
		}
	}
	return given, nil
}
