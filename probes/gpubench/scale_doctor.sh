#!/usr/bin/env bash
# The doctor at the scale of the jobs that hang: writes the NCCL_DEBUG=INFO
# log of a RANKS-rank job (scale_log.py: a recorded NCCL 2.28.9 log spoken
# by every rank; its init lines alone are about 40 kB a rank) at 64 MB,
# 256 MB and SIZE_MB, and times `commlab doctor
# --nccl-log` and `commlab parse nccl-log` on each, pinned to two cores,
# with their peak memory. Run from the repository root:
#   bash probes/gpubench/scale_doctor.sh [COMMLAB] [RANKS] [SIZE_MB] [DIR]
set -euo pipefail
bin=${1:-./commlab}
ranks=${2:-1024}
size=${3:-1024}
dir=${4:-${TMPDIR:-/tmp}/commlab-scale}
mkdir -p "$dir"
cores=0,1
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -n), $(nproc) cores (pinned to $cores), $("$bin" version 2>/dev/null || echo commlab)"
echo "# MB ranks verb wall_s peak_RSS_MB MB_per_s"
for mb in 64 256 "$size"; do
  log="$dir/nccl-${ranks}r-${mb}MB.log"
  [ -s "$log" ] || python3 probes/gpubench/scale_log.py "$ranks" "$mb" "$log" >/dev/null
  bytes=$(stat -c %s "$log")
  for verb in doctor parse; do
    if [ "$verb" = doctor ]; then args=(doctor --nccl-log "$log" --json --out "$dir/report-$mb"); else args=(parse nccl-log "$log"); fi
    python3 - "$bytes" "$mb" "$ranks" "$verb" taskset -c "$cores" "$bin" "${args[@]}" <<'PY'
import resource, subprocess, sys, time
nbytes, mb, ranks, verb, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
t = time.monotonic()
rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%.0f %s %s %.2f %.0f %.1f%s" % (nbytes / 1e6, ranks, verb, wall, rss, nbytes / 1e6 / wall, "" if rc in (0, 1, 2) else " exit %d" % rc))
PY
  done
done
