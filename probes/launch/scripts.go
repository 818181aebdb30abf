package launch

import _ "embed"

// The PyTorch scripts commlab embeds, one Script each: their sources live
// beside this file, and each doc comment lists the script's own flags.

//go:embed bench_torch.py
var torchBench []byte

// TorchBench is the PyTorch reference for commlab probe bandwidth|nccl
// --compare: copies and collectives timed as commlab times them, written
// as a commlab Run (its --out file). Its flags: --what copy,nccl; --out
// FILE (required); --copy-min, --copy-max, --nccl-min, --nccl-max (bytes);
// --colls; --warmup, --iters, --reps. python3 runs it on one GPU, torchrun
// on several; it reads torchrun's RANK and LOCAL_RANK, so mpirun and srun
// are refused.
var TorchBench = Script{Name: "bench_torch.py", source: torchBench, TorchrunOnly: "torchrun's RANK and LOCAL_RANK"}

//go:embed bench_overlap.py
var overlapBench []byte

// OverlapBench is chapter 5's overlap micro-benchmark: GEMMs on the
// compute stream under a collective on ProcessGroupNCCL's stream, the
// variants that break the overlap, and the core question's cases, each
// recorded as a torch.profiler trace; probes/overlap reads what it writes.
// Its flags: --out DIR (required); --what variants,cq; --variants LIST;
// --coll; --bytes; --gemm; --gemms; --steps; --trace-steps; --cq-bytes;
// --cq-gemms; --cases (core-question cases to run); --start-after FILE
// (wait for FILE before touching the GPU). python3 runs it on one GPU,
// torchrun on several; mpirun and srun are refused.
var OverlapBench = Script{Name: "bench_overlap.py", source: overlapBench, TorchrunOnly: "torchrun's LOCAL_RANK"}

//go:embed c10d_lab.py
var c10dLab []byte

// C10dLab is chapter 5's c10d experiments: the rendezvous store's
// traffic, coalesced against separate small collectives, a collective
// timeout under each TORCH_NCCL_ASYNC_ERROR_HANDLING value, and a
// functional collective under torch.compile. It starts its own ranks (gloo
// on CPU, or NCCL on the GPUs here) and writes summary.json; probes/c10dlab
// reads it. Its flags: --out DIR (required); --backend gloo|nccl; --parts
// store,coalesce,timeout,compile; --world N; --timeout S; --stall S;
// --modes LIST; --counts; --sizes; --iters; --warmup; --keep-work.
var C10dLab = Script{Name: "c10d_lab.py", source: c10dLab}

//go:embed kv_nixl.py
var kvNixl []byte

// KVNixl is chapter 7's KV transfer through NIXL on one GPU: a KV-sized
// buffer written from device to pinned host memory and read back by two
// NIXL agents in one process, whole and one descriptor per layer, beside
// the same copies through PyTorch; probes/kvxfer reads what it writes. Its
// flags: --out FILE (required); --min, --max (sizes: 16M, 2G); --layers N;
// --reps N; --warmup N; --backend NAME (UCX); --device N.
var KVNixl = Script{Name: "kv_nixl.py", source: kvNixl}

//go:embed hang_torch.py
var hangTorch []byte

// HangLab is chapter 6's hang lab: collective hangs staged on purpose on
// CPU ranks (gloo) with PyTorch's Flight Recorder on; its driver starts the
// ranks with torchrun, takes every rank's stack with faulthandler, lets the
// ranks time out and dump, and runs PyTorch's fr_trace on the dumps. Its
// flags are HangOptions'; RunHangLab runs it.
var HangLab = Script{Name: "hang_torch.py", source: hangTorch}
