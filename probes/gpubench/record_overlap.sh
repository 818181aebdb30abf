#!/bin/bash
# record_overlap.sh records chapter 5's overlap benchmark on a GPU machine:
# the variants' step times and torch.profiler traces, and the core question's
# cases with and without TORCH_NCCL_BLOCKING_WAIT=1 and with
# TORCH_NCCL_AVOID_RECORD_STREAMS=1. Run from the repository root; needs
# python3 with PyTorch, no commlab binary. Writes everything under
# $OUT/h-ch5/ (provenance.txt, steps.log, one folder and one log per step)
# and goes on past a failing step (its rc is in steps.log). About two minutes
# on one H200; every step has its own timeout, all of them together under 4.
set -u
D=${OUT:?OUT must name the output folder}/h-ch5
mkdir -p "$D"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
B=probes/launch/bench_overlap.py
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${NGPU:-0}" -gt 1 ]; then L="torchrun --standalone --nproc-per-node $NGPU"; else L="python3"; fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "script: $B sha256 $(sha256sum "$B" | cut -d' ' -f1)"
  echo "recorder: $0 sha256 $(sha256sum "$0" | cut -d' ' -f1)"
  echo "launcher: $L"
  echo "--- nvidia-smi --query-gpu=name,driver_version --format=csv"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "--- torch"
  python3 -c 'import torch, sys; print("python", sys.version.split()[0]); print("torch", torch.__version__); print("torch.version.git_version", torch.version.git_version); print("torch.version.cuda", torch.version.cuda); print("torch.cuda.nccl.version", torch.cuda.nccl.version()); print("gpus", torch.cuda.device_count())'
  echo "--- nvcc --version"
  nvcc --version 2>&1 | tail -2
  echo "--- env"
  env | grep -E '^(NCCL_|TORCH_|CUDA_|PYTORCH_)' | sort
} > "$D/provenance.txt" 2>&1
step() { # name timeout env... -- args...
  local name=$1 t=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  mkdir -p "$D/$name"
  local cmd="env ${envs[*]} timeout $t $L $B --out $D/$name $*"
  echo "=== $(date -u +%H:%M:%S) $name: $cmd" | tee -a "$D/steps.log" "$D/provenance.txt"
  env "${envs[@]}" timeout "$t" $L "$B" --out "$D/$name" "$@" > "$D/$name.log" 2>&1
  local rc=$?
  echo "=== $(date -u +%H:%M:%S) $name rc=$rc" | tee -a "$D/steps.log"
  tail -4 "$D/$name.log"
}
# 1. the variants, one rank: all_gather_into_tensor out of place (a device copy)
step variants 60 MASTER_PORT=29541 -- --what variants
# 2. the core question, three ways; TORCH_CPP_LOG_LEVEL=INFO makes ProcessGroupNCCL log the settings it read
step cq-default 40 MASTER_PORT=29542 TORCH_CPP_LOG_LEVEL=INFO -- --what cq
step cq-blocking-wait 40 MASTER_PORT=29543 TORCH_CPP_LOG_LEVEL=INFO TORCH_NCCL_BLOCKING_WAIT=1 -- --what cq
step cq-avoid-record-streams 40 MASTER_PORT=29544 TORCH_CPP_LOG_LEVEL=INFO TORCH_NCCL_AVOID_RECORD_STREAMS=1 -- --what cq
# 3. every variant again with an AVG all_reduce: on one rank NCCL's PreMulSum kernel runs on the
# SMs beside the GEMMs, where the device copy of step 1 barely overlaps them
step variants-allreduce-avg 60 MASTER_PORT=29545 -- --what variants --coll all_reduce
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv >> "$D/provenance.txt" 2>&1
du -sh "$D" | tee -a "$D/steps.log"
