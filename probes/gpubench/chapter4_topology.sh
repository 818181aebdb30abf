#!/bin/bash
# chapter4_topology.sh records chapter 4's own runs on a GPU machine: NCCL's
# topology and graph dumps with an INIT,GRAPH,TUNING log, the topology edit
# exercise (commlab probe nccl --topo-edit), and NCCL_ALGO forced in turn.
# Run from the repository root with the commlab binary at .devicebin/commlab;
# results go to $OUT/ch4 (runs saved as JSON, printed output as .txt).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
B=${B:-.devicebin/commlab}
D=$OUT/ch4
mkdir -p "$D"
export COMMLAB_NCCL=${COMMLAB_NCCL:-$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)}
NGPU=$(nvidia-smi -L | grep -c '^GPU')
# Runs are named after the GPU present (h100x1, h200x2).
. "$(dirname "$0")/gpu_tag.sh"
TAG=$(gpu_tag "$NGPU")
SUB="--debug-subsys INIT,GRAPH,TUNING,ENV"
log() { echo "=== $(date -u +%H:%M:%S) $*" | tee -a "$D/steps.log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$D/gpu.csv" 2>&1
log topology dump
timeout 120 $B probe nccl --coll all_reduce -b 8 -e 64M -f 4 --topo-dump $SUB --save "$D/nccl-$TAG-topo-dump.json" > "$D/topo-dump.txt" 2>&1; echo "rc=$?" >> "$D/topo-dump.txt"
for e in nic-remote-cpu no-nic nic-speed=1000 nvlink-count=0; do
  name=${e//=/-}
  log topology edit $e
  timeout 120 $B probe nccl --coll all_reduce -b 8 -e 1M -f 8 --topo-edit "$e" $SUB --save "$D/nccl-$TAG-topo-edit-$name.json" > "$D/topo-edit-$name.txt" 2>&1; echo "rc=$?" >> "$D/topo-edit-$name.txt"
done
for a in Ring Tree; do
  log algo $a
  timeout 120 $B probe nccl --coll all_reduce -b 8 -e 64M -f 4 --algo $a $SUB --save "$D/nccl-$TAG-algo-$a.json" > "$D/algo-$a.txt" 2>&1; echo "rc=$?" >> "$D/algo-$a.txt"
done
log done
tail -n 3 "$D"/*.txt
