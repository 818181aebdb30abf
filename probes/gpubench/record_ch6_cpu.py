"""Record chapter 6's same-place hangs (the hang lab's killed and netcut
scenarios) on CPU ranks, with every rank's stack taken from outside by
py-spy while the ranks hang, and import them as recorded runs.

    PYTHON=/path/to/venv/bin/python python3 probes/gpubench/record_ch6_cpu.py [killed,netcut] [--timeout S] [--hang-at N]

PYTHON must import torch with gloo (2.8 or later, for the Flight Recorder on
gloo) and have py-spy beside it (pip install torch py-spy). py-spy reads
another process's memory, which needs ptrace: run as root, or where
kernel.yama.ptrace_scope is 0.

For each scenario: the hang lab's driver (probes/launch/hang_torch.py run)
starts the ranks; once every rank has said what it is about to block in
(DIR/marks), `py-spy dump --pid PID` runs on every rank that wrote its pid,
its text (or its error, for a process no longer there) saved as
DIR/stacks/rank<N>.txt beside faulthandler's stacks/rank_N.txt. py-spy 0.4.3
cannot suspend a process that is already stopped (the netcut scenario's
frozen rank: "Failed to suspend process"); that rank is read again with
--nonblocking, which reads without suspending. The driver
is given a longer --settle so py-spy reads the ranks before faulthandler's
signal. The folder is then imported like record_ch6.sh's GPU-machine runs
(import_ch6.py), with this machine's provenance.

Standard library only (besides the PYTHON it starts).
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import import_ch6  # noqa: E402


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def files(d, sub):
    try:
        return [f for f in os.listdir(os.path.join(d, sub)) if not f.endswith(".tmp")]
    except FileNotFoundError:
        return []


def pyspy_all(pyspy, d):
    """py-spy dump every rank that wrote a pid; a rank's file holds py-spy's
    stdout, or its error (py-spy says "Error: ..." for a process that is
    gone, which parse/hanglab reads as such)."""
    pids = {}
    for f in files(d, "pids"):
        try:
            pids[int(f.split("_")[1])] = int(open(os.path.join(d, "pids", f)).read())
        except (ValueError, IndexError):
            pass

    def one(rank):
        res = run([pyspy, "dump", "--pid", str(pids[rank])], timeout=60)
        if res.returncode != 0 and "Failed to suspend process" in res.stdout + res.stderr:
            # py-spy 0.4.3 cannot suspend a process that is already stopped
            # (SIGSTOP): read it without suspending, as a person would next
            res = run([pyspy, "dump", "--nonblocking", "--pid", str(pids[rank])], timeout=60)
        text = res.stdout if res.returncode == 0 and res.stdout.strip() else (res.stdout + res.stderr)
        with open(os.path.join(d, "stacks", "rank%d.txt" % rank), "w") as fh:
            fh.write(text)
        return rank, res.returncode

    os.makedirs(os.path.join(d, "stacks"), exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        return dict(pool.map(one, sorted(pids)))


def machine(python, pyspy):
    """This machine's provenance, as record_ch6.sh writes the GPU machine's."""
    cpu = ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    probe = run([python, "-c", "import sys, torch, torch.distributed as d, torch.distributed.constants as c; "
                 "print('python', sys.version.split()[0]); print('torch.__version__', torch.__version__); "
                 "print('gloo available', d.is_gloo_available()); print('default_pg_timeout', c.default_pg_timeout)"])
    git = run(["git", "-C", ROOT, "rev-parse", "HEAD"]).stdout.strip()
    dirty = run(["git", "-C", ROOT, "status", "--porcelain", "probes/launch/hang_torch.py"]).stdout.strip()
    lines = ["# chapter 6 same-place hangs on CPU ranks (probes/gpubench/record_ch6_cpu.py)",
             "date_utc: " + datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "git: %s%s" % (git, " (hang_torch.py modified)" if dirty else ""),
             "--- machine",
             "cpu: %s, %d cores" % (cpu, os.cpu_count() or 0),
             "kernel: %s %s" % (platform.system(), platform.release()),
             "--- torch", probe.stdout.strip(),
             "--- py-spy", run([pyspy, "--version"]).stdout.strip()]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenarios", nargs="?", default="killed,netcut")
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--hang-at", type=int, default=3000)
    ap.add_argument("--deadline", type=float, default=120)
    a = ap.parse_args()
    python = os.environ.get("PYTHON", sys.executable)
    pyspy = os.path.join(os.path.dirname(python), "py-spy")
    if not os.access(pyspy, os.X_OK):
        pyspy = shutil.which("py-spy")
    if not pyspy:
        sys.exit("record_ch6_cpu: no py-spy beside %s or on PATH (pip install py-spy)" % python)
    work = tempfile.mkdtemp(prefix="ch6cpu.")
    prov_text = machine(python, pyspy)
    script = os.path.join(ROOT, "probes", "launch", "hang_torch.py")
    commands = []
    recorded_with = {}
    for name in a.scenarios.split(","):
        d = os.path.join(work, "hang", name)
        cmd = [python, script, "run", "--scenario", name, "--out", d, "--timeout", str(a.timeout),
               "--hang-at", str(a.hang_at), "--deadline", str(a.deadline), "--settle", "4", "--fr-trace-timeout", "30"]
        # the command a reader types for such a run, and the driver's as run here
        commands.append("hang-%s: commlab probe hang --scenario %s --timeout %g --hang-at %d --out hang-%s" % (name, name, a.timeout, a.hang_at, name))
        recorded_with[name] = " ".join(["python3", "probes/launch/hang_torch.py"] + cmd[2:])
        print("recording", name, "->", d, flush=True)
        drv = subprocess.Popen(cmd, stdout=sys.stdout, stderr=sys.stderr)
        nproc = 4
        while drv.poll() is None and len(files(d, "marks")) < nproc:
            time.sleep(0.1)
        got = pyspy_all(pyspy, d) if drv.poll() is None or files(d, "pids") else {}
        print("py-spy dump exit codes per rank:", got, flush=True)
        drv.wait()
        prov_text += "py-spy for %s: %s\n" % (name, json.dumps(got, sort_keys=True))
    with open(os.path.join(work, "commands.txt"), "w") as fh:
        fh.write("\n".join(commands) + "\n")
    prov = os.path.join(work, "PROVENANCE.txt")
    with open(prov, "w") as fh:
        fh.write(prov_text)
    print(prov_text)
    p = import_ch6.provenance(prov)
    p["gpu"] = "CPU ranks, no GPU"
    for name in a.scenarios.split(","):
        import_ch6.import_hang(work, name, p, 0, machine_words="this machine (%s)" % prov_text.split("cpu: ", 1)[1].split("\n", 1)[0],
                               recorder="probes/gpubench/record_ch6_cpu.py")
        rj = os.path.join(ROOT, "probes", "recorded", "hang", "hang-" + name, "run.json")
        r = json.load(open(rj))
        r["settings"]["recorded_with"] = recorded_with[name]
        with open(rj, "w") as fh:
            json.dump(r, fh, indent=1)
    print("work folder:", work)


if __name__ == "__main__":
    main()
