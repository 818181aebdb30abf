#!/bin/bash
# device_run.sh is the one command sent to a GPU machine: it runs commlab's
# probes and the PyTorch reference in the same call and leaves everything
# under $OUT/r, tarred to $OUT/results.tar.gz. Run from the repository root
# with the commlab binary at .devicebin/commlab (built with CGO_ENABLED=1).
#   STEPS="latency copy nccl protos dtypes hang topo capture" (default: all)
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
B=${B:-.devicebin/commlab}
R=$OUT/r
mkdir -p "$R"
TORCH_NCCL=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
# Compare against the NCCL that PyTorch loads, so both sides run the same library.
export COMMLAB_NCCL=${COMMLAB_NCCL:-$TORCH_NCCL}
STEPS=${STEPS:-latency copy nccl protos dtypes hang topo capture}
NGPU=$(nvidia-smi -L | grep -c '^GPU')
TAG=h200x$NGPU
if [ "$NGPU" -gt 1 ]; then TORCHRUN="torchrun --standalone --nproc-per-node $NGPU"; else TORCHRUN=python3; fi
NCCL_MAX=${NCCL_MAX:-8G}
step() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
log() { echo "=== $(date -u +%H:%M:%S) $*" | tee -a "$R/steps.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$R/gpu-state-start.csv" 2>&1
if step latency; then
  log latency
  timeout 120 $B probe latency --save "$R/latency.json" 2>&1 | tee "$R/latency.txt"
fi
if step copy; then
  log copy ours
  timeout 200 $B probe bandwidth -b 4K -e ${COPY_MAX:-1G} -f 4 --save "$R/bandwidth.json" > "$R/bandwidth.txt" 2>&1
  log copy torch
  timeout 200 python3 probes/gpubench/bench_torch.py --what copy --copy-min 4096 --copy-max $((1<<30)) --iters 10 --reps 7 --warmup 3 --out "$R/torch-copy.json" 2>&1 | tail -5
  log copy ours again
  timeout 200 $B probe bandwidth -b 4K -e 1G -f 4 --devices 0 --ops h2d_pinned,d2h_pinned,h2d_pageable,d2h_pageable,d2d --save "$R/bandwidth-2.json" --compare "$R/torch-copy.json" > "$R/bandwidth-compare.txt" 2>&1
  grep -E "^# [0-9]+ of" "$R/bandwidth-compare.txt"
  $B probe bandwidth --ops d2d --sizes 1G --compare "$R/torch-copy.json" 2>&1 | tail -3
fi
if step nccl; then
  log nccl ours
  timeout 300 $B probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e 1G --save "$R/nccl-compare-ours.json" > "$R/nccl-compare-ours.txt" 2>&1
  log nccl torch
  timeout 300 $TORCHRUN probes/gpubench/bench_torch.py --what nccl --nccl-min 8 --nccl-max $((1<<30)) --out "$R/torch-nccl.json" 2>&1 | tail -5
  log nccl ours again
  timeout 300 $B probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e 1G --save "$R/nccl-compare-ours-2.json" --compare "$R/torch-nccl.json" > "$R/nccl-compare.txt" 2>&1
  grep -E "^# [0-9]+ of" "$R/nccl-compare.txt"
fi
if step protos; then
  # Recorded sweeps: every protocol forced, then auto, over all GPUs and,
  # on a machine of several, over GPU 0 alone.
  sets="$NGPU"; [ "$NGPU" -gt 1 ] && sets="$NGPU 1"
  for n in $sets; do
    dev=""; [ "$n" = 1 ] && dev="--devices 0"
    for p in auto LL LL128 Simple; do
      log "protocol $p on $n GPU(s)"
      a=""; [ "$p" != auto ] && a="--proto $p"
      timeout ${PROTO_TIMEOUT:-200} $B probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e "$NCCL_MAX" $a $dev \
        --warmup 3 --iters 10 --reps 3 --debug INFO --debug-subsys INIT,GRAPH,ENV --save "$R/nccl-h200x$n-proto-$p.json" > "$R/nccl-x$n-proto-$p.txt" 2>&1
      echo "rc=$?" >> "$R/nccl-x$n-proto-$p.txt"; tail -2 "$R/nccl-x$n-proto-$p.txt"
    done
    log "tuning log on $n GPU(s)"
    timeout 120 $B probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e "$NCCL_MAX" $dev --modes out \
      --warmup 0 --iters 1 --reps 1 --check=false --debug INFO --debug-subsys INIT,GRAPH,TUNING --save "$R/nccl-h200x$n-tuning.json" > "$R/nccl-x$n-tuning.txt" 2>&1
    echo "rc=$?" >> "$R/nccl-x$n-tuning.txt"
  done
fi
if step dtypes; then
  for dt in float32 float16 bfloat16 float64 int8 uint8 int32 int64 float8e4m3 float8e5m2; do
    log "dtype $dt"
    timeout 60 $B probe nccl --coll all -b 8 -e 64M -f 16 --dtype $dt --debug "" > "$R/nccl-dtype-$dt.txt" 2>&1; echo "rc=$?" >> "$R/nccl-dtype-$dt.txt"
  done
  for op in prod max min avg; do
    for dt in float32 bfloat16 int32; do
      log "op $op $dt"
      timeout 60 $B probe nccl --coll all_reduce,reduce,reduce_scatter -b 8 -e 64M -f 16 --dtype $dt --op $op --debug "" > "$R/nccl-op-$op-$dt.txt" 2>&1; echo "rc=$?" >> "$R/nccl-op-$op-$dt.txt"
    done
  done
  grep -l "rc=[^0]" "$R"/nccl-dtype-*.txt "$R"/nccl-op-*.txt
  awk '$NF ~ /^[1-9]/ && $1 ~ /_/ {print FILENAME": "$0}' "$R"/nccl-dtype-*.txt "$R"/nccl-op-*.txt | head -20
fi
if step hang; then
  hangs=stalled_stream; [ "$NGPU" -gt 1 ] && hangs="stalled_stream unpaired_send"
  for h in $hangs; do
    log "hang: $h, 5 s timeout"
    timeout 60 $B probe nccl --coll $h --sizes 1K --modes out --check=false --timeout 5s --save "$R/nccl-$TAG-hang-$h.json" > "$R/nccl-hang-$h.txt" 2>&1
    echo "rc=$?" >> "$R/nccl-hang-$h.txt"; tail -4 "$R/nccl-hang-$h.txt"
  done
fi
if step topo; then
  log topo
  timeout 60 $B probe topo --json > "$R/probe-topo.json" 2> "$R/probe-topo.stderr"; echo "topo rc=$?"
fi
if step capture; then
  log capture
  bash probes/gpubench/capture.sh "$R/cap" > /dev/null 2>&1
  tar -C "$R" -czf "$OUT/captures.tar.gz" cap && rm -rf "$R/cap"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$R/gpu-state-end.csv" 2>&1
tar -C "$OUT" -czf "$OUT/results.tar.gz" r && cp "$R/steps.log" "$OUT/steps.log" && rm -rf "$R"
log done
