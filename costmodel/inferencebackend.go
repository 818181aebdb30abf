package costmodel

import (
	"flag"
	"fmt"
	"strings"

	"github.com/commlab/commlab/units"
)

// VLLMCommit is the vLLM commit whose all-reduce dispatch this file
// follows: vllm/distributed/device_communicators/cuda_communicator.py
// (CudaCommunicator.all_reduce), custom_all_reduce.py (CustomAllreduce:
// world sizes, size cap, should_custom_ar) and all_reduce_utils.py
// (CUSTOM_ALL_REDUCE_MAX_SIZES, SYMM_MEM_ALL_REDUCE_MAX_SIZES,
// NCCL_SYMM_MEM_ALL_REDUCE_CONFIG).
const VLLMCommit = "00d618aab60448acdf3fac3e9c4e2e22d0c6c753"

// Sources of the rules the commit above does not hold in the files read.
const (
	// VLLMKernelSource: the one-shot/two-shot rule inside the custom
	// all-reduce kernel launcher (CustomAllreduce::allreduce, REDUCE_CASE).
	VLLMKernelSource = "vllm-project/vllm csrc/custom_all_reduce.cuh at 036bb685581dbedcd6cf7fc845fe87268c7d1191 (CustomAllreduce::allreduce)"
	// VLLMSymmMemSource: torch symmetric memory's own rules (bf16 only,
	// size a multiple of 4, at most the table's size, needs NVLink
	// multicast, multimem at these world sizes, else two-shot).
	VLLMSymmMemSource = "vllm-project/vllm vllm/distributed/device_communicators/symm_mem.py at 00859a52088e757514a25dddd0214ccc89898a1c (SymmMemCommunicator)"
	// VLLMEnvSource: the defaults VLLM_ALLREDUCE_USE_SYMM_MEM=1,
	// VLLM_USE_NCCL_SYMM_MEM=0.
	VLLMEnvSource = "vllm-project/vllm vllm/envs.py (VLLM_ALLREDUCE_USE_SYMM_MEM default \"1\", VLLM_USE_NCCL_SYMM_MEM default \"0\")"
)

// Backends an engine's TP all_reduce can take, in vLLM's dispatch order.
const (
	BackendNCCLSymmMem = "nccl-symm-mem"
	BackendQuickReduce = "quick-reduce"
	BackendFlashInfer  = "flashinfer"
	BackendCustom      = "custom"
	BackendTorchSymm   = "torch-symm-mem"
	BackendPyNccl      = "pynccl"
)

const (
	kib = 1024
	mib = 1024 * 1024
)

// vLLM's all_reduce_utils.py tables at VLLMCommit, by compute capability
// and world size.
var (
	customARMaxSizes = map[string]map[int]float64{
		"9.0":  {2: 64 * mib, 4: 32 * mib, 6: mib / 2, 8: mib / 4},
		"10.0": {2: 2 * mib, 4: 2 * mib, 6: 1 * mib, 8: 1 * mib},
		"10.3": {2: 4 * mib, 4: 4 * mib, 6: 8 * mib, 8: 4 * mib},
	}
	symmMemMaxSizes = map[string]map[int]float64{
		"9.0":  {2: 64 * mib, 4: 32 * mib, 6: 64 * mib, 8: 64 * mib},
		"10.0": {2: 8 * mib, 4: 32 * mib, 6: 128 * mib, 8: 128 * mib},
		"10.3": {2: 4 * mib, 4: 32 * mib, 6: 32 * mib, 8: 64 * mib},
	}
	// NCCL_SYMM_MEM_ALL_REDUCE_CONFIG: from 4 GPUs; custom all-reduce
	// preferred strictly between these bounds; always above 8 GPUs.
	ncclSymmPreferCustom = map[int][2]float64{4: {16 * kib, 512 * kib}, 8: {16 * kib, 128 * kib}}
	// symm_mem.py _WORLD_SIZES_MULTIMEM.
	symmMultimemWorldSizes = map[string][]int{"9.0": {4, 6, 8}, "10.0": {6, 8}, "10.3": {6, 8}}
)

// CustomARDefaultMaxBytes is CustomAllreduce's max_size default, 8192 x
// 1024 bytes; inputs must be smaller.
const CustomARDefaultMaxBytes = 8 * mib

// BackendQuery describes one TP all_reduce and the machine it runs on.
type BackendQuery struct {
	// WorldSize is the TP group's size; Bytes the tensor's size; BF16 is
	// true when its dtype is bfloat16 (torch symmetric memory takes only
	// bf16).
	WorldSize int
	Bytes     float64
	BF16      bool
	// Capability is the GPUs' compute capability as vLLM writes it: "9.0"
	// (H100, H200), "10.0" (B200), "10.3" (B300), "8.0" (A100).
	Capability string
	// FullNVLink is true when every GPU pair has NVLink (NVSwitch or a full
	// mesh); P2P when CUDA peer access works (vLLM tests it); MultiNode
	// when the group spans nodes; ROCm for AMD GPUs.
	FullNVLink, P2P, MultiNode, ROCm bool
	// Multicast is NVLink multicast (NVLS) availability: torch symmetric
	// memory's communicator disables itself without it (the lab's machines
	// run with it off).
	Multicast bool
	// The engine's switches: CustomAR is vLLM's custom all-reduce (on
	// unless disable_custom_all_reduce); TorchSymmMem is
	// VLLM_ALLREDUCE_USE_SYMM_MEM (default on); NCCLSymmMem is
	// VLLM_USE_NCCL_SYMM_MEM (default off); FlashInfer is
	// VLLM_ALLREDUCE_USE_FLASHINFER (default off).
	CustomAR, TorchSymmMem, NCCLSymmMem, FlashInfer bool
	// CUDAGraph is true when the call is being captured into a CUDA graph.
	// It does not change the backend; it changes what the custom
	// all-reduce does with the input (see BackendChoice.Notes).
	CUDAGraph bool
}

// DefaultBackendQuery is an 8-GPU H100/H200 node with NVSwitch, vLLM's
// default switches, a bf16 tensor of the given size.
func DefaultBackendQuery(worldSize int, bytes float64) BackendQuery {
	return BackendQuery{WorldSize: worldSize, Bytes: bytes, BF16: true, Capability: "9.0",
		FullNVLink: true, P2P: true, Multicast: true, CustomAR: true, TorchSymmMem: true}
}

// BackendChoice is the backend vLLM's CudaCommunicator.all_reduce would
// take, and why.
type BackendChoice struct {
	Backend string
	// Algorithm is the kernel inside the backend where it is known:
	// "oneshot" or "twoshot" for the custom all-reduce and torch symmetric
	// memory ("multimem" there), "" otherwise.
	Algorithm string
	// Steps say, in dispatch order, why each earlier backend passed.
	Steps []string
	// Notes add what the choice implies (CUDA graphs, buffers, caps).
	Notes []string
	// CustomMaxBytes is the custom all-reduce's size cap in force (0 when
	// it is off).
	CustomMaxBytes float64 `unit:"B"`
}

// Reason is the choice's steps and notes in one line.
func (c BackendChoice) Reason() string {
	return strings.Join(append(append([]string(nil), c.Steps...), c.Notes...), "; ")
}

// ChooseBackend follows CudaCommunicator.all_reduce at VLLMCommit: NCCL
// symmetric memory, quick reduce (ROCm), FlashInfer, the custom
// all-reduce, torch symmetric memory, then PyNccl. It models the rules
// those files state; FlashInfer's and quick reduce's own size rules are not
// modelled (when switched on they are taken as accepting).
func ChooseBackend(q BackendQuery) (BackendChoice, error) {
	if q.WorldSize < 1 || q.Bytes < 0 {
		return BackendChoice{}, fmt.Errorf("%w: world size must be positive, bytes not negative", ErrParams)
	}
	var c BackendChoice
	ws, size := q.WorldSize, q.Bytes
	if ws == 1 {
		c.Backend = "none"
		c.Steps = append(c.Steps, "world size 1: no all_reduce is needed")
		return c, nil
	}
	// 1. NCCL symmetric memory (all_reduce_utils.should_nccl_symm_mem_allreduce).
	switch {
	case !q.NCCLSymmMem:
		c.Steps = append(c.Steps, "NCCL symmetric memory off (VLLM_USE_NCCL_SYMM_MEM=0, the default)")
	case ws < 4:
		c.Steps = append(c.Steps, fmt.Sprintf("NCCL symmetric memory needs 4 or more GPUs, not %d", ws))
	default:
		use := ws > 8
		if r, ok := ncclSymmPreferCustom[ws]; ok {
			use = size <= r[0] || size >= r[1]
			if !use {
				c.Steps = append(c.Steps, fmt.Sprintf("NCCL symmetric memory leaves %s to the custom all-reduce at %d GPUs (%s < size < %s)",
					sizeText(size), ws, sizeText(r[0]), sizeText(r[1])))
			}
		} else if !use {
			c.Steps = append(c.Steps, fmt.Sprintf("NCCL symmetric memory has no entry for %d GPUs", ws))
		}
		if use {
			c.Backend = BackendNCCLSymmMem
			c.Steps = append(c.Steps, "NCCL symmetric memory (ncclCommWindowRegister buffers, copy in and out)")
			return c, nil
		}
	}
	// 2. Quick reduce: ROCm MI300 only.
	if q.ROCm && q.CustomAR {
		c.Backend = BackendQuickReduce
		c.Steps = append(c.Steps, "ROCm: quick reduce (quantized all-reduce, MI300) is tried first; its own size rules are not modelled")
		return c, nil
	}
	c.Steps = append(c.Steps, "quick reduce is ROCm-only")
	// 3. FlashInfer.
	if q.FlashInfer {
		c.Backend = BackendFlashInfer
		c.Steps = append(c.Steps, "FlashInfer all-reduce on (VLLM_ALLREDUCE_USE_FLASHINFER=1); its workspace and size rules are not modelled")
		return c, nil
	}
	c.Steps = append(c.Steps, "FlashInfer all-reduce off (the default)")
	// 4. Custom all-reduce (custom_all_reduce.py).
	custom, why, cap := customAllReduceAccepts(q)
	c.CustomMaxBytes = cap
	if custom {
		c.Backend = BackendCustom
		c.Algorithm = customKernel(ws, q.FullNVLink, size)
		c.Steps = append(c.Steps, why)
		if q.CUDAGraph {
			c.Notes = append(c.Notes, "in CUDA-graph capture the input's own address is recorded and registered with the peers after capture (register_graph_buffers): no copy")
		} else {
			c.Notes = append(c.Notes, "eager: the input is first copied into the pre-registered IPC buffer (cudaMemcpy), then reduced")
		}
		return c, nil
	}
	c.Steps = append(c.Steps, why)
	// 5. torch symmetric memory (symm_mem.py).
	if ok, why, algo := torchSymmAccepts(q); ok {
		c.Backend = BackendTorchSymm
		c.Algorithm = algo
		c.Steps = append(c.Steps, why)
		return c, nil
	} else {
		c.Steps = append(c.Steps, why)
	}
	// 6. PyNccl.
	c.Backend = BackendPyNccl
	c.Steps = append(c.Steps, "PyNccl: NCCL through vLLM's own ctypes binding (its own stream, CUDA-graph capturable)")
	if q.MultiNode {
		c.Notes = append(c.Notes, "across nodes only NCCL remains: IPC and NVLink reach no further than the node")
	}
	return c, nil
}

// customAllReduceAccepts applies CustomAllreduce.__init__ and
// should_custom_ar; it returns the verdict, its reason and the size cap.
func customAllReduceAccepts(q BackendQuery) (bool, string, float64) {
	ws, size := q.WorldSize, q.Bytes
	switch {
	case !q.CustomAR:
		return false, "custom all-reduce disabled (disable_custom_all_reduce)", 0
	case q.MultiNode:
		return false, "custom all-reduce off: the group spans nodes (CUDA IPC is node-local)", 0
	case ws != 2 && ws != 4 && ws != 6 && ws != 8:
		return false, fmt.Sprintf("custom all-reduce off: world size %d is not 2, 4, 6 or 8", ws), 0
	case ws > 2 && !q.FullNVLink:
		return false, "custom all-reduce off: more than two GPUs without full NVLink (PCIe-only)", 0
	case !q.P2P:
		return false, "custom all-reduce off: GPU peer-to-peer access failed vLLM's check", 0
	}
	cap := float64(CustomARDefaultMaxBytes)
	note := ""
	// The cap shrinks when torch symmetric memory is enabled and working.
	if symmOn, _, _ := torchSymmEnabled(q); symmOn {
		if t, ok := customARMaxSizes[q.Capability]; ok {
			if v, ok := t[ws]; ok && v < cap {
				cap = v
				note = fmt.Sprintf(" (cap %s: CUSTOM_ALL_REDUCE_MAX_SIZES[%s][%d], torch symmetric memory being on)", sizeText(v), q.Capability, ws)
			}
		}
	}
	switch {
	case int64(size)%16 != 0:
		return false, "custom all-reduce skips inputs whose size is not a multiple of 16 bytes", cap
	case size >= cap:
		return false, fmt.Sprintf("custom all-reduce skips %s: not under its cap %s%s", sizeText(size), sizeText(cap), note), cap
	}
	return true, fmt.Sprintf("custom all-reduce: %d GPUs, %s under its cap %s%s", ws, sizeText(size), sizeText(cap), note), cap
}

// customKernel is CustomAllreduce::allreduce's kernel pick.
func customKernel(ws int, fullNVLink bool, size float64) string {
	switch {
	case ws == 2:
		return "oneshot"
	case fullNVLink && ((ws <= 4 && size < 512*kib) || (ws <= 8 && size < 256*kib)):
		return "oneshot"
	case fullNVLink:
		return "twoshot"
	}
	return "half-butterfly"
}

// torchSymmEnabled says whether SymmMemCommunicator initialises.
func torchSymmEnabled(q BackendQuery) (bool, string, float64) {
	switch {
	case !q.TorchSymmMem:
		return false, "torch symmetric memory off (VLLM_ALLREDUCE_USE_SYMM_MEM=0)", 0
	case q.ROCm:
		return false, "torch symmetric memory is CUDA-only", 0
	}
	t, ok := symmMemMaxSizes[q.Capability]
	if !ok {
		return false, fmt.Sprintf("torch symmetric memory has no table for compute capability %s", q.Capability), 0
	}
	max, ok := t[q.WorldSize]
	if !ok {
		return false, fmt.Sprintf("torch symmetric memory has no entry for %d GPUs", q.WorldSize), 0
	}
	if !q.Multicast {
		return false, "torch symmetric memory off: no NVLink multicast (multicast_ptr 0; NVLS disabled)", 0
	}
	return true, "", max
}

// torchSymmAccepts applies should_use_symm_mem and the algorithm pick.
func torchSymmAccepts(q BackendQuery) (bool, string, string) {
	on, why, max := torchSymmEnabled(q)
	if !on {
		return false, why, ""
	}
	switch {
	case !q.BF16:
		return false, "torch symmetric memory takes bfloat16 only", ""
	case int64(q.Bytes)%4 != 0:
		return false, "torch symmetric memory skips sizes not a multiple of 4 bytes", ""
	case q.Bytes > max:
		return false, fmt.Sprintf("torch symmetric memory skips %s: over its %s", sizeText(q.Bytes), sizeText(max)), ""
	}
	algo := "twoshot"
	for _, w := range symmMultimemWorldSizes[q.Capability] {
		if w == q.WorldSize {
			algo = "multimem"
		}
	}
	return true, fmt.Sprintf("torch symmetric memory (%s all-reduce), %s up to %s", algo, sizeText(q.Bytes), sizeText(max)), algo
}

// sizeText prints a size for a reason line: exact binary or SI form.
func sizeText(v float64) string { return units.FormatSize(int64(v)) }

// AddFlags defines on fs the flags of `commlab model tp-allreduce` that
// describe the machine and vLLM's switches, each setting one field of b;
// the defaults are vLLM's on an NVSwitch H100 or H200 node.
func (b *BackendQuery) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&b.Capability, "cc", "9.0", "compute capability as vLLM writes it: 8.0, 9.0, 10.0, 10.3")
	fs.BoolVar(&b.FullNVLink, "full-nvlink", true, "every GPU pair on NVLink (NVSwitch)")
	fs.BoolVar(&b.MultiNode, "multi-node", false, "the TP group spans nodes")
	fs.BoolVar(&b.CUDAGraph, "graph", false, "the call is captured in a CUDA graph")
	fs.BoolVar(&b.CustomAR, "custom", true, "vLLM's custom all-reduce enabled (disable_custom_all_reduce=False)")
	fs.BoolVar(&b.TorchSymmMem, "torch-symm-mem", true, "VLLM_ALLREDUCE_USE_SYMM_MEM (default 1)")
	fs.BoolVar(&b.NCCLSymmMem, "nccl-symm-mem", false, "VLLM_USE_NCCL_SYMM_MEM (default 0)")
	fs.BoolVar(&b.FlashInfer, "flashinfer", false, "VLLM_ALLREDUCE_USE_FLASHINFER (default 0)")
}
