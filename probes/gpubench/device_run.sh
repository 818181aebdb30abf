#!/bin/bash
# device_run.sh is the one command sent to a GPU machine: it runs commlab's
# probes and the PyTorch reference in the same call and leaves everything
# under $OUT/r, tarred to $OUT/results.tar.gz. Run from the repository root
# with the commlab binary at .devicebin/commlab (built with CGO_ENABLED=1).
#   STEPS="latency copy nccl protos dtypes hang tools floor topo capture" (default: all)
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
B=${B:-.devicebin/commlab}
R=$OUT/r
mkdir -p "$R"
TORCH_NCCL=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
# Compare against the NCCL that PyTorch loads, so both sides run the same library.
export COMMLAB_NCCL=${COMMLAB_NCCL:-$TORCH_NCCL}
STEPS=${STEPS:-latency copy nccl protos dtypes hang tools floor topo capture}
NGPU=$(nvidia-smi -L | grep -c '^GPU')
# Runs are named after the GPU present (h100x1, h200x2).
. "$(dirname "$0")/gpu_tag.sh"
TAG=$(gpu_tag "$NGPU")
# The PyTorch reference is embedded in commlab: `commlab probe torch -- FLAGS`.
if [ "$NGPU" -gt 1 ]; then TORCH_LAUNCH="--launcher torchrun --per-node $NGPU"; else TORCH_LAUNCH=""; fi
NCCL_MAX=${NCCL_MAX:-8G}
step() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
log() { echo "=== $(date -u +%H:%M:%S) $*" | tee -a "$R/steps.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$R/gpu-state-start.csv" 2>&1
if step latency; then
  log latency
  timeout 120 $B probe latency --save "$R/latency.json" 2>&1 | tee "$R/latency.txt"
fi
if step copy; then
  # ours, PyTorch, ours compared, PyTorch again: the two runs of each side
  # give the run-to-run spread (A/A) that the ours/PyTorch ratio sits in.
  log copy ours
  timeout 200 $B probe bandwidth -b 4K -e ${COPY_MAX:-1G} -f 4 --save "$R/bandwidth.json" > "$R/bandwidth.txt" 2>&1
  log copy torch
  timeout 200 $B probe torch -- --what copy --copy-min 4096 --copy-max $((1<<30)) --iters 10 --reps 7 --warmup 3 --out "$R/torch-copy.json" 2>&1 | tail -5
  log copy ours again
  timeout 200 $B probe bandwidth -b 4K -e 1G -f 4 --devices 0 --ops h2d_pinned,d2h_pinned,h2d_pageable,d2h_pageable,d2d --save "$R/bandwidth-2.json" --compare "$R/torch-copy.json" > "$R/bandwidth-compare.txt" 2>&1
  grep -E "^# [0-9]+ of" "$R/bandwidth-compare.txt"
  log copy torch again
  timeout 200 $B probe torch -- --what copy --copy-min 4096 --copy-max $((1<<30)) --iters 10 --reps 7 --warmup 3 --out "$R/torch-copy-2.json" 2>&1 | tail -5
  $B probe bandwidth --load "$R/bandwidth-2.json" --compare "$R/torch-copy-2.json" > "$R/bandwidth-compare-2.txt" 2>&1
  $B probe bandwidth --load "$R/bandwidth-2.json" --compare "$R/bandwidth.json" > "$R/bandwidth-aa-ours.txt" 2>&1
  $B probe bandwidth --load "$R/torch-copy-2.json" --compare "$R/torch-copy.json" > "$R/bandwidth-aa-torch.txt" 2>&1
  for f in compare-2 aa-ours aa-torch; do echo "$f: $(grep -E '^# [0-9]+ of' "$R/bandwidth-$f.txt")"; done
  $B probe bandwidth --ops d2d --sizes 1G --compare "$R/torch-copy.json" 2>&1 | tail -3
fi
if step nccl; then
  log nccl ours
  timeout 300 $B probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e 1G --save "$R/nccl-compare-ours.json" > "$R/nccl-compare-ours.txt" 2>&1
  log nccl torch
  timeout 300 $B probe torch $TORCH_LAUNCH -- --what nccl --nccl-min 8 --nccl-max $((1<<30)) --out "$R/torch-nccl.json" 2>&1 | tail -5
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
        --warmup 3 --iters 10 --reps 3 --debug INFO --debug-subsys INIT,GRAPH,ENV --save "$R/nccl-$(gpu_tag "$n")-proto-$p.json" > "$R/nccl-x$n-proto-$p.txt" 2>&1
      echo "rc=$?" >> "$R/nccl-x$n-proto-$p.txt"; tail -2 "$R/nccl-x$n-proto-$p.txt"
    done
    log "tuning log on $n GPU(s)"
    timeout 120 $B probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e "$NCCL_MAX" $dev --modes out \
      --warmup 0 --iters 1 --reps 1 --check=false --debug INFO --debug-subsys INIT,GRAPH,TUNING --save "$R/nccl-$(gpu_tag "$n")-tuning.json" > "$R/nccl-x$n-tuning.txt" 2>&1
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
if step tools; then
  # nccl-tests, nvbandwidth and perftest are not installed on the lent
  # machines; when .tools holds their public sources and the Debian packages
  # (probes/testdata/h200/tools/README.md) they are built here first.
  SYSNCCL=/lib/x86_64-linux-gnu/libnccl.so.2; [ -e $SYSNCCL ] || SYSNCCL=$COMMLAB_NCCL
  if [ -f .tools/nccl-tests/src/Makefile ]; then
    log "build nccl-tests"
    bash probes/gpubench/tools/build-nccl-tests.sh > "$R/build-nccl-tests.txt" 2>&1; echo "build rc=$?" | tee -a "$R/build-nccl-tests.txt"
    NT=.tools/nccl-tests/build
    for c in all_reduce all_gather reduce_scatter; do
      [ -x $NT/${c}_perf ] || continue
      log "nccl-tests $c through commlab probe"
      timeout 200 $B probe nccl-tests --tool $NT/${c}_perf --save "$R/nccl-tests-$c.json" -- -b 8 -e ${TOOLS_NCCL_MAX:-1G} -f 2 -g $NGPU > "$R/nccl-tests-$c.txt" 2>&1
      echo "rc=$?" >> "$R/nccl-tests-$c.txt"; tail -2 "$R/nccl-tests-$c.txt"
    done
    log "nccl-tests raw output and -J JSON"
    timeout 60 $NT/all_reduce_perf -b 8 -e 64M -f 4 -g $NGPU -J "$R/nccl-tests-all_reduce-J.json" > "$R/nccl-tests-all_reduce-raw.txt" 2>&1; echo "rc=$?"
    log "commlab probe nccl on the same libnccl, compared with nccl-tests"
    COMMLAB_NCCL=$SYSNCCL timeout 300 $B probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e ${TOOLS_NCCL_MAX:-1G} --warmup 5 --iters 20 --reps 5 \
      --save "$R/nccl-vs-nccl-tests-ours.json" > "$R/nccl-vs-nccl-tests-ours.txt" 2>&1
    for c in all_reduce all_gather reduce_scatter; do
      [ -f "$R/nccl-tests-$c.json" ] && $B probe nccl --load "$R/nccl-vs-nccl-tests-ours.json" --coll $c --compare "$R/nccl-tests-$c.json" > "$R/nccl-vs-nccl-tests-$c.txt" 2>&1
    done
    grep -H -E "^# [0-9]+ of" "$R"/nccl-vs-nccl-tests-*.txt
  fi
  if [ -f .tools/nvbandwidth/CMakeLists.txt ]; then
    log "build nvbandwidth"
    bash probes/gpubench/tools/build-nvbandwidth.sh > "$R/build-nvbandwidth.txt" 2>&1; echo "build rc=$?" | tee -a "$R/build-nvbandwidth.txt"
    if [ -x .tools/bin/nvbandwidth ]; then
      export LD_LIBRARY_PATH=/tmp/boost/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      log "nvbandwidth through commlab probe"
      timeout 300 $B probe nvbandwidth --tool .tools/bin/nvbandwidth --save "$R/nvbandwidth.json" > "$R/nvbandwidth.txt" 2>&1
      echo "rc=$?" >> "$R/nvbandwidth.txt"; tail -12 "$R/nvbandwidth.txt"
      timeout 120 .tools/bin/nvbandwidth -j -t host_to_device_memcpy_ce device_to_host_memcpy_ce > "$R/nvbandwidth-j.json" 2>&1; echo "json rc=$?"
    fi
  fi
  if [ -d .tools/debs ]; then
    log "perftest: RDMA devices?"
    timeout 120 bash probes/gpubench/tools/setup-perftest.sh "$R/perftest" > /dev/null 2>&1; cat "$R/perftest/summary.txt"
  fi
fi
if step floor; then
  # The small-message floor, both kinds of communicator, three batch
  # lengths, on the system libnccl that nccl-tests links, beside nccl-tests.
  SYSNCCL=/lib/x86_64-linux-gnu/libnccl.so.2; [ -e $SYSNCCL ] || SYSNCCL=$COMMLAB_NCCL
  for it in 10 20 100; do
    for kind in nonblocking blocking; do
      a=""; [ $kind = blocking ] && a="--blocking"
      log "floor: $kind, $it iterations"
      COMMLAB_NCCL=$SYSNCCL timeout 60 $B probe nccl --coll all_reduce,all_gather --sizes 8,1M,64M --iters $it --reps 7 --debug "" $a \
        --save "$R/floor-$kind-$it.json" > "$R/floor-$kind-$it.txt" 2>&1; echo "rc=$?" >> "$R/floor-$kind-$it.txt"
      grep -E "^(all_reduce|all_gather) +8 " "$R/floor-$kind-$it.txt"
    done
    if [ -x .tools/nccl-tests/build/all_reduce_perf ]; then
      for c in all_reduce all_gather; do
        timeout 60 .tools/nccl-tests/build/${c}_perf -b 8 -e 8 -w 5 -n $it -g $NGPU > "$R/floor-nccl-tests-$c-$it.txt" 2>&1
        echo "nccl-tests $c $it: $(grep -E '^ +8 ' "$R/floor-nccl-tests-$c-$it.txt")"
      done
    fi
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
log done
tar -C "$OUT" -czf "$OUT/results.tar.gz" r && cp "$R/steps.log" "$OUT/steps.log" && rm -rf "$R"
