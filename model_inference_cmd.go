package main

import (
	"encoding/json"
	"fmt"
	"io"
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
	shape, err := costmodel.FillModelShape(*model, costmodel.ModelShape{Hidden: *hidden, Layers: *layers})
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	if shape.Hidden == 0 {
		return fail(fs, stderr, 2, "give --hidden or --model")
	}
	var vals [2]costmodel.Seconds
	for i, s := range []string{*launch, *flagLat} {
		if vals[i], err = costmodel.ParseDuration(s); err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
	}
	bw, err := costmodel.ParseBandwidth(*peerBW)
	if err != nil {
		return fail(fs, stderr, 2, "--peer-bw: %v", err)
	}
	node, err := costmodel.NodeByName(*preset)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	r, err := costmodel.TPAllReduceQuery{Shape: shape, Batch: *batch, DType: *dtype, TP: *tp, Node: node, Family: *family, NVLS: *nvls,
		Custom:     costmodel.CustomAllReduce{Launch: float64(vals[0]), Flag: float64(vals[1]), Beta: bw.OneWay()},
		CustomNote: "launch " + *launch + ", flag " + *flagLat + ", peer bandwidth " + *peerBW + " (defaults: recorded runs latency-h200x1 and bandwidth-h200x2, NCCL's NVLink LL hop)",
		Backend: costmodel.BackendQuery{Capability: *cc, FullNVLink: *fullNVLink, P2P: true, MultiNode: *multiNode,
			CustomAR: *custom, TorchSymmMem: *torchSymm, NCCLSymmMem: *ncclSymm, FlashInfer: *flashinfer, CUDAGraph: *graph},
	}.Estimate()
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	db := r.DTypeBytes
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

// runModelKV is `commlab model kv`.
func runModelKV(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab model kv", stderr,
		"usage: commlab model kv [--model NAME] [--layers L --kv-heads H --head-dim D] [--dtype bf16] [--tokens T] [--bw B] [--lat L] [--json]",
		"KV cache bytes per token (layers x 2 x kv_heads x head_dim x dtype), per sequence and per layer, and the time to move them",
		"over a link (--bw), and over every link preset.",
		"models: "+modelNames())
	model := fs.String("model", "", "named model shape (sets --layers, --kv-heads, --head-dim)")
	var shape costmodel.ModelShape
	fs.IntVar(&shape.Layers, "layers", 0, "layers")
	fs.IntVar(&shape.KVHeads, "kv-heads", 0, "key/value heads (grouped-query attention)")
	fs.IntVar(&shape.HeadDim, "head-dim", 0, "head dimension")
	dtype := fs.String("dtype", "bf16", "cache dtype: bf16, fp16, fp8")
	tokens := fs.Int("tokens", 4096, "tokens of the sequence")
	bwFlag := fs.String("bw", "400Gb/s", "link bandwidth, e.g. 50GB/s or 400Gb/s (default: one NDR InfiniBand port, a GPU's own NIC)")
	lat := fs.String("lat", "0s", "cost per message (with --bw: one message whole, or one per layer)")
	jsonOut := fs.Bool("json", false, "print JSON")
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	shape, err := costmodel.FillModelShape(*model, shape)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	if _, err := costmodel.DTypeBytes(*dtype); err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	alpha, err := costmodel.ParseDuration(*lat)
	if err != nil {
		return fail(fs, stderr, 2, "--lat: %v", err)
	}
	bw, err := costmodel.ParseBandwidth(*bwFlag)
	if err != nil {
		return fail(fs, stderr, 2, "--bw: %v", err)
	}
	r, err := costmodel.KVTransferQuery{Shape: shape, DType: *dtype, Tokens: *tokens, Alpha: float64(alpha), Beta: bw.OneWay()}.Estimate()
	if err != nil {
		return fail(fs, stderr, 2, "%v (give --model or --layers, --kv-heads and --head-dim)", err)
	}
	db := r.DTypeBytes
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
