package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/units"
)

// This file holds `commlab model tp-allreduce` and `commlab model kv`:
// the inference accounts of costmodel (inference.go, inferencebackend.go).

// Defaults of the custom all-reduce model, each from a named source.
const (
	// defaultLaunch: one kernel launch on the lab's H200, recorded run
	// latency-h200x1 (kernel_launch_host 3.68 us, 2026-11-29).
	defaultLaunch = "3.68us"
	// defaultFlag: NCCL's NVLink per-hop latency for LL, 0.6 us
	// (src/graph/tuning.cc hwLat), for one flag write and its observation.
	defaultFlag = "0.6us"
	// defaultPeerBW: P2P read between the lab's two H200s, recorded run
	// bandwidth-h200x2 (p2p_read 256 MiB 390.6 GB/s, 2026-11-29).
	defaultPeerBW = "390.6GB/s"
)

// tpResult is `commlab model tp-allreduce --json`.
type tpResult struct {
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
}

// runModelTPAllReduce is `commlab model tp-allreduce`.
func runModelTPAllReduce(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab model tp-allreduce", stderr,
		"usage: commlab model tp-allreduce [--model NAME] --batch B [--hidden H] [--dtype bf16] [--tp N] [--layers L] [--json]",
		"The all_reduces of one tensor-parallel decode step (two per layer: after attention and after the MLP), their time",
		"under NCCL's model and the one-shot and two-shot custom all-reduce models, and the backend vLLM would pick.",
		"models: "+modelNames())
	model := fs.String("model", "", "named model shape (sets --hidden and --layers)")
	batch := fs.Int("batch", 8, "sequences decoded together (one token each per step)")
	hidden := fs.Int("hidden", 0, "hidden size")
	dtype := fs.String("dtype", "bf16", "activation dtype: bf16, fp16, fp32, fp8")
	tp := fs.Int("tp", 8, "tensor-parallel GPUs")
	layers := fs.Int("layers", 0, "transformer layers (default: the model's, else 1)")
	preset := fs.String("preset", "hgx-h200", "node preset for NCCL's model: "+presetNames())
	family := fs.String("nccl", costmodel.DefaultNCCL, "NCCL version or tuner family (2.19, 2.23 ... 2.28)")
	nvls := fs.Bool("nvls", true, "NVLink multicast (NVLS) available; --nvls=false is NCCL_NVLS_ENABLE=0")
	launch := fs.String("launch", defaultLaunch, "custom all-reduce fixed cost (kernel launch); default: recorded kernel launch on H200")
	flagLat := fs.String("flag", defaultFlag, "one flag barrier; default: NCCL's NVLink LL hop latency (tuning.cc)")
	peerBW := fs.String("peer-bw", defaultPeerBW, "what one GPU pulls from its peers, one way; default: recorded 2xH200 P2P read")
	cc := fs.String("cc", "9.0", "compute capability as vLLM writes it: 8.0, 9.0, 10.0, 10.3")
	fullNVLink := fs.Bool("full-nvlink", true, "every GPU pair on NVLink (NVSwitch)")
	multiNode := fs.Bool("multi-node", false, "the TP group spans nodes")
	graph := fs.Bool("graph", false, "the call is captured in a CUDA graph")
	custom := fs.Bool("custom", true, "vLLM's custom all-reduce enabled (disable_custom_all_reduce=False)")
	torchSymm := fs.Bool("torch-symm-mem", true, "VLLM_ALLREDUCE_USE_SYMM_MEM (default 1)")
	ncclSymm := fs.Bool("nccl-symm-mem", false, "VLLM_USE_NCCL_SYMM_MEM (default 0)")
	flashinfer := fs.Bool("flashinfer", false, "VLLM_ALLREDUCE_USE_FLASHINFER (default 0)")
	jsonOut := fs.Bool("json", false, "print JSON")
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	r := tpResult{Batch: *batch, Hidden: *hidden, DType: *dtype, TP: *tp, Layers: *layers, Model: *model}
	if *model != "" {
		m, err := costmodel.ModelShapeByName(*model)
		if err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
		r.Model = m.Name
		if r.Hidden == 0 {
			r.Hidden = m.Hidden
		}
		if r.Layers == 0 {
			r.Layers = m.Layers
		}
		r.Sources = append(r.Sources, m.Name+": "+m.Source)
	}
	if r.Layers == 0 {
		r.Layers = 1
	}
	if r.Hidden == 0 {
		return fail(fs, stderr, 2, "give --hidden or --model")
	}
	db, err := costmodel.DTypeBytes(*dtype)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	acc, err := costmodel.TPDecode{Batch: r.Batch, Hidden: r.Hidden, DTypeBytes: db, TP: r.TP, Layers: r.Layers}.Account()
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	r.Bytes, r.AllReducesPerStep, r.PerStepBytes, r.PerTokenBytes = acc.AllReduceBytes, acc.AllReducesPerStep, acc.PerStepBytes, acc.PerTokenBytes
	var vals [3]costmodel.Seconds
	for i, s := range []string{*launch, *flagLat} {
		if vals[i], err = costmodel.ParseDuration(s); err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
	}
	bw, err := costmodel.ParseBandwidth(*peerBW)
	if err != nil {
		return fail(fs, stderr, 2, "--peer-bw: %v", err)
	}
	car := costmodel.CustomAllReduce{Ranks: r.TP, Launch: float64(vals[0]), Flag: float64(vals[1]), Beta: bw.OneWay()}
	node, err := costmodel.NodeByName(*preset)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	r.TimeS = map[string]float64{}
	if r.TP > 1 {
		one, err := car.OneShot(r.Bytes)
		if err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
		two, _ := car.TwoShot(r.Bytes)
		r.TimeS["oneshot"], r.TimeS["twoshot"] = one, two
		x, _ := car.Crossover()
		r.OneTwoCrossover = x
		pick, err := costmodel.NCCLAllReduceTime(node, r.TP, r.Bytes, *nvls, *family)
		if err != nil {
			return fail(fs, stderr, 2, "NCCL's model: %v", err)
		}
		r.TimeS["nccl"] = pick.TimeUs * 1e-6
		r.NCCLAlgorithm, r.NCCLProtocol = pick.Algorithm, pick.Protocol
	}
	r.PerStepTimeS = map[string]float64{}
	for k, v := range r.TimeS {
		r.PerStepTimeS[k] = v * float64(r.AllReducesPerStep)
	}
	q := costmodel.BackendQuery{WorldSize: r.TP, Bytes: r.Bytes, BF16: db == 2 && (*dtype == "bf16" || *dtype == "bfloat16"),
		Capability: *cc, FullNVLink: *fullNVLink, P2P: true, MultiNode: *multiNode, Multicast: *nvls,
		CustomAR: *custom, TorchSymmMem: *torchSymm, NCCLSymmMem: *ncclSymm, FlashInfer: *flashinfer, CUDAGraph: *graph}
	choice, err := costmodel.ChooseBackend(q)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	r.Backend, r.Algorithm, r.Reason, r.CustomMaxBytes = choice.Backend, choice.Algorithm, choice.Reason(), choice.CustomMaxBytes
	r.Sources = append(r.Sources,
		"backend: vLLM "+costmodel.VLLMCommit+" cuda_communicator.py, custom_all_reduce.py, all_reduce_utils.py; "+costmodel.VLLMKernelSource+"; "+costmodel.VLLMSymmMemSource,
		"NCCL's model: costmodel's tuner (NVIDIA/nccl src/graph/tuning.cc, family "+*family+") on "+node.Name,
		"custom all-reduce model: launch "+*launch+", flag "+*flagLat+", peer bandwidth "+*peerBW+" (defaults: recorded runs latency-h200x1 and bandwidth-h200x2, NCCL's NVLink LL hop)")
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(stderr, "commlab model:", err)
			return 1
		}
		return 0
	}
	name := r.Model
	if name == "" {
		name = fmt.Sprintf("hidden %d", r.Hidden)
	}
	fmt.Fprintf(stdout, "%s, batch %d, %s, TP %d, %d layers\n", name, r.Batch, r.DType, r.TP, r.Layers)
	fmt.Fprintf(stdout, "one all_reduce: %s (batch x hidden x %d B); 2 per layer, %d per step: %s per step, %s per token\n",
		units.Readable(r.Bytes, "B"), db, r.AllReducesPerStep, units.Readable(r.PerStepBytes, "B"), units.Readable(r.PerTokenBytes, "B"))
	if r.TP > 1 {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "backend\tone all_reduce\tper step\t")
		fmt.Fprintf(tw, "NCCL (model: %s/%s)\t%s\t%s\t\n", r.NCCLAlgorithm, r.NCCLProtocol, costmodel.Seconds(r.TimeS["nccl"]).String(), costmodel.Seconds(r.PerStepTimeS["nccl"]).String())
		fmt.Fprintf(tw, "custom one-shot (model)\t%s\t%s\t\n", costmodel.Seconds(r.TimeS["oneshot"]).String(), costmodel.Seconds(r.PerStepTimeS["oneshot"]).String())
		fmt.Fprintf(tw, "custom two-shot (model)\t%s\t%s\t\n", costmodel.Seconds(r.TimeS["twoshot"]).String(), costmodel.Seconds(r.PerStepTimeS["twoshot"]).String())
		tw.Flush()
	}
	algo := ""
	if r.Algorithm != "" {
		algo = " (" + r.Algorithm + ")"
	}
	fmt.Fprintf(stdout, "vLLM would take: %s%s\n  because: %s\n", r.Backend, algo, r.Reason)
	return 0
}

// kvResult is `commlab model kv --json`.
type kvResult struct {
	Model         string   `json:"model,omitempty"`
	Layers        int      `json:"layers"`
	KVHeads       int      `json:"kv_heads"`
	HeadDim       int      `json:"head_dim"`
	DType         string   `json:"dtype"`
	Tokens        int      `json:"tokens"`
	BytesPerToken float64  `json:"bytes_per_token"`
	Bytes         float64  `json:"bytes"`
	PerLayerBytes float64  `json:"per_layer_bytes"`
	BWBytesPerS   float64  `json:"bw_bytes_per_s"`
	TimeS         float64  `json:"time_s"`
	PerLayerTimeS float64  `json:"per_layer_time_s"`
	Links         []kvLink `json:"links,omitempty"`
	Sources       []string `json:"sources,omitempty"`
}

type kvLink struct {
	Name        string  `json:"name"`
	BWBytesPerS float64 `json:"bw_bytes_per_s"`
	TimeS       float64 `json:"time_s"`
	Source      string  `json:"source"`
}

// runModelKV is `commlab model kv`.
func runModelKV(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab model kv", stderr,
		"usage: commlab model kv [--model NAME] [--layers L --kv-heads H --head-dim D] [--dtype bf16] [--tokens T] [--bw B] [--lat L] [--json]",
		"KV cache bytes per token (layers x 2 x kv_heads x head_dim x dtype), per sequence and per layer, and the time to move them",
		"over a link (--bw), and over every link preset.",
		"models: "+modelNames())
	model := fs.String("model", "", "named model shape (sets --layers, --kv-heads, --head-dim)")
	r := kvResult{}
	fs.IntVar(&r.Layers, "layers", 0, "layers")
	fs.IntVar(&r.KVHeads, "kv-heads", 0, "key/value heads (grouped-query attention)")
	fs.IntVar(&r.HeadDim, "head-dim", 0, "head dimension")
	fs.StringVar(&r.DType, "dtype", "bf16", "cache dtype: bf16, fp16, fp8")
	fs.IntVar(&r.Tokens, "tokens", 4096, "tokens of the sequence")
	bwFlag := fs.String("bw", "400Gb/s", "link bandwidth, e.g. 50GB/s or 400Gb/s (default: one NDR InfiniBand port, a GPU's own NIC)")
	lat := fs.String("lat", "0s", "cost per message (with --bw: one message whole, or one per layer)")
	jsonOut := fs.Bool("json", false, "print JSON")
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	if *model != "" {
		m, err := costmodel.ModelShapeByName(*model)
		if err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
		r.Model = m.Name
		if r.Layers == 0 {
			r.Layers = m.Layers
		}
		if r.KVHeads == 0 {
			r.KVHeads = m.KVHeads
		}
		if r.HeadDim == 0 {
			r.HeadDim = m.HeadDim
		}
		r.Sources = append(r.Sources, m.Name+": "+m.Source)
	}
	db, err := costmodel.DTypeBytes(r.DType)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	acc, err := costmodel.KVCache{Layers: r.Layers, KVHeads: r.KVHeads, HeadDim: r.HeadDim, DTypeBytes: db, Tokens: r.Tokens}.Account()
	if err != nil {
		return fail(fs, stderr, 2, "%v (give --model or --layers, --kv-heads and --head-dim)", err)
	}
	r.BytesPerToken, r.Bytes, r.PerLayerBytes = acc.BytesPerToken, acc.Bytes, acc.PerLayerBytes
	alpha, err := costmodel.ParseDuration(*lat)
	if err != nil {
		return fail(fs, stderr, 2, "--lat: %v", err)
	}
	bw, err := costmodel.ParseBandwidth(*bwFlag)
	if err != nil {
		return fail(fs, stderr, 2, "--bw: %v", err)
	}
	r.BWBytesPerS = bw.OneWay()
	r.TimeS, _ = costmodel.TransferTime(r.Bytes, 1, float64(alpha), r.BWBytesPerS)
	r.PerLayerTimeS, _ = costmodel.TransferTime(r.Bytes, r.Layers, float64(alpha), r.BWBytesPerS)
	for _, l := range costmodel.Links() {
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
		t, _ := costmodel.TransferTime(r.Bytes, 1, float64(alpha), beta)
		src := l.Source
		if l.EfficiencySource != "" {
			src += "; efficiency: " + l.EfficiencySource
		}
		r.Links = append(r.Links, kvLink{Name: l.Name, BWBytesPerS: beta, TimeS: t, Source: src})
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(stderr, "commlab model:", err)
			return 1
		}
		return 0
	}
	name := r.Model
	if name == "" {
		name = "model"
	}
	fmt.Fprintf(stdout, "%s KV cache, %s: %d layers x 2 x %d kv heads x %d x %d B = %s per token\n", name, r.DType, r.Layers, r.KVHeads, r.HeadDim, db, units.Readable(r.BytesPerToken, "B"))
	fmt.Fprintf(stdout, "%s tokens: %s (%s per layer)\n", units.Count(int64(r.Tokens)), units.Readable(r.Bytes, "B"), units.Readable(r.PerLayerBytes, "B"))
	fmt.Fprintf(stdout, "at %s: %s at once, %s layer by layer (%d messages)\n\nover the link presets (at once):\n", units.FormatRate(r.BWBytesPerS), costmodel.Seconds(r.TimeS).String(), costmodel.Seconds(r.PerLayerTimeS).String(), r.Layers)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "link\trate (one way)\ttime\t")
	for _, l := range r.Links {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", l.Name, units.Readable(l.BWBytesPerS, "B/s"), costmodel.Seconds(l.TimeS).String())
	}
	tw.Flush()
	return 0
}

// modelNames lists the named model shapes.
func modelNames() string {
	var names []string
	for _, m := range costmodel.ModelShapes() {
		names = append(names, m.Name)
	}
	return fmt.Sprint(names)
}
