#!/bin/bash
# test_gpu.sh runs, on a GPU machine, the Go tests that need a GPU, PyTorch
# or nvcc, from test binaries built elsewhere (`make test-gpu-build`:
# `go test -c`, CGO_ENABLED=1, into .devicebin/tests/, packed with commlab
# into .devicebin/test-gpu.tar.gz), so the machine needs no Go toolchain. Run from the repository root; each binary runs in its
# package's folder, where its testdata is. COMMLAB_REQUIRE_GPU, _TORCH and
# _NVCC make every skip for want of them a failure, and COMMLAB_BINARY
# names the commlab binary (.devicebin/commlab) for the NCCL worker.
# Prints one line per package, "pass" or "FAIL", then the failed tests'
# output; exits 1 when any failed.
#   TESTS=.devicebin/tests RUN='^TestX$' (defaults: every test)
set -u
TESTS=${TESTS:-.devicebin/tests}
ROOT=$(pwd)
export COMMLAB_REQUIRE_GPU=1 COMMLAB_REQUIRE_TORCH=1 COMMLAB_REQUIRE_NVCC=1
export COMMLAB_BINARY=${COMMLAB_BINARY:-$ROOT/.devicebin/commlab}
LOGS=${OUT:-/tmp}/test-gpu
mkdir -p "$LOGS"
status=0
# Carried as one archive (make test-gpu-build): unpack it beside itself.
if [ ! -d "$TESTS" ] && [ -f .devicebin/test-gpu.tar.gz ]; then
  tar -C .devicebin -xzf .devicebin/test-gpu.tar.gz || { echo "test-gpu: cannot unpack .devicebin/test-gpu.tar.gz"; exit 1; }
fi
shopt -s nullglob
bins=("$TESTS"/*.test)
if [ ${#bins[@]} -eq 0 ]; then echo "test-gpu: no test binaries in $TESTS (make test-gpu-build)"; exit 1; fi
for bin in "${bins[@]}"; do
  name=$(basename "$bin" .test)   # probes-nccl.test -> probes/nccl
  pkg=${name//-//}
  log="$LOGS/$name.log"
  start=$(date +%s)
  (cd "$ROOT/$pkg" && "$ROOT/$bin" -test.count=1 -test.timeout=20m -test.v ${RUN:+-test.run "$RUN"}) > "$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  ran=$(grep -c '^=== RUN' "$log")
  skipped=$(grep -c -- '--- SKIP' "$log")
  if [ $rc -eq 0 ]; then
    printf 'pass  %-20s %3ds  %d run, %d skipped\n' "$pkg" "$secs" "$ran" "$skipped"
  else
    printf 'FAIL  %-20s %3ds  %d run, %d skipped (log %s)\n' "$pkg" "$secs" "$ran" "$skipped" "$log"
    status=1
  fi
done
if [ $status -ne 0 ]; then
  for log in "$LOGS"/*.log; do
    grep -q -- '--- FAIL' "$log" && { echo "== $(basename "$log" .log)"; grep -B2 -A12 -- '--- FAIL' "$log" | head -60; }
  done
fi
exit $status
