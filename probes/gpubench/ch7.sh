#!/bin/bash
# ch7.sh records chapter 7's runs on a GPU machine in one go, from the
# repository root, with no commlab binary and no Go:
#   1. builds probes/customar/program/customar.cu with nvcc;
#   2. runs it as one rank (no IPC: the kernels' own floor), then as two
#      processes on GPU 0 sharing buffers through CUDA IPC (time-sliced
#      without MPS: proves the sums, not cross-GPU memory ordering), then, on
#      a machine of several GPUs, one rank per GPU;
#   3. runs probes/gpubench/ch7_torch.py: NCCL all_reduce and all_gather
#      8 B..8 MiB plain and in CUDA graphs, KV-sized copies 16 MiB..2 GiB.
# Everything goes under $OUT/h-ch7 with provenance.txt (commands, date,
# GPU, driver, nvcc, torch, CUDA, NCCL) and one log per step. No step stops
# the others: each one's exit status is in steps.log.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=${OUT:?set OUT}/h-ch7
mkdir -p "$R"
W=$(mktemp -d)
SRC=probes/customar/program/customar.cu
P=$R/provenance.txt
step() { # step NAME TIMEOUT CMD...: run, log, record status
	local name=$1 t=$2; shift 2
	echo "=== $(date -u +%FT%TZ) $name: $*" | tee -a "$R/steps.log" >> "$P"
	timeout "$t" "$@" > "$R/$name.log" 2>&1
	local rc=$?
	echo "    $name rc=$rc" | tee -a "$R/steps.log"
	return $rc
}
{
	echo "# chapter 7 recording (probes/gpubench/ch7.sh)"
	echo "date_utc: $(date -u +%FT%TZ)"
	echo "script_sha256: $(sha256sum "$0" | cut -c1-12)  customar.cu sha256: $(sha256sum "$SRC" | cut -c1-12)"
	echo "env: NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST=$TORCH_SYMM_MEM_DISABLE_MULTICAST NVSHMEM_DISABLE_NVLS=$NVSHMEM_DISABLE_NVLS CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY:-unset}"
	echo "--- nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_mode,clocks.max.sm --format=csv"
	nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_mode,clocks.max.sm --format=csv 2>&1
	echo "--- nvidia-smi topo -m"
	nvidia-smi topo -m 2>&1
	echo "--- nvcc --version"
	nvcc --version 2>&1
	echo "--- python3 torch"
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", ".".join(map(str, torch.cuda.nccl.version())))' 2>&1
	echo "--- pgrep nvidia-cuda-mps (MPS daemon running?)"
	pgrep -a nvidia-cuda-mps || echo "no MPS daemon"
	echo "--- steps"
} > "$P"
command -v nvcc >/dev/null || export PATH=$PATH:/usr/local/cuda/bin
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')

# 1. build
if ! step build-native 90 nvcc -O3 -std=c++17 -arch=native -o "$W/customar" "$SRC"; then
	step build-sm90 90 nvcc -O3 -std=c++17 -arch=sm_90 -o "$W/customar" "$SRC"
fi
B=$W/customar

# 2. custom all-reduce
if [ -x "$B" ]; then
	step customar-ws1 60 "$B" --rank 0 --nranks 1 --min 8 --max 8M --iters 50 --warmup 5
fi

# 3. (before the IPC runs, so a slow time-sliced run cannot crowd it out) NCCL latency (plain, CUDA graphs) and KV-sized copies through PyTorch
if [ "$NGPU" -gt 1 ]; then
	step torch-nccl 90 torchrun --standalone --nproc-per-node "$NGPU" probes/gpubench/ch7_torch.py --what nccl --out "$R/torch-nccl-x$NGPU.json"
fi
step torch-1gpu 110 env CUDA_VISIBLE_DEVICES=0 python3 probes/gpubench/ch7_torch.py --what nccl,kv --out "$R/torch-ch7-x1.json"

if [ -x "$B" ]; then
	# two processes, one GPU: each waits on the other once per time slice
	D=$(mktemp -d)
	echo "=== $(date -u +%FT%TZ) customar-ws2-1gpu: rank 0 and rank 1 of: $B --rank R --nranks 2 --dir $D --device 0 --min 8 --max 8M --iters 5 --warmup 1 --timeout-ms 15000" | tee -a "$R/steps.log" >> "$P"
	for r in 0 1; do
		timeout 75 "$B" --rank $r --nranks 2 --dir "$D" --device 0 --min 8 --max 8M --iters 5 --warmup 1 --timeout-ms 15000 > "$R/customar-ws2-1gpu-rank$r.log" 2>&1 &
		eval "pid$r=$!"
	done
	wait $pid0; rc0=$?; wait $pid1; rc1=$?
	echo "    customar-ws2-1gpu rc=$rc0,$rc1" | tee -a "$R/steps.log"
	if [ "$NGPU" -gt 1 ]; then
		D=$(mktemp -d)
		echo "=== $(date -u +%FT%TZ) customar-ws$NGPU: $B --rank R --nranks $NGPU --dir $D --min 8 --max 8M" | tee -a "$R/steps.log" >> "$P"
		pids=""
		for r in $(seq 0 $((NGPU - 1))); do
			timeout 60 "$B" --rank $r --nranks $NGPU --dir "$D" --min 8 --max 8M --iters 50 --warmup 5 > "$R/customar-ws$NGPU-rank$r.log" 2>&1 &
			pids="$pids $!"
		done
		rcs=""; for p in $pids; do wait $p; rcs="$rcs$?,"; done
		echo "    customar-ws$NGPU rc=$rcs" | tee -a "$R/steps.log"
fi
fi

# 4. the same program through commlab, when a commlab built from this branch is at .devicebin/commlab
if [ -x .devicebin/commlab ] && .devicebin/commlab probe custom-allreduce -h > /dev/null 2>&1; then
	step commlab-customar 90 .devicebin/commlab probe custom-allreduce --ranks 2 --iters 5 --warmup 1 --timeout 15s --save "$R/commlab-customar-ws2.json"
fi

echo "=== $(date -u +%FT%TZ) end" | tee -a "$R/steps.log" >> "$P"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >> "$P" 2>&1
rm -rf "$W"
exit 0
