#!/bin/bash
# multigpu.sh records issue 21's runs on a machine of several GPUs, in the
# issue's order, each part through the script or probe that already records
# it on one GPU. Run from the repository root with the commlab binary at
# .devicebin/commlab; results under $OUT (one folder per part). PARTS picks
# parts (default all, in this order):
#   sweep     chapter 1: every protocol forced and auto on all GPUs and on one,
#             with INIT,GRAPH,TUNING logs (device_run.sh protos)
#   hang      chapter 6: NCCL hangs across GPUs ended by the timeout and
#             ncclCommAbort (device_run.sh hang: unpaired send, stalled stream)
#   customar  chapter 7: the custom all-reduce one rank per GPU, 8 B to 8 MiB
#   overlap   chapter 5: the overlap benchmark under torchrun (record_overlap.sh)
#   topo      chapter 4: the topology edits, nvlink-count=0 included, and
#             NCCL_ALGO forced (chapter4_topology.sh)
#   p2p       chapter 2: the peer-to-peer matrix, read and write, one way and both
#   torch     the all_gather at 4 and 16 MiB against PyTorch in the same call
#             (device_run.sh nccl)
# Keep NVLink multicast off everywhere (exported here for every child).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export B=${B:-$PWD/.devicebin/commlab}
export COMMLAB_NCCL=${COMMLAB_NCCL:-$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)}
export PATH=/usr/local/cuda/bin:$PATH
ROOT=${OUT:?set OUT}
PARTS=${PARTS:-sweep hang customar overlap topo p2p torch}
NGPU=$(nvidia-smi -L | grep -c '^GPU')
# Runs are named after the GPU present (h100x2, h200x8).
. "$(dirname "$0")/gpu_tag.sh"
TAG=$(gpu_tag "$NGPU")
mkdir -p "$ROOT"
{
  date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv
  nvidia-smi topo -m
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'
  $B version; echo "COMMLAB_NCCL=$COMMLAB_NCCL"; echo "PARTS=$PARTS"
} > "$ROOT/provenance.txt" 2>&1
[ "$NGPU" -gt 1 ] || echo "only $NGPU GPU here: every part runs, but what it records is the one-GPU case" | tee -a "$ROOT/provenance.txt"
part() { case " $PARTS " in *" $1 "*) echo "=== $(date -u +%T) $1" | tee -a "$ROOT/parts.log"; return 0;; esac; return 1; }
done_part() { echo "    $1 rc=$2" | tee -a "$ROOT/parts.log"; }
if part sweep; then
  OUT=$ROOT/sweep STEPS="protos" timeout 560 bash probes/gpubench/device_run.sh > "$ROOT/sweep.log" 2>&1; done_part sweep $?
fi
if part hang; then
  OUT=$ROOT/hang STEPS="hang" timeout 200 bash probes/gpubench/device_run.sh > "$ROOT/hang.log" 2>&1; done_part hang $?
fi
if part customar; then
  mkdir -p "$ROOT/customar"
  timeout 300 $B probe custom-allreduce --ranks "$NGPU" --iters 50 --warmup 5 -b 8 -e 8M --save "$ROOT/customar/custom-allreduce-$TAG.json" > "$ROOT/customar/run.txt" 2>&1; done_part customar $?
fi
if part overlap; then
  OUT=$ROOT/overlap timeout 300 bash probes/gpubench/record_overlap.sh > "$ROOT/overlap.log" 2>&1; done_part overlap $?
fi
if part topo; then
  OUT=$ROOT/topo timeout 300 bash probes/gpubench/chapter4_topology.sh > "$ROOT/topo.log" 2>&1; done_part topo $?
fi
if part p2p; then
  mkdir -p "$ROOT/p2p"
  timeout 300 $B probe bandwidth -b 1M -e 1G -f 4 --ops p2p_write,p2p_read,p2p_write_bidir,p2p_read_bidir --save "$ROOT/p2p/bandwidth-p2p-$TAG.json" > "$ROOT/p2p/run.txt" 2>&1; done_part p2p $?
fi
if part torch; then
  OUT=$ROOT/torch STEPS="nccl" timeout 560 bash probes/gpubench/device_run.sh > "$ROOT/torch.log" 2>&1; done_part torch $?
fi
echo "=== $(date -u +%T) done" | tee -a "$ROOT/parts.log"
