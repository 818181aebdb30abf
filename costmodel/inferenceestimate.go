package costmodel

import (
	"fmt"
	"strings"
)

// This file holds the two inference estimates `commlab model` prints: the
// all_reduces of a tensor-parallel decode step beside the backend vLLM
// would pick (TPAllReduceQuery), and a KV cache's transfer over a link and
// over every link preset (KVTransferQuery). They join the accounts of
// inference.go, the custom all-reduce model, NCCL's tuner and the backend
// choice of inferencebackend.go into one result with its sources.

// TPAllReduceQuery is one tensor-parallel decode step to price. Shape
// gives Hidden and Layers (Name and Source when a named model filled
// them; Layers 0 is one layer). Custom is the custom all-reduce model (its
// Ranks are set from TP) and CustomNote says where its numbers come from.
// Backend holds the engine's switches and the machine's facts; its
// WorldSize, Bytes, BF16 and Multicast are set from the query.
type TPAllReduceQuery struct {
	Shape      ModelShape
	Batch      int
	DType      string
	TP         int
	Node       Node
	Family     string
	NVLS       bool
	Custom     CustomAllReduce
	CustomNote string
	Backend    BackendQuery
}

// TPAllReduceEstimate is the priced step, as `commlab model tp-allreduce
// --json` prints it.
type TPAllReduceEstimate struct {
	Model             string             `json:"model,omitempty"`
	Batch             int                `json:"batch"`
	Hidden            int                `json:"hidden"`
	DType             string             `json:"dtype"`
	TP                int                `json:"tp"`
	Layers            int                `json:"layers"`
	Bytes             float64            `json:"bytes"`
	AllReducesPerStep int                `json:"allreduces_per_step"`
	PerStepBytes      float64            `json:"per_step_bytes"`
	PerTokenBytes     float64            `json:"per_token_bytes"`
	Backend           string             `json:"backend"`
	Algorithm         string             `json:"algorithm,omitempty"`
	Reason            string             `json:"reason"`
	CustomMaxBytes    float64            `json:"custom_max_bytes"`
	TimeS             map[string]float64 `json:"time_s"`
	PerStepTimeS      map[string]float64 `json:"per_step_time_s"`
	NCCLAlgorithm     string             `json:"nccl_algorithm"`
	NCCLProtocol      string             `json:"nccl_protocol"`
	OneTwoCrossover   float64            `json:"oneshot_twoshot_crossover_bytes"`
	Sources           []string           `json:"sources"`
	// DTypeBytes is the size of one element of DType.
	DTypeBytes int `json:"-"`
}

// Estimate prices the step: its all_reduce sizes, their time under NCCL's
// model and the one-shot and two-shot custom all-reduce models (with more
// than one GPU), and the backend vLLM would take.
func (q TPAllReduceQuery) Estimate() (TPAllReduceEstimate, error) {
	r := TPAllReduceEstimate{Model: q.Shape.Name, Batch: q.Batch, Hidden: q.Shape.Hidden, DType: q.DType, TP: q.TP, Layers: q.Shape.Layers}
	if q.Shape.Name != "" {
		r.Sources = append(r.Sources, q.Shape.Name+": "+q.Shape.Source)
	}
	if r.Layers == 0 {
		r.Layers = 1
	}
	if r.Hidden == 0 {
		return r, fmt.Errorf("%w: no hidden size (give one or a model)", ErrParams)
	}
	db, err := DTypeBytes(q.DType)
	if err != nil {
		return r, err
	}
	r.DTypeBytes = db
	acc, err := TPDecode{Batch: r.Batch, Hidden: r.Hidden, DTypeBytes: db, TP: r.TP, Layers: r.Layers}.Account()
	if err != nil {
		return r, err
	}
	r.Bytes, r.AllReducesPerStep, r.PerStepBytes, r.PerTokenBytes = acc.AllReduceBytes, acc.AllReducesPerStep, acc.PerStepBytes, acc.PerTokenBytes
	car := q.Custom
	car.Ranks = r.TP
	r.TimeS = map[string]float64{}
	if r.TP > 1 {
		one, err := car.OneShot(r.Bytes)
		if err != nil {
			return r, err
		}
		two, _ := car.TwoShot(r.Bytes)
		r.TimeS["oneshot"], r.TimeS["twoshot"] = one, two
		r.OneTwoCrossover, _ = car.Crossover()
		pick, err := NCCLAllReduceTime(q.Node, r.TP, r.Bytes, q.NVLS, q.Family)
		if err != nil {
			return r, fmt.Errorf("NCCL's model: %w", err)
		}
		r.TimeS["nccl"] = pick.TimeUs * 1e-6
		r.NCCLAlgorithm, r.NCCLProtocol = pick.Algorithm, pick.Protocol
	}
	r.PerStepTimeS = map[string]float64{}
	for k, v := range r.TimeS {
		r.PerStepTimeS[k] = v * float64(r.AllReducesPerStep)
	}
	bq := q.Backend
	bq.WorldSize, bq.Bytes, bq.Multicast = r.TP, r.Bytes, q.NVLS
	bq.BF16 = db == 2 && (q.DType == "bf16" || q.DType == "bfloat16")
	choice, err := ChooseBackend(bq)
	if err != nil {
		return r, err
	}
	r.Backend, r.Algorithm, r.Reason, r.CustomMaxBytes = choice.Backend, choice.Algorithm, choice.Reason(), choice.CustomMaxBytes
	r.Sources = append(r.Sources,
		"backend: vLLM "+VLLMCommit+" cuda_communicator.py, custom_all_reduce.py, all_reduce_utils.py; "+VLLMKernelSource+"; "+VLLMSymmMemSource,
		"NCCL's model: costmodel's tuner (NVIDIA/nccl src/graph/tuning.cc, family "+q.Family+") on "+q.Node.Name,
		"custom all-reduce model: "+q.CustomNote)
	return r, nil
}

// KVTransferQuery is one sequence's KV cache to move: Shape gives Layers,
// KVHeads and HeadDim (Name and Source when a named model filled them),
// Alpha the cost per message in seconds and Beta the link's one-way rate
// in bytes per second.
type KVTransferQuery struct {
	Shape  ModelShape
	DType  string
	Tokens int
	Alpha  float64
	Beta   float64
}

// KVTransferEstimate is the cache's size and transfer times, as `commlab
// model kv --json` prints it.
type KVTransferEstimate struct {
	Model         string       `json:"model,omitempty"`
	Layers        int          `json:"layers"`
	KVHeads       int          `json:"kv_heads"`
	HeadDim       int          `json:"head_dim"`
	DType         string       `json:"dtype"`
	Tokens        int          `json:"tokens"`
	BytesPerToken float64      `json:"bytes_per_token"`
	Bytes         float64      `json:"bytes"`
	PerLayerBytes float64      `json:"per_layer_bytes"`
	BWBytesPerS   float64      `json:"bw_bytes_per_s"`
	TimeS         float64      `json:"time_s"`
	PerLayerTimeS float64      `json:"per_layer_time_s"`
	Links         []KVLinkTime `json:"links,omitempty"`
	Sources       []string     `json:"sources,omitempty"`
	// DTypeBytes is the size of one element of DType.
	DTypeBytes int `json:"-"`
}

// KVLinkTime is the cache's transfer over one link preset, at once.
type KVLinkTime struct {
	Name        string  `json:"name"`
	BWBytesPerS float64 `json:"bw_bytes_per_s"`
	TimeS       float64 `json:"time_s"`
	Source      string  `json:"source"`
}

// Estimate sizes the cache and times its transfer whole and layer by layer
// over the query's link, and whole over one link preset per kind of path a
// KV cache takes.
func (q KVTransferQuery) Estimate() (KVTransferEstimate, error) {
	r := KVTransferEstimate{Model: q.Shape.Name, Layers: q.Shape.Layers, KVHeads: q.Shape.KVHeads, HeadDim: q.Shape.HeadDim, DType: q.DType, Tokens: q.Tokens}
	if q.Shape.Name != "" {
		r.Sources = append(r.Sources, q.Shape.Name+": "+q.Shape.Source)
	}
	db, err := DTypeBytes(q.DType)
	if err != nil {
		return r, err
	}
	r.DTypeBytes = db
	acc, err := KVCache{Layers: r.Layers, KVHeads: r.KVHeads, HeadDim: r.HeadDim, DTypeBytes: db, Tokens: r.Tokens}.Account()
	if err != nil {
		return r, err
	}
	r.BytesPerToken, r.Bytes, r.PerLayerBytes = acc.BytesPerToken, acc.Bytes, acc.PerLayerBytes
	r.BWBytesPerS = q.Beta
	r.TimeS, _ = TransferTime(r.Bytes, 1, q.Alpha, r.BWBytesPerS)
	r.PerLayerTimeS, _ = TransferTime(r.Bytes, r.Layers, q.Alpha, r.BWBytesPerS)
	for _, l := range Links() {
		// One rate per kind of path a KV cache takes: per-GPU NVLink, the
		// network ports, PCIe x16; single NVLink links and host memory are
		// parts of those paths, not paths.
		if l.Kind == "memory" || (l.Kind == "pcie" && l.Name != "pcie5x16" && l.Name != "pcie4x16") || strings.HasSuffix(l.Name, "-link") {
			continue
		}
		beta := l.Beta()
		if l.Efficiency > 0 {
			beta *= l.Efficiency
		}
		t, _ := TransferTime(r.Bytes, 1, q.Alpha, beta)
		src := l.Source
		if l.EfficiencySource != "" {
			src += "; efficiency: " + l.EfficiencySource
		}
		r.Links = append(r.Links, KVLinkTime{Name: l.Name, BWBytesPerS: beta, TimeS: t, Source: src})
	}
	return r, nil
}
