#!/bin/bash
# import_overlap.sh turns what record_overlap.sh wrote on the GPU machine
# (its $OUT/h-ch5 folder, copied here) into the recorded run the chapter
# reads: probes/recorded/data/torch-overlap-h200x1/ (each step's
# summary.json and gzipped traces, provenance.txt, the step logs) and
# probes/recorded/data/torch-overlap-h200x1.json (the run: provenance, the
# per-variant step times, ProcessGroupNCCL's log lines). Run from the
# repository root with a commlab binary: import_overlap.sh SRC [BIN].
set -eu
src=${1:?usage: import_overlap.sh SRC [commlab binary]}
bin=${2:-/tmp/commlab}
# Named after the GPU the recording ran on (its provenance's nvidia-smi
# line and torch's GPU count): torch-overlap-h200x1, torch-overlap-h100x2.
model=$(grep -m1 -oiE '^NVIDIA [^,]*' "$src/provenance.txt" | grep -oiE '\b(GB|[ABHL])[0-9]{2,3}S?\b' | head -1 | tr '[:upper:]' '[:lower:]')
ngpu=$(sed -n 's/^gpus \([0-9]*\)$/\1/p' "$src/provenance.txt" | head -1)
name=torch-overlap-${model:-gpu}x${ngpu:-1}
dst=probes/recorded/data/$name
rm -rf "$dst"
mkdir -p "$dst"
for d in variants variants-allreduce-avg cq-default cq-blocking-wait cq-avoid-record-streams; do
  [ -d "$src/$d" ] || continue
  mkdir -p "$dst/$d"
  cp "$src/$d"/summary.json "$src/$d"/*.json.gz "$dst/$d/"
  [ -f "$src/$d.log" ] && cp "$src/$d.log" "$dst/$d.log"
done
cp "$src/provenance.txt" "$src/steps.log" "$dst/"
"$bin" probe overlap --load "$dst" --save "$dst.json" > /dev/null || true
/usr/bin/python3 - "$dst" "$dst.json" <<'PY'
import json, re, sys
folder, path = sys.argv[1], sys.argv[2]
run = json.load(open(path))
prov = open(folder + "/provenance.txt").read()
m = re.search(r"^date: (\S+)", prov, re.M)
run["date"] = m.group(1)
run["command"] = ["bash", "probes/gpubench/record_overlap.sh"]
m = re.search(r"^script: \S+ sha256 (\S+)", prov, re.M)
run.setdefault("settings", {})["bench_overlap.py sha256"] = m.group(1)
m = re.search(r"^recorder: \S+ sha256 (\S+)", prov, re.M)
run["settings"]["record_overlap.sh sha256"] = m.group(1)
m = re.search(r"^torch\.version\.git_version (\S+)", prov, re.M)
if m:
    run["settings"]["torch git_version"] = m.group(1)
m = re.search(r"^(NVIDIA [^,]+), ([0-9.]+),", prov, re.M)
run["gpu_model"], run["driver"] = m.group(1), m.group(2)
logs = {"provenance": prov, "steps": open(folder + "/steps.log").read()}
for step in ["cq-default", "cq-blocking-wait", "cq-avoid-record-streams"]:
    try:
        text = open("%s/%s.log" % (folder, step)).read()
    except OSError:
        continue
    marks = ("environments", "options", "Eagerly", "non-blocking", "Warning", "NO watchdog")
    keep = [l for l in text.splitlines() if "ProcessGroupNCCL" in l and any(m in l for m in marks)]
    logs[step] = "\n".join(keep)
run["logs"] = logs
run.setdefault("notes", []).append("one rank: NCCL runs each collective as a device copy or a one-rank kernel (launch and copy floor), not a ring")
run["env"] = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
run["notes"] = sorted(set(run["notes"]))
tmp = path + ".tmp"
with open(tmp, "w") as f:
    json.dump(run, f, indent=2)
    f.write("\n")
import os
os.replace(tmp, path)
PY
echo "imported $src into $dst and $dst.json"
