"""Turn chapter 6's device recording (record_ch6.sh's archives, unpacked)
into the recorded runs the chapter and the tests read.

    python3 probes/gpubench/import_ch6.py UNPACKED_DIR PROVENANCE.txt [--nccl] [--hang NAMES] [--keep N]

- --nccl: nccl/*.json (commlab probe nccl runs) become
  probes/recorded/data/nccl-<gpu>x<n>-ch6-<variant>.json (the GPU the run
  names: h200x1, h100x1), unchanged.
- --hang size,order,...: hang/<name>/ becomes probes/recorded/hang/hang-<name>/
  with summary.json, result/, stacks/, fr/ (pickle dumps), fr_trace*.txt,
  stderr/rank_N.txt (each rank's stderr from torchrun's logs) and run.json
  (the provenance as a probes.Run of kind "hang-lab"). Marks, pid files,
  fr_json (the same dumps without stacks) and torchrun's stdout are left
  out. With --keep N, each dump keeps only its last N entries (the core
  question's 64 dumps of 2000 entries each); PROVENANCE.md says so.

Standard library only; the dumps are plain pickled dicts (torch writes
them with its own pickler, protocol 2), read and, when trimmed, written
back with pickle protocol 2.
"""
import argparse
import datetime
import glob
import hashlib
import json
import os
import pickle
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def provenance(path):
    text = open(path).read()
    get = lambda pat: (re.search(pat, text, re.M) or [None, ""])[1].strip()
    gpu = get(r"^(NVIDIA [^,\n]+), [0-9.]+$")
    return {
        "text": text,
        "date": get(r"^date_utc: (.*)$"),
        "gpu": gpu,
        "driver": get(r"^NVIDIA [^,\n]+, ([0-9.]+)$"),
        "torch": get(r"^torch.__version__ (.*)$"),
        "cuda": get(r"^torch.version.cuda (.*)$"),
        "nccl": ".".join(re.findall(r"\d+", get(r"^torch.cuda.nccl.version\(\) (.*)$"))),
        "python": get(r"^python (.*)$"),
        "pyspy": get(r"^py-spy (\S+)$"),
    }


def import_nccl(src, prov):
    out = os.path.join(ROOT, "probes", "recorded", "data")
    for f in sorted(glob.glob(os.path.join(src, "nccl", "*.json"))):
        name = os.path.basename(f)[:-5]
        dst = os.path.join(out, "nccl-%s-ch6-%s.json" % (gpu_tag(f), name))
        shutil.copyfile(f, dst)
        print("wrote", os.path.relpath(dst, ROOT))


def gpu_tag(run_path):
    """The run's GPU as recorded runs are named: "h200x1", "h100x2"."""
    run = json.load(open(run_path))
    m = re.search(r"\b(GB|[ABHL])\d{2,3}S?\b", run.get("gpu_model") or "", re.I)
    return "%sx%d" % (m.group(0).lower() if m else "gpu", run.get("gpu_count") or 1)


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()[:16]


def import_hang(src, name, prov, keep, machine_words="", recorder="probes/gpubench/record_ch6.sh"):
    """machine_words and recorder: a run recorded on another machine than
    the H200 (record_ch6_cpu.py on CPU ranks) names that machine and its
    recording script; its run.json then names no GPU, driver or CUDA."""
    s = os.path.join(src, "hang", name)
    dst = os.path.join(ROOT, "probes", "recorded", "hang", "hang-" + name)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    summary = json.load(open(os.path.join(s, "summary.json")))
    notes = []
    shutil.copyfile(os.path.join(s, "summary.json"), os.path.join(dst, "summary.json"))
    for sub in ("result", "stacks", "marks"):
        if os.path.isdir(os.path.join(s, sub)):
            shutil.copytree(os.path.join(s, sub), os.path.join(dst, sub))
    for f in sorted(glob.glob(os.path.join(s, "fr_trace*.txt"))):
        text = open(f).read()
        if len(text) > 200000:
            # fr_trace -j on 2000-entry dumps prints every entry: keep its
            # head and tail
            lines = text.splitlines(True)
            text = "".join(lines[:150]) + "... %d lines cut by import_ch6.py ...\n" % (len(lines) - 300) + "".join(lines[-150:])
            notes.append("%s: %d lines, kept the first and last 150" % (os.path.basename(f), len(lines)))
        open(os.path.join(dst, os.path.basename(f)), "w").write(text)
    # each rank's stderr (torchrun --redirects 3 keeps it per local rank)
    errs = glob.glob(os.path.join(s, "torchrun", "*", "attempt_0", "*", "stderr.log"))
    if errs:
        os.makedirs(os.path.join(dst, "stderr"))
        for f in errs:
            rank = os.path.basename(os.path.dirname(f))
            shutil.copyfile(f, os.path.join(dst, "stderr", "rank_%s.txt" % rank))
    for f in ("progress.txt", "hang_at"):
        # the core scenario's step log, and the step it moved the hang to
        if os.path.exists(os.path.join(s, f)):
            shutil.copyfile(os.path.join(s, f), os.path.join(dst, f))
    if os.path.exists(os.path.join(s, "torchrun.log")):
        # torchrun's own failure report: the exit codes and signals
        lines = [l for l in open(os.path.join(s, "torchrun.log")) if "closing signal" not in l]
        open(os.path.join(dst, "torchrun.txt"), "w").writelines(lines)
    frs = sorted(glob.glob(os.path.join(s, "fr", "rank_*")), key=lambda p: int(p.rsplit("_", 1)[1]))
    if frs:
        os.makedirs(os.path.join(dst, "fr"))
    trimmed = []
    for f in frs:
        out = os.path.join(dst, "fr", os.path.basename(f))
        if keep <= 0:
            shutil.copyfile(f, out)
            continue
        d = pickle.load(open(f, "rb"))
        n = len(d.get("entries", []))
        if n > keep:
            d["entries"] = d["entries"][-keep:]
            trimmed.append("%s: %d entries, sha256 %s, kept the last %d" % (os.path.basename(f), n, sha(f), keep))
        with open(out, "wb") as fh:
            pickle.dump(d, fh, protocol=2)
    torch = prov["torch"]
    # the driver's command line as record_ch6.sh ran it (commands.txt),
    # less its `timeout N` guard
    command = ["python3", "probes/launch/hang_torch.py", "run", "--scenario", name]
    cmds = os.path.join(src, "commands.txt")
    if os.path.exists(cmds):
        for line in open(cmds):
            if line.startswith("hang-%s: " % name):
                words = line.split(": ", 1)[1].split()
                if words[:1] == ["timeout"]:
                    words = words[2:]
                command = words
    run = {
        "kind": "hang-lab",
        "command": command,
        "settings": {"scenario": name, "ranks": str(summary.get("nproc")), "timeout_s": str(summary.get("timeout_s")),
                     "backend": "gloo (CPU ranks)", "torch": torch, "python": prov["python"]},
        "env": summary.get("env", {}),
        "date": summary.get("date") or prov["date"],
        "host": "",
        "gpu_model": prov["gpu"],
        "gpu_count": 1,
        "driver": prov["driver"],
        "cuda": prov["cuda"],
        "nccl": prov["nccl"],
        "tool": "PyTorch %s, gloo, %s CPU ranks" % (torch, summary.get("nproc")),
        "samples": [],
        "notes": ["the ranks ran on the machine's CPUs (gloo); the GPU was not used"],
    }
    if machine_words:
        run.update(gpu_model="CPU ranks (gloo)", gpu_count=summary.get("nproc"), driver="-", cuda="-", nccl="",
                   tool="PyTorch %s, gloo, py-spy %s" % (torch, prov.get("pyspy", "")),
                   notes=["the ranks ran on %s; no GPU" % machine_words])
    # the driver's command as torchrun ran it, for the record
    run["settings"]["torchrun_command"] = " ".join(summary.get("command", []))
    with open(os.path.join(dst, "run.json"), "w") as fh:
        json.dump(run, fh, indent=1)
    where = "Recorded by `%s` on the H200 machine (%s, driver %s), %s; torch %s (CUDA %s, NCCL %s), python %s." % (
        recorder, prov["gpu"], prov["driver"], prov["date"], torch, prov["cuda"], prov["nccl"], prov["python"])
    if machine_words:
        where = "Recorded by `%s` on %s, %s; torch %s (gloo; the GPU build's CUDA unused), python %s; every rank's stack taken from outside with py-spy %s (stacks/rankN.txt) beside faulthandler's (stacks/rank_N.txt)." % (
            recorder, machine_words, prov["date"], torch, prov["python"], prov.get("pyspy", ""))
    lines = ["# hang-%s: provenance" % name, "", where,
             "Imported by `probes/gpubench/import_ch6.py`: summary.json, result/, stacks/, fr/ and fr_trace*.txt as the",
             "driver wrote them; stderr/ is each rank's stderr from torchrun's per-rank logs; torchrun.txt is torchrun's",
             "own output without its per-process SIGTERM lines; marks/ holds what each rank said it was about to do.",
             "Left out: pid files, fr_json/ (the same dumps in",
             "JSON, without stacks), torchrun's stdout logs.", ""]
    if notes:
        lines += ["Cut: " + "; ".join(notes) + ".", ""]
    if trimmed:
        lines += ["Each Flight Recorder dump keeps only its last %d entries (the full ring buffers would add tens of MB);" % keep,
                  "older entries are dropped, none is changed, and the dump is pickled again with Python's pickle,",
                  "protocol 2. The full dumps, with their entry counts and sha256 prefixes:", ""]
        lines += ["- " + t for t in trimmed] + [""]
    lines += ["The machine's provenance file, whole:", "", "```", prov["text"].rstrip(), "```", ""]
    open(os.path.join(dst, "PROVENANCE.md"), "w").write("\n".join(lines))
    print("wrote", os.path.relpath(dst, ROOT), "(%d dumps%s)" % (len(frs), ", trimmed" if trimmed else ""))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("provenance")
    p.add_argument("--nccl", action="store_true")
    p.add_argument("--hang", default="")
    p.add_argument("--keep", type=int, default=0)
    a = p.parse_args()
    prov = provenance(a.provenance)
    if a.nccl:
        import_nccl(a.src, prov)
    for name in [n for n in a.hang.split(",") if n]:
        import_hang(a.src, name, prov, a.keep)


if __name__ == "__main__":
    main()
