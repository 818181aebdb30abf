#!/usr/bin/env python3
"""kv_nixl.py: KV-cache-sized transfers through NIXL on one GPU.

Two NIXL agents live in this process: "gpu" holds a KV cache in device
memory, "host" a pinned buffer of the same size in host memory. The GPU
agent WRITEs its cache into the host buffer (device to host, what a
prefill instance does when it stages KV out) and READs it back (host to
device, what a decode instance does when it loads KV), once as one
descriptor and once as one descriptor per layer (the way an engine's
connector moves a layer's blocks). Each transfer is timed on the host from
posting it to NIXL reporting DONE, and its bytes are checked against the
source. The same copies through PyTorch (copy_ and a synchronize) are
timed beside them, so NIXL's overhead shows against the plain copy.

Needs PyTorch with a GPU and NIXL's Python package for the CUDA major
version (pip install nixl, or nixl-cu13 alone). Writes one JSON run in
commlab's format (probes.Run) to --out.

    python3 kv_nixl.py --out nixl-kv.json [--min 16M] [--max 2G] [--layers 80]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time


def parse_size(s):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper().rstrip("B").rstrip("I")
    unit = s[-1] if s and s[-1] in "KMG" else ""
    return int(float(s[: len(s) - len(unit)]) * units[unit])


def import_nixl():
    """NIXL's agent classes: from the meta package, else the CUDA wheel."""
    errors = []
    for mod in ("nixl._api", "nixl_cu13._api", "nixl_cu12._api"):
        try:
            m = __import__(mod, fromlist=["nixl_agent", "nixl_agent_config"])
            return m.nixl_agent, m.nixl_agent_config, mod.split(".")[0]
        except ImportError as e:
            errors.append(f"{mod}: {e}")
    raise ImportError("no NIXL here (" + "; ".join(errors) + ")")


def package_version(name):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return "unknown"


def driver_version():
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0]
    except Exception:
        return ""


def wait_done(agent, handle, what):
    state = agent.transfer(handle)
    while state == "PROC":
        state = agent.check_xfer_state(handle)
    if state != "DONE":
        raise RuntimeError(f"kv_nixl: {what}: transfer state {state}")


def sample(op, label, nbytes, times_s, wrong):
    us = [t * 1e6 for t in times_s]
    med = statistics.median(us)
    return {
        "op": op, "label": label, "bytes": nbytes, "src": 0, "dst": 0,
        "iters": 1, "times_us": us, "median_us": med, "min_us": min(us),
        "max_us": max(us), "algbw_gbps": nbytes / (med * 1e-6) / 1e9,
        "wrong": wrong,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the run's JSON file")
    ap.add_argument("--min", default="16M", help="smallest cache size (bytes, K, M, G)")
    ap.add_argument("--max", default="2G", help="largest cache size")
    ap.add_argument("--layers", type=int, default=80, help="descriptors of the per-layer transfer")
    ap.add_argument("--reps", type=int, default=7, help="timed transfers per size; the median is kept")
    ap.add_argument("--warmup", type=int, default=2, help="untimed transfers per size")
    ap.add_argument("--backend", default="UCX", help="NIXL backend")
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args()

    import torch

    if not torch.cuda.is_available():
        sys.exit("kv_nixl: PyTorch sees no GPU")
    nixl_agent, nixl_agent_config, nixl_module = import_nixl()
    torch.cuda.set_device(args.device)
    dev = torch.device("cuda", args.device)

    conf = nixl_agent_config(backends=[args.backend])
    gpu = nixl_agent("gpu", conf)
    host = nixl_agent("host", conf)
    if args.backend not in gpu.backends:
        sys.exit(f"kv_nixl: backend {args.backend} not loaded (plugins: {gpu.get_plugin_list()})")

    sizes, s = [], parse_size(args.min)
    while s <= parse_size(args.max):
        sizes.append(s)
        s *= 2
    samples, notes = [], []
    for size in sizes:
        size -= size % (args.layers * 16)
        src = (torch.arange(size, dtype=torch.int32, device=dev) % 251).to(torch.uint8)
        back = torch.empty(size, dtype=torch.uint8, device=dev)
        dst = torch.empty(size, dtype=torch.uint8).pin_memory()
        gpu_reg = gpu.register_memory([src, back])
        host_reg = host.register_memory([dst])
        gpu.add_remote_agent(host.get_agent_metadata())

        def descs(agent, t, layered):
            return agent.get_xfer_descs(list(t.view(args.layers, -1).unbind(0)) if layered else t)

        for layered in (False, True):
            label = f"layers{args.layers}" if layered else "whole"
            for op, local, verb in (("nixl_d2h", src, "WRITE"), ("nixl_h2d", back, "READ")):
                handle = gpu.initialize_xfer(verb, descs(gpu, local, layered), descs(host, dst, layered), "host")
                times = []
                for i in range(args.warmup + args.reps):
                    if op == "nixl_h2d":
                        back.zero_()
                        torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    wait_done(gpu, handle, f"{op} {size} B {label}")
                    if i >= args.warmup:
                        times.append(time.perf_counter() - t0)
                gpu.release_xfer_handle(handle)
                torch.cuda.synchronize()
                wrong = int(not torch.equal(dst.to(dev), src)) if op == "nixl_d2h" else int(not torch.equal(back, src))
                samples.append(sample(op, label, size, times, wrong))
        # The same copies through PyTorch, timed the same way (host clock, to completion).
        for op, do in (("torch_d2h", lambda: dst.copy_(src, non_blocking=True)),
                       ("torch_h2d", lambda: back.copy_(dst, non_blocking=True))):
            times = []
            for i in range(args.warmup + args.reps):
                t0 = time.perf_counter()
                do()
                torch.cuda.synchronize()
                if i >= args.warmup:
                    times.append(time.perf_counter() - t0)
            samples.append(sample(op, "whole", size, times, int(not torch.equal(back if op == "torch_h2d" else dst.to(dev), src))))
        gpu.remove_remote_agent("host")
        gpu.deregister_memory(gpu_reg)
        host.deregister_memory(host_reg)
        del src, back, dst
        torch.cuda.empty_cache()

    if any(s["wrong"] for s in samples):
        notes.append("some transfers delivered bytes that differ from the source: see wrong")
    argv = ["commlab", "probe", "kv-nixl", "--"] + [a for a in sys.argv[1:] if a != args.out and not a.startswith("--out")]
    argv = [a for a in argv if a != "--out"]
    run = {
        "kind": "nixl-kv",
        "command": argv,
        "settings": {
            "backend": args.backend, "layers": str(args.layers), "reps": str(args.reps),
            "warmup": str(args.warmup), "min": args.min, "max": args.max,
            "agents": "two NIXL agents in one process: gpu (device memory) and host (pinned host memory)",
            "timing": "host clock from posting a prepared transfer to NIXL's DONE; median over reps; torch_* are copy_ and torch.cuda.synchronize() on the same buffers",
            "nixl_module": nixl_module,
        },
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "gpu_model": torch.cuda.get_device_name(dev),
        "gpu_count": 1,
        "driver": driver_version(),
        "cuda": torch.version.cuda or "",
        "tool": f"nixl {package_version(nixl_module.replace('_', '-'))} ({args.backend}), torch {torch.__version__}",
        "notes": notes,
        "samples": samples,
    }
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(run, f, indent=1)
    os.replace(tmp, args.out)
    print(f"kv_nixl: {len(samples)} samples written to {args.out}")


if __name__ == "__main__":
    main()
