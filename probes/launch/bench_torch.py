"""PyTorch reference for commlab's probes, measured the same way.

Times device-local and host-device copies (Tensor.copy_, which calls
cudaMemcpyAsync) and torch.distributed NCCL collectives (all_reduce
in-place, all_gather_into_tensor and reduce_scatter_tensor out-of-place) with
CUDA events around `iters` back-to-back operations, median over `reps`, and
writes the results as a commlab Run (probes/run.go) so
`commlab probe bandwidth|nccl --compare` can set them side by side.

Single process, one GPU per process; under torchrun each rank times its
own GPU, each repetition keeps the slowest rank's time (as commlab does), and
rank 0 writes the file.
"""
import argparse
import datetime
import json
import os
import socket
import statistics
import subprocess

import torch
import torch.distributed as dist


def sizes(lo, hi, factor=2):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= factor
    return out


def timed(fn, warmup, iters, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3 / iters)  # microseconds per op
    if dist.is_initialized() and dist.get_world_size() > 1:
        # commlab takes, per repetition, the slowest rank's time; so must the
        # reference, or rank 0's own time would flatter it.
        t = torch.tensor(times, dtype=torch.float64, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times = t.tolist()
    return times


def sample(op, nbytes, times, **kw):
    med = statistics.median(times)
    s = {"op": op, "bytes": nbytes, "src": kw.pop("src", -1), "dst": kw.pop("dst", -1),
         "times_us": times, "median_us": med, "min_us": min(times), "max_us": max(times),
         "algbw_gbps": nbytes / (med * 1e3) if med > 0 else 0, "wrong": -1}
    s.update(kw)
    return s


def copies(args):
    out = []
    dev = torch.device("cuda", 0)
    for n in sizes(args.copy_min, args.copy_max, 4):
        src = torch.empty(n, dtype=torch.uint8, device=dev).fill_(3)
        dst = torch.empty(n, dtype=torch.uint8, device=dev)
        out.append(sample("d2d", n, timed(lambda: dst.copy_(src, non_blocking=True), args.warmup, args.iters, args.reps), src=0, dst=0))
        for pinned in (True, False):
            host = torch.empty(n, dtype=torch.uint8, pin_memory=pinned).fill_(5)
            tag = "pinned" if pinned else "pageable"
            out.append(sample("h2d_" + tag, n, timed(lambda: dst.copy_(host, non_blocking=pinned), args.warmup, args.iters, args.reps), src=-1, dst=0))
            out.append(sample("d2h_" + tag, n, timed(lambda: host.copy_(src, non_blocking=pinned), args.warmup, args.iters, args.reps), src=0, dst=-1))
            del host
        del src, dst
    return out


def collectives(args):
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", torch.cuda.current_device())
    out = []
    for coll in args.colls.split(","):
        for n in sizes(args.nccl_min, args.nccl_max, 2):
            count = n // 4
            if coll == "all_reduce":
                t = torch.ones(count, dtype=torch.float32, device=dev)
                fn, size, inplace, factor = (lambda: dist.all_reduce(t)), count * 4, True, 2 * (world - 1) / world
            elif coll == "all_gather":
                per = count // world
                if per == 0:
                    continue
                inp = torch.ones(per, dtype=torch.float32, device=dev)
                res = torch.empty(per * world, dtype=torch.float32, device=dev)
                fn, size, inplace, factor = (lambda: dist.all_gather_into_tensor(res, inp)), per * world * 4, False, (world - 1) / world
            elif coll == "reduce_scatter":
                per = count // world
                if per == 0:
                    continue
                inp = torch.ones(per * world, dtype=torch.float32, device=dev)
                res = torch.empty(per, dtype=torch.float32, device=dev)
                fn, size, inplace, factor = (lambda: dist.reduce_scatter_tensor(res, inp)), per * world * 4, False, (world - 1) / world
            else:
                raise SystemExit("unknown collective " + coll)
            times = timed(fn, args.warmup, args.iters, args.reps)
            s = sample(coll, size, times, count=size // 4 // (world if coll != "all_reduce" else 1),
                       dtype="float32", ranks=world, in_place=inplace, iters=args.iters)
            s["busbw_gbps"] = s["algbw_gbps"] * factor
            out.append(s)
            del fn
        torch.cuda.empty_cache()
    return out


def driver_version():
    """The NVIDIA driver version as nvidia-smi reports it ("" if it cannot)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout
        return out.split()[0] if out.split() else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--what", default="copy,nccl")
    p.add_argument("--out", required=True)
    p.add_argument("--copy-min", type=int, default=4 << 10)
    p.add_argument("--copy-max", type=int, default=1 << 30)
    p.add_argument("--nccl-min", type=int, default=8)
    p.add_argument("--nccl-max", type=int, default=1 << 30)
    p.add_argument("--colls", default="all_reduce,all_gather,reduce_scatter")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    run = {"kind": "torch", "command": ["python3"] + __import__("sys").argv,
           "settings": {k: str(v) for k, v in vars(args).items()},
           "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_NCCL", "CUDA_"))},
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "host": socket.gethostname(), "gpu_model": torch.cuda.get_device_name(local),
           "gpu_count": torch.cuda.device_count(), "cuda": torch.version.cuda, "driver": driver_version(),
           "tool": "torch " + torch.__version__, "samples": []}
    run["settings"]["timing"] = ("CUDA events around iters back-to-back operations; per repetition the slowest "
                                 "rank's time / iters; median over reps")
    what = args.what.split(",")
    if "copy" in what:
        run["samples"] += copies(args)
    if "nccl" in what:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29533")
        os.environ.setdefault("RANK", "0")
        os.environ.setdefault("WORLD_SIZE", "1")
        dist.init_process_group("nccl", device_id=torch.device("cuda", local))
        run["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
        run["gpu_count"] = dist.get_world_size()
        run["samples"] += collectives(args)
        dist.destroy_process_group()
    if local == 0:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(run, f, indent=1)
        os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
