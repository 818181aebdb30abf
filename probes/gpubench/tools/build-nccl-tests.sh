#!/usr/bin/env bash
# Build the NVIDIA nccl-tests sources placed in .tools/nccl-tests (see
# probes/testdata/h200/tools/README.md) on the GPU machine. Run from the repo root:
#     bash probes/gpubench/tools/build-nccl-tests.sh
# Binaries land in .tools/nccl-tests/build/<coll>_perf (MPI=0, single process,
# use -g <ngpus> for multi-GPU runs). Exits non-zero (and echoes the compiler
# errors) if the build fails or all_reduce_perf was not produced.
# Overridable env: CUDA_HOME (default /usr/local/cuda), NCCL_HOME (default /usr,
# i.e. headers /usr/include), NVCC_GENCODE (default sm_90 only), JOBS (16).
set -uo pipefail

TOOLS="$(pwd)/${COMMLAB_TOOLS_DIR:-.tools}"
SRC="$TOOLS/nccl-tests"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
NCCL_HOME="${NCCL_HOME:-/usr}"
GENCODE="${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}"
JOBS="${JOBS:-16}"
LOG="$SRC/build.log"

die() { echo "build-nccl-tests: $*" >&2; exit 1; }

[ -f "$SRC/src/Makefile" ] || die "missing $SRC/src/Makefile"
[ -x "$CUDA_HOME/bin/nvcc" ] || die "nvcc not found at $CUDA_HOME/bin/nvcc"
[ -f "$NCCL_HOME/include/nccl.h" ] || die "nccl.h not found in $NCCL_HOME/include"

# The Makefile links with -L$(NCCL_HOME)/lib -lnccl. libnccl lives in
# /lib/x86_64-linux-gnu (a default linker dir); -lnccl needs the unversioned
# libnccl.so dev symlink. If only libnccl.so.2 exists, point the linker at a
# private symlink via LIBRARY_PATH (honoured by the host g++ that nvcc drives).
find_nccl_so() {
  local d
  for d in "$NCCL_HOME/lib" "$NCCL_HOME/lib64" /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/local/lib; do
    if [ -e "$d/$1" ]; then echo "$d/$1"; return 0; fi
  done
  return 1
}
if ! find_nccl_so libnccl.so >/dev/null; then
  so2="$(find_nccl_so libnccl.so.2)" || die "libnccl.so / libnccl.so.2 not found"
  mkdir -p "$SRC/.nccl-lib"
  ln -sf "$so2" "$SRC/.nccl-lib/libnccl.so"
  export LIBRARY_PATH="$SRC/.nccl-lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
  echo "build-nccl-tests: no libnccl.so dev symlink; linking against $so2 via $SRC/.nccl-lib"
fi

echo "build-nccl-tests: $("$CUDA_HOME/bin/nvcc" --version | grep release)"
echo "build-nccl-tests: nccl.h $(grep -E '^#define NCCL_(MAJOR|MINOR|PATCH)' "$NCCL_HOME/include/nccl.h" | awk '{printf "%s ", $3}')"
echo "build-nccl-tests: make -C $SRC -j$JOBS MPI=0 CUDA_HOME=$CUDA_HOME NCCL_HOME=$NCCL_HOME NVCC_GENCODE=\"$GENCODE\" (log: $LOG)"

make -C "$SRC" -j"$JOBS" MPI=0 CUDA_HOME="$CUDA_HOME" NCCL_HOME="$NCCL_HOME" \
     NVCC_GENCODE="$GENCODE" >"$LOG" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "build-nccl-tests: make FAILED (rc=$rc). Compiler errors:" >&2
  grep -nE 'error|Error|undefined reference|No such file' "$LOG" | head -60 >&2
  echo "---- last 40 lines of $LOG ----" >&2
  tail -n 40 "$LOG" >&2
  exit $rc
fi

ok=1
echo "build-nccl-tests: binaries in $SRC/build/:"
for b in all_reduce all_gather broadcast reduce_scatter reduce alltoall; do
  f="$SRC/build/${b}_perf"
  if [ -x "$f" ]; then echo "  $f"; else echo "  MISSING $f" >&2; [ "$b" = all_reduce ] && ok=0; fi
done
[ $ok -eq 1 ] || die "all_reduce_perf was not built"
exit 0
