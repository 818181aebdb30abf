#!/bin/bash
# doctor_live.sh runs commlab doctor live on a GPU machine, for the record:
# once as the machine is (the healthy report, kept as a baseline), once with
# a deprecated PyTorch name and settings that mask faults in the environment
# (NCCL_P2P_DISABLE, NCCL_IB_DISABLE) and --baseline against the first, so
# the environment lint and the baseline comparison run on a real machine.
# Writes under $1 (default $OUT/h-doctor/live): each run's --out directory
# (report.html, report.json, report.txt, topology.json, the probes' runs and
# logs), its stdout/stderr and exit status, and PROVENANCE.txt. Needs a
# commlab binary built from this branch with CGO_ENABLED=1 at
# .devicebin/commlab (or $COMMLAB_BIN). Never stops at a failing step.
set -u
dst=${1:-$OUT/h-doctor/live}
mkdir -p "$dst"
bin=${COMMLAB_BIN:-.devicebin/commlab}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [ -z "${COMMLAB_NCCL:-}" ]; then
  COMMLAB_NCCL=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null) && export COMMLAB_NCCL
fi
prov="$dst/PROVENANCE.txt"
{
  echo "script: probes/gpubench/doctor_live.sh"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "binary: $bin ($("$bin" version 2>&1))"
  nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())' 2>&1
  echo "COMMLAB_NCCL=${COMMLAB_NCCL:-}"
  echo "env: NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST=$TORCH_SYMM_MEM_DISABLE_MULTICAST NVSHMEM_DISABLE_NVLS=$NVSHMEM_DISABLE_NVLS"
  echo "whoami: $(id -un)"
  echo "--- steps"
} > "$prov"
step() {
  local name=$1; shift
  local t0=$(date +%s)
  timeout 170 "$@" > "$dst/$name.stdout" 2> "$dst/$name.stderr"
  local rc=$?
  printf 'step %-8s rc=%-3s %3ss  %s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" "$*" >> "$prov"
}
step healthy "$bin" doctor --out "$dst/healthy"
step masked env TORCH_NCCL_TRACE_BUFFER_SIZE=2000 NCCL_P2P_DISABLE=1 NCCL_IB_DISABLE=1 \
  "$bin" doctor --out "$dst/masked" --baseline "$dst/healthy/report.json"
echo "--- end $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$prov"
