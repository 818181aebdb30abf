"""Chapter 7's PyTorch recording: small-message NCCL latency, plain and in
CUDA graphs, and KV-cache-sized copies.

Run alone (one rank on GPU 0) or under torchrun (one rank per GPU). Writes
one commlab Run (probes/run.go) as JSON (--out), kind "torch-inference";
each sample keeps every repetition's time in microseconds and their median.

nccl: for each size (bytes, --nccl-min..--nccl-max, x2), all_reduce
in-place and all_gather_into_tensor out-of-place, four ways:
  plain  CUDA events around `iters` back-to-back eager calls (the GPU time
         per call once launches overlap)
  sync   host wall time of one eager call and torch.cuda.synchronize()
         (what a caller waiting for the result sees, launch included)
  graph1 one call captured in a CUDA graph; the graph replayed `iters`
         times between CUDA events (per replay)
  graphN `iters` calls captured in one graph, replayed once between CUDA
         events (per call)
On one GPU NCCL runs one-rank collectives as device copies (in-place
all_reduce does no work at all): the chapter labels these "launch and copy
floor".

kv: copies of --kv-min..--kv-max bytes (x2) device to device, host to
device and device to host from pinned and pageable memory, one copy each,
and per layer (--layers copies of bytes/layers each, as a KV cache moves
layer by layer).
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.distributed as dist


def sizes(lo, hi):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def ev_time(fn, warmup, iters, reps, per):
    """Median-able list of microseconds per `per` calls of fn over reps."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out = []
    for _ in range(reps):
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b) * 1e3 / (iters * per))
    return out


def sync_time(fn, warmup, reps):
    for _ in range(warmup):
        fn()
        torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t) * 1e6)
    return out


def slowest(times):
    """Per repetition, the slowest rank's time (as commlab's probes keep)."""
    if dist.is_initialized() and dist.get_world_size() > 1:
        t = torch.tensor(times, dtype=torch.float64, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.tolist()
    return times


def record(samples, op, label, nbytes, times, src=0, dst=0, ranks=1, iters=1, **kw):
    """Appends one sample in commlab's probes.Sample form."""
    med = statistics.median(times)
    s = {"op": op, "label": label, "bytes": nbytes, "src": src, "dst": dst, "ranks": ranks, "iters": iters,
         "times_us": [round(t, 3) for t in times], "median_us": round(med, 3),
         "min_us": round(min(times), 3), "max_us": round(max(times), 3),
         "algbw_gbps": round(nbytes / (med * 1e3), 4) if med > 0 else 0, "wrong": -1}
    s.update(kw)
    samples.append(s)
    print(f"{op} {label} {nbytes} B median {med:.2f} us", flush=True)


def nccl_part(args, samples, errors, rank, world):
    dev = torch.device("cuda", torch.cuda.current_device())
    for nbytes in sizes(args.nccl_min, args.nccl_max):
        n = max(1, nbytes // 4)
        x = torch.ones(n, dtype=torch.float32, device=dev)
        g_in = torch.ones(n, dtype=torch.float32, device=dev)
        g_out = torch.empty(n * world, dtype=torch.float32, device=dev)
        ops = {
            "all_reduce": lambda: dist.all_reduce(x),
            "all_gather": lambda: dist.all_gather_into_tensor(g_out, g_in),
        }
        for op, fn in ops.items():
            kw = {"dtype": "float32", "count": n, "in_place": op == "all_reduce"}
            try:
                record(samples, op, "plain", nbytes, slowest(ev_time(fn, 5, args.iters, args.reps, 1)), ranks=world, iters=args.iters, **kw)
                record(samples, op, "sync", nbytes, slowest(sync_time(fn, 5, args.iters)), ranks=world, iters=1, **kw)
                # Warm up on a side stream before capture, as the CUDA graphs docs ask.
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        fn()
                torch.cuda.current_stream().wait_stream(s)
                torch.cuda.synchronize()
                g1 = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g1, capture_error_mode="thread_local"):
                    fn()
                record(samples, op, "graph1", nbytes, slowest(ev_time(g1.replay, 3, args.iters, args.reps, 1)), ranks=world, iters=args.iters, **kw)
                gn = torch.cuda.CUDAGraph()
                with torch.cuda.graph(gn, capture_error_mode="thread_local"):
                    for _ in range(args.iters):
                        fn()
                record(samples, op, "graphN", nbytes, slowest(ev_time(gn.replay, 1, 1, args.reps, args.iters)), ranks=world, iters=args.iters, **kw)
                del g1, gn
            except Exception as e:  # record and go on
                print(f"nccl {op} {nbytes} B failed: {e!r}", file=sys.stderr, flush=True)
                errors.append(f"{op} {nbytes} B: {e!r}")
        del x, g_in, g_out


def kv_part(args, samples, errors):
    dev = torch.device("cuda", torch.cuda.current_device())
    top = args.kv_max
    d_src = torch.empty(top, dtype=torch.uint8, device=dev)
    d_dst = torch.empty(top, dtype=torch.uint8, device=dev)
    pinned = torch.empty(top, dtype=torch.uint8, pin_memory=True)
    pageable = torch.empty(top, dtype=torch.uint8)
    pageable.fill_(1)  # touch every page once, so the first copy does not pay for page faults
    pinned.fill_(1)
    d_src.fill_(1)
    for nbytes in sizes(args.kv_min, args.kv_max):
        pairs = {
            "d2d": (d_dst, d_src, 0, 0),
            "h2d_pinned": (d_dst, pinned, -1, 0),
            "d2h_pinned": (pinned, d_src, 0, -1),
            "h2d_pageable": (d_dst, pageable, -1, 0),
            "d2h_pageable": (pageable, d_src, 0, -1),
        }
        for op, (dst, src, si, di) in pairs.items():
            try:
                dv, sv = dst[:nbytes], src[:nbytes]
                nb = op.endswith("pinned") or op == "d2d"
                whole = lambda: dv.copy_(sv, non_blocking=nb)
                record(samples, op, "kv", nbytes, ev_time(whole, 1, 1, args.reps, 1), src=si, dst=di)
                # Host wall time too: a pageable copy blocks the host while it stages.
                record(samples, op, "kv-wall", nbytes, sync_time(whole, 1, args.reps), src=si, dst=di)
                if args.layers > 1 and op in ("d2d", "h2d_pinned", "d2h_pinned"):
                    chunk = nbytes // args.layers
                    parts = [(dv[i * chunk:(i + 1) * chunk], sv[i * chunk:(i + 1) * chunk]) for i in range(args.layers)]

                    def layered():
                        for d, s in parts:
                            d.copy_(s, non_blocking=True)
                    record(samples, op, f"kv-layers{args.layers}", chunk * args.layers,
                           ev_time(layered, 1, 1, args.reps, 1), src=si, dst=di, count=args.layers)
            except Exception as e:
                print(f"kv {op} {nbytes} B failed: {e!r}", file=sys.stderr, flush=True)
                errors.append(f"{op} {nbytes} B: {e!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--what", default="nccl,kv")
    ap.add_argument("--nccl-min", type=int, default=8)
    ap.add_argument("--nccl-max", type=int, default=8 << 20)
    ap.add_argument("--kv-min", type=int, default=16 << 20)
    ap.add_argument("--kv-max", type=int, default=2 << 30)
    ap.add_argument("--layers", type=int, default=80)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    samples, errors = [], []
    run = {"kind": "torch-inference", "command": ["python3"] + sys.argv,
           "settings": {k: str(v) for k, v in vars(args).items()},
           "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_", "NVSHMEM_", "CUDA_"))},
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "gpu_model": torch.cuda.get_device_name(local), "gpu_count": world,
           "cuda": torch.version.cuda, "driver": driver_version(),
           "nccl": ".".join(str(v) for v in torch.cuda.nccl.version()),
           "tool": "torch " + torch.__version__, "samples": samples, "notes": []}
    run["settings"]["timing"] = (
        "labels: plain = CUDA events around iters back-to-back eager calls; sync = host wall time of one call "
        "and torch.cuda.synchronize(); graph1 = one call captured in a CUDA graph, replayed iters times between "
        "CUDA events; graphN = iters calls captured in one graph, replayed once, per call; kv = CUDA events "
        "around one Tensor.copy_; kv-wall = host wall time of one copy_ and synchronize; kv-layersN = N copies "
        "of bytes/N each; median over reps; several ranks: each repetition the slowest rank's time")
    if world == 1:
        run["notes"].append("one GPU: NCCL runs one-rank collectives as device copies (in-place all_reduce does "
                            "no work): a launch and copy floor, not NCCL's algorithms")
    what = args.what.split(",")
    if "nccl" in what:
        try:
            dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", local))
            nccl_part(args, samples, errors, rank, world)
            dist.destroy_process_group()
        except Exception as e:
            print(f"nccl part failed: {e!r}", file=sys.stderr, flush=True)
            errors.append(f"nccl part: {e!r}")
    if "kv" in what and rank == 0:
        try:
            kv_part(args, samples, errors)
        except Exception as e:
            print(f"kv part failed: {e!r}", file=sys.stderr, flush=True)
            errors.append(f"kv part: {e!r}")
    if errors:
        run["error"] = "; ".join(errors)
    if rank == 0:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(run, f, indent=1)
        os.replace(tmp, args.out)


def driver_version():
    """The NVIDIA driver version as nvidia-smi reports it ("" if it cannot)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout
        return out.split()[0] if out.split() else ""
    except (OSError, subprocess.SubprocessError):
        return ""


if __name__ == "__main__":
    main()
