#!/bin/bash
# record_ch6.sh records chapter 6 on a GPU machine with PyTorch, in one go,
# in under four minutes: the hang lab on CPU ranks (gloo, Flight Recorder on:
# sizes, order, count, unpaired send, two communicators; then the core
# question, 64 ranks of which one never calls all_reduce #3000), PyTorch's
# fr_trace on every dump set, and NCCL_ALGO / NCCL_PROTO / NCCL_MAX_NCHANNELS
# variants of commlab's NCCL probe on the GPUs present (on one GPU these are
# the launch and copy floor). Every step runs whatever the others did; its
# exit status goes to steps.log, its output to a log of its own.
#
# Run from the repository root with the commlab binary at .devicebin/commlab
# (or B=path): bash probes/gpubench/record_ch6.sh. PARTS picks the parts
# (default "hang nccl core"; the sources torch ships for the Flight
# Recorder are always copied). Writes under $OUT/h-ch6/:
# provenance.txt, steps.log, and three archives (hang-small.tar.xz,
# hang-core.tar.xz, nccl.tar.xz) that keep the file tree whole.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
B=${B:-.devicebin/commlab}
HANG=probes/launch/hang_torch.py
R="$OUT/h-ch6"
W=$(mktemp -d /tmp/ch6.XXXXXX)
mkdir -p "$R" "$W/hang" "$W/nccl" "$W/logs"
T0=$(date +%s)
PARTS=${PARTS:-hang nccl core}
part() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
PROV="$R/provenance.txt"
el() { echo $(( $(date +%s) - T0 )); }
note() { echo "=== $(date -u +%H:%M:%S) +$(el)s $*" | tee -a "$R/steps.log"; }
# step NAME CMD...: run, log to $W/logs/NAME.log, record command and exit.
step() {
  local name=$1; shift
  note "$name: $*"
  echo "$name: $*" >> "$W/commands.txt"
  "$@" > "$W/logs/$name.log" 2>&1
  local rc=$?
  note "$name: exit $rc"
  return 0
}

{
  echo "# chapter 6 recording (probes/gpubench/record_ch6.sh)"
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git: $(git rev-parse HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | wc -l) changed files"
  echo "--- nvidia-smi --query-gpu=name,driver_version --format=csv"
  nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1
  echo "--- nvidia-smi -L"; nvidia-smi -L 2>&1
  echo "--- torch"
  python3 -c 'import torch, sys; print("python", sys.version.split()[0]); print("torch.__version__", torch.__version__); print("torch.version.cuda", torch.version.cuda); print("torch.cuda.nccl.version()", torch.cuda.nccl.version()); print("gloo available", torch.distributed.is_gloo_available())' 2>&1
  echo "--- nvcc --version"; nvcc --version 2>&1 | tail -2
  echo "--- nproc: $(nproc)"
  echo "--- commlab: $B"; $B version 2>&1 | head -3
  echo "--- COMMLAB_NCCL"
} > "$PROV"
TORCH_NCCL=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
export COMMLAB_NCCL=${COMMLAB_NCCL:-$TORCH_NCCL}
echo "COMMLAB_NCCL=$COMMLAB_NCCL" >> "$PROV"
echo "environment: NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1" >> "$PROV"
echo "parts: $PARTS" >> "$PROV"
# torch's own defaults and Flight Recorder sources, as installed (the
# chapter cites them by this version).
python3 - >> "$PROV" 2>&1 <<'PY'
import torch, torch.distributed.constants as c, inspect, os
print("default_pg_timeout", c.default_pg_timeout)
print("default_pg_nccl_timeout", getattr(c, "default_pg_nccl_timeout", None))
import torch.distributed.flight_recorder as fr
print("flight_recorder package", os.path.dirname(fr.__file__))
try:
    print("_dump_fr_trace doc:", torch._C._distributed_c10d._dump_fr_trace.__doc__.splitlines()[0])
except Exception as e:
    print("_dump_fr_trace doc:", e)
PY
FRDIR=$(python3 -c 'import torch.distributed.flight_recorder as fr, os; print(os.path.dirname(fr.__file__))' 2>/dev/null)
[ -n "$FRDIR" ] && (cd "$(dirname "$FRDIR")" && tar -cf "$W/fr-sources.tar" --exclude=__pycache__ flight_recorder) 2>>"$PROV"

# 1. The five small hangs, two ranks each (one with two groups), all at once:
# they spend their time blocked, waiting for a 10 s timeout.
note "hang lab: 5 scenarios in parallel, gloo, 2 ranks, timeout 10 s"
pids=""
part hang || note "hang lab: skipped (PARTS)"
for s in $(part hang && echo size order count unpaired two_comms); do
  step "hang-$s" timeout 75 python3 "$HANG" run --scenario "$s" --out "$W/hang/$s" --timeout 10 --deadline 55 --fr-trace-timeout 15 &
  pids="$pids $!"
done

# 2. Meanwhile, on the GPU: NCCL variants through commlab's own probe. On one
# GPU NCCL runs its collectives as device copies: the launch and copy floor,
# not a ring, whatever NCCL_ALGO says; the logs show what NCCL read.
NARGS="--coll all_reduce -b 8 -e 256M -f 4 --debug INFO --debug-subsys INIT,ENV,TUNING"
nccl() { local name=$1; shift; step "nccl-$name" timeout 40 $B probe nccl $NARGS "$@" --save "$W/nccl/$name.json"; }
if part nccl; then
nccl auto
nccl algo-Ring --algo Ring
nccl algo-Tree --algo Tree
nccl proto-LL --proto LL
nccl proto-LL128 --proto LL128
nccl proto-Simple --proto Simple
nccl nchannels-1 --nchannels 1
nccl nchannels-4 --nchannels 4
# NCCL_DEBUG_FILE: one file per process (%h host, %p pid).
mkdir -p "$W/nccl/debugfile"
nccl debugfile --env "NCCL_DEBUG_FILE=$W/nccl/debugfile/nccl.%h.%p.log"
fi
note "waiting for the hang lab"
wait $pids
note "hang lab done"

# 3. The core question at its own scale: 64 CPU ranks, 3000 all_reduces, rank
# 37 stuck in its data loader at step 3000; timeout 20 s.
# Steps before the hang run as async all_reduces (a window of 16) and get
# 45 s; slower than that, rank 0 moves the hang earlier and says so.
part core && step hang-core timeout 200 python3 "$HANG" run --scenario core --nproc 64 --steps ${CORE_STEPS:-3000} --hang-at ${CORE_STEPS:-3000} --stuck-rank 37 --timeout 20 --stuck-extra 6 --step-budget 45 --deadline 130 --fr-trace-timeout 20 --out "$W/hang/core"

# 4. Pack: few files come back, so archives keep the trees.
cp "$W/commands.txt" "$R/commands.txt"
note "packing"
part hang && ( cd "$W" && XZ_OPT="-T0 -6" tar -cJf "$R/hang-small.tar.xz" hang/size hang/order hang/count hang/unpaired hang/two_comms logs/hang-size.log logs/hang-order.log logs/hang-count.log logs/hang-unpaired.log logs/hang-two_comms.log commands.txt ) 2>&1 | tail -3
part core && ( cd "$W" && XZ_OPT="-T0 -6" tar -cJf "$R/hang-core.tar.xz" hang/core logs/hang-core.log ) 2>&1 | tail -3
part nccl && ( cd "$W" && XZ_OPT="-T0 -6" tar -cJf "$R/nccl.tar.xz" nccl logs/nccl-*.log ) 2>&1 | tail -3
[ -f "$W/fr-sources.tar" ] && xz -T0 -6 -c "$W/fr-sources.tar" > "$R/fr-sources.tar.xz"
ls -l "$R" | tee -a "$R/steps.log"
note "done"
