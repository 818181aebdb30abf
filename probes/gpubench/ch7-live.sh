#!/bin/bash
# ch7-live.sh checks chapter 7 live on a GPU machine, with a commlab binary
# built from this tree at .devicebin/commlab (CGO_ENABLED=1): commlab's own
# custom all-reduce through `commlab probe custom-allreduce` (nvcc builds it
# into the cache; two processes share GPU 0 on a one-GPU machine), then the
# whole chapter run headless with its Measure cells in auto mode (live where
# they can be). Outputs under $OUT/h-ch7-2 with provenance.txt and a log per
# step; no step stops the others.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
R=${OUT:?set OUT}/h-ch7-2
mkdir -p "$R"
B=${B:-.devicebin/commlab}
command -v nvcc >/dev/null || export PATH=$PATH:/usr/local/cuda/bin
export COMMLAB_NCCL=${COMMLAB_NCCL:-$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)}
{
	echo "# chapter 7 live check (probes/gpubench/ch7-live.sh)"
	echo "date_utc: $(date -u +%FT%TZ)"
	echo "--- nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_mode --format=csv"
	nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_mode --format=csv 2>&1
	echo "--- nvcc --version"
	nvcc --version 2>&1 | tail -2
	echo "--- commlab version"
	$B version 2>&1
	echo "COMMLAB_NCCL=$COMMLAB_NCCL"
	echo "--- steps"
} > "$R/provenance.txt"
step() { # step NAME TIMEOUT CMD...
	local name=$1 t=$2; shift 2
	echo "=== $(date -u +%FT%TZ) $name: $*" | tee -a "$R/steps.log" >> "$R/provenance.txt"
	timeout "$t" "$@" > "$R/$name.log" 2>&1
	echo "    $name rc=$?" | tee -a "$R/steps.log"
}
step customar 120 $B probe custom-allreduce --ranks 2 --iters 5 --warmup 1 --timeout 15s --cache-dir "$R/cache" --save "$R/custom-allreduce-live.json"
step customar-ws1 60 $B probe custom-allreduce --ranks 1 --iters 50 --warmup 5 --cache-dir "$R/cache" --save "$R/custom-allreduce-live-ws1.json"
step chapter 240 $B run --out "$R/run" --html chapters/07-inference.md
rm -rf "$R/cache"
echo "=== $(date -u +%FT%TZ) end" | tee -a "$R/steps.log" >> "$R/provenance.txt"
exit 0
