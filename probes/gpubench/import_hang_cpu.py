"""Turn `make hang-cpu` runs (the hang lab on CPU ranks, no GPU) into
recorded runs: $(OUT)/hang-cpu/<name>/ becomes
probes/recorded/hang/hang-cpu-<name>/ with what the chapter and the tests
read: summary.json, result/, stacks/ (faulthandler's rank_N.txt, py-spy's
rankN.txt and gdb's rankN.gdb.txt), marks/, fr/ (the pickle dumps), fr_trace*.txt, stderr/rank_N.txt
(each rank's stderr from torchrun's logs), torchrun.txt, run.json (the
provenance as a probes.Run of kind "hang-lab") and PROVENANCE.md.

    python3 probes/gpubench/import_hang_cpu.py out/hang-cpu NAME... [--command "..."]

Run it with the venv's python (the one that ran the lab) so that the
provenance names its torch; standard library otherwise.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import socket
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import torch
        torch_version = torch.__version__
    except ImportError:
        torch_version = "not importable by %s" % sys.executable
    return {"host": socket.gethostname(), "cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "python": platform.python_version(), "torch": torch_version}


def import_run(src, name, m, command):
    dst = os.path.join(ROOT, "probes", "recorded", "hang", "hang-cpu-" + name)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    summary = json.load(open(os.path.join(src, "summary.json")))
    shutil.copyfile(os.path.join(src, "summary.json"), os.path.join(dst, "summary.json"))
    for sub in ("result", "stacks", "marks", "fr"):
        if os.path.isdir(os.path.join(src, sub)) and os.listdir(os.path.join(src, sub)):
            shutil.copytree(os.path.join(src, sub), os.path.join(dst, sub), ignore=shutil.ignore_patterns("*.tmp"))
    for f in sorted(glob.glob(os.path.join(src, "fr_trace*.txt"))):
        shutil.copyfile(f, os.path.join(dst, os.path.basename(f)))
    errs = glob.glob(os.path.join(src, "torchrun", "*", "attempt_0", "*", "stderr.log"))
    if errs:
        os.makedirs(os.path.join(dst, "stderr"))
        for f in errs:
            shutil.copyfile(f, os.path.join(dst, "stderr", "rank_%s.txt" % os.path.basename(os.path.dirname(f))))
    if os.path.exists(os.path.join(src, "torchrun.log")):
        lines = [l for l in open(os.path.join(src, "torchrun.log")) if "closing signal" not in l]
        open(os.path.join(dst, "torchrun.txt"), "w").writelines(lines)
    pyspy = summary.get("py_spy", {})
    gdb = summary.get("gdb", {})
    gdb_secs = [r["seconds"] for r in gdb.get("ranks", {}).values() if "seconds" in r]
    run = {
        "kind": "hang-lab",
        "command": command or ["commlab", "probe", "hang", "--scenario", name, "--out", "DIR"],
        "settings": {"scenario": name, "ranks": str(summary.get("nproc")), "timeout_s": str(summary.get("timeout_s")),
                     "backend": "gloo (CPU ranks)", "torch": m["torch"], "python": m["python"],
                     "py_spy": pyspy.get("version", pyspy.get("error", "")),
                     "gdb": gdb.get("version", gdb.get("error", "not run by this version of the driver")),
                     "torchrun_command": " ".join(summary.get("command", []))},
        "env": summary.get("env", {}),
        "date": summary.get("date", ""),
        "host": m["host"],
        "gpu_count": 0,
        "tool": "PyTorch %s, gloo, %s CPU ranks" % (m["torch"], summary.get("nproc")),
        "samples": [],
        "notes": ["CPU ranks only, on a machine without a GPU: %s, %s cores" % (m["cpu"], m["cores"])],
    }
    kept = sorted(os.listdir(dst))
    with open(os.path.join(dst, "run.json"), "w") as fh:
        json.dump(run, fh, indent=1)
        fh.write("\n")
    lines = [
        "# hang-cpu-%s: provenance" % name, "",
        "Recorded by `make hang-cpu` (commlab probe hang, the hang lab on gloo CPU ranks), imported by",
        "`probes/gpubench/import_hang_cpu.py`.", "",
        "- date: %s" % summary.get("date", ""),
        "- host: %s (%s, %s cores, Linux %s), no GPU" % (m["host"], m["cpu"], m["cores"], m["kernel"]),
        "- torch %s (the index's wheel), python %s, %s" % (m["torch"], m["python"], pyspy.get("version", "py-spy: " + pyspy.get("error", "?"))),
        "- gdb: %s" % (gdb.get("version", gdb.get("error", "not run by this version of the driver")) + (
            "; `thread apply all bt` took %.1f to %.1f s per rank, the ranks read at once" % (min(gdb_secs), max(gdb_secs))
            if gdb_secs else "")),
    ] + ([
        "- order: py-spy, then faulthandler (SIGUSR1), then gdb, which stops each rank while it reads it; a rank",
        "  held past its timeout raises it as soon as gdb detaches (result/ says when each rank ended)",
    ] if gdb_secs else []) + [
        "- command: `%s`" % " ".join(run["command"]),
        "- the driver's torchrun command: `%s`" % run["settings"]["torchrun_command"],
        "",
        "Kept as the driver wrote them: %s. Left out: pid files, ready/ and done/ markers, fr_json/ (the same" % ", ".join(kept),
        "dumps in JSON, without stacks), fr_fixed/ (the dumps with their pg_config repaired for fr_trace), torchrun's",
        "stdout logs.",
    ]
    with open(os.path.join(dst, "PROVENANCE.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote", os.path.relpath(dst, ROOT))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs")
    p.add_argument("names", nargs="+")
    p.add_argument("--command", default="make hang-cpu: commlab probe hang --scenario {name} --out out/hang-cpu/{name}",
                   help="the command that made each run, as one string; {name} is the scenario")
    a = p.parse_args()
    m = machine()
    for name in a.names:
        import_run(os.path.join(a.runs, name), name, m, a.command.format(name=name).split())


if __name__ == "__main__":
    main()
