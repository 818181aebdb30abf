#!/bin/bash
# capture.sh records raw tool outputs on a GPU machine for the parsers'
# fixtures (probes/testdata/h200). Run from the repository root; writes
# everything under $1 (default $OUT/cap) and tars it to $OUT/captures.tar.gz.
set -u
dst=${1:-$OUT/cap}
mkdir -p "$dst"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -a)"
  echo "nproc: $(nproc)"
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total --format=csv,noheader
  nvcc --version 2>&1 | tail -2
  python3 -c 'import torch,sys; print("python", sys.version.split()[0]); print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version()); print("gpus", torch.cuda.device_count())'
  for t in all_reduce_perf all_gather_perf nvbandwidth ib_write_bw ib_read_bw ib_write_lat mpirun srun torchrun; do printf '%s: %s\n' "$t" "$(command -v $t || echo absent)"; done
  find / -xdev \( -name 'all_reduce_perf*' -o -name 'nvbandwidth*' -o -name 'ib_write_bw*' \) -type f 2>/dev/null | head
  echo "--- libs"
  ldconfig -p | grep -E 'libcuda\.so|libcudart|libnccl' 
  find / -xdev \( -name 'libcudart.so*' -o -name 'libnccl.so*' -o -name 'libcuda.so*' \) 2>/dev/null | head -40
  lscpu | head -20
} > "$dst/environment.txt" 2>&1
nvidia-smi topo -m > "$dst/nvidia-smi-topo-m.txt" 2>&1
nvidia-smi -q > "$dst/nvidia-smi-q.txt" 2>&1
nvidia-smi --version > "$dst/nvidia-smi-version.txt" 2>&1
nvidia-smi > "$dst/nvidia-smi.txt" 2>&1
# One-GPU torch.distributed run: NCCL log, topology and graph XML, Flight Recorder dump.
ngpu=$(nvidia-smi -L | grep -c '^GPU')
if [ "$ngpu" -gt 1 ]; then launch="torchrun --standalone --nproc-per-node $ngpu"; else launch="python3"; fi
MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 \
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING NCCL_DEBUG_FILE="$dst/torch-allreduce-nccl-debug.%h.%p.log" \
NCCL_TOPO_DUMP_FILE="$dst/nccl-topo-dump.xml" NCCL_GRAPH_DUMP_FILE="$dst/nccl-graph-dump.xml" NCCL_GRAPH_DUMP_FILE_RANK=0 \
TORCH_NCCL_TRACE_BUFFER_SIZE=2000 PYTHONUNBUFFERED=1 \
  $launch "$here/torch_capture.py" "$dst" > "$dst/torch-capture-stdout.txt" 2>&1
echo "torch_capture rc=$?" >> "$dst/environment.txt"
tar -C "$dst/.." -czf "$OUT/captures.tar.gz" "$(basename "$dst")"
