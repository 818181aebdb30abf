"""Overlap micro-benchmark for commlab chapter 5 (PyTorch's communication stack).

One "step" is a collective issued with async_op=True on ProcessGroupNCCL's
stream and K GEMMs on the current (compute) stream. Variants place the
collective's wait(), a .item(), a synchronize or an allocation in different
places; every variant's steps are timed with CUDA events (unprofiled, before
any profiler session has started) and then each variant's are recorded with
torch.profiler as a Chrome trace (trace-<variant>.json.gz), which
`commlab parse torch-trace` reads into per-stream intervals and the fraction
of communication time that ran under compute.

--what cq records the core question instead: for `work = coll(t,
async_op=True)` the CPU time the call returned and the time work.wait()
returned, against the collective's GPU activity, on the profiler's one
timeline (record_function ranges "cq:call", "cq:wait", ...); run it once
with TORCH_NCCL_BLOCKING_WAIT=1 and once without. It also measures what
happens when the input is modified before wait() (a data race: the output
counts modified elements), and what recordStream does when the input's
last reference is dropped before wait() (is its memory handed out again?).

On one GPU (world size 1) NCCL runs collectives as device copies: an
out-of-place all_gather_into_tensor or reduce_scatter_tensor is a
cudaMemcpyAsync of the whole buffer; an in-place SUM all_reduce does no work
at all; an AVG all_reduce runs NCCL's one-rank PreMulSum kernel. So one GPU
uses all_gather by default. Under torchrun each rank runs the same steps on
its own GPU and rank 0 writes the files.

--step NAME, repeated, runs several steps in this one process, on one
group: the flags before the first --step are every step's, each step's own
follow its name, and each step writes into --out/NAME. The steps share the
process's environment (so one setting of ProcessGroupNCCL), its CUDA
context and the profiler's start-up: the first profiler session of a
process loads CUPTI, about 5 s on an H100 (torch 2.11, CUDA 13).

Writes into --out DIR: summary.json (settings, versions, per-variant times,
the core-question cases) and one gzipped Chrome trace per variant or case.

CUPTI stays loaded between the script's profiler sessions (TEARDOWN_CUPTI=0
unless the caller sets it): Kineto otherwise finalizes CUPTI after each
session and the next one loads it again, which took 0.2 to 0.6 s a session
on an H100 (torch 2.11, CUDA 13); nothing is timed unprofiled after the
first session starts.
"""
import argparse
import datetime
import gzip
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TEARDOWN_CUPTI", "0")  # read by Kineto when torch loads it

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function

GiB = 1 << 30
MiB = 1 << 20

VARIANTS = {
    "compute_only": "K GEMMs on the compute stream, no collective",
    "comm_only": "the collective alone, then wait()",
    "overlap": "collective (async_op=True), then K GEMMs, then wait(): the collective runs under the GEMMs",
    "wait_early": "collective, wait() at once, then K GEMMs: the compute stream waits for the collective",
    "sync": "collective, torch.cuda.synchronize(), then K GEMMs: the CPU waits for every stream",
    "item_compute": "collective, 1 GEMM, .item() of that GEMM's output, K-1 GEMMs, wait()",
    "item_output": "collective, 1 GEMM, wait() and .item() of the collective's output (logging it), K-1 GEMMs",
    "empty_cache": "collective, torch.cuda.empty_cache() with a cached block to free, then K GEMMs, wait()",
    "alloc_retry": "collective, then an allocation that does not fit the cache under a memory cap (the caching "
                   "allocator frees cached blocks with cudaFree and retries), then K GEMMs, wait()",
}


def log(*a):
    print("[bench_overlap]", *a, flush=True)


def driver_version():
    # /proc first: it asks the kernel module, not the GPU, so it can run
    # while an earlier invocation is still timing (see --start-after).
    try:
        with open("/proc/driver/nvidia/version") as f:
            for word in f.read().split("Kernel Module", 1)[1].split():
                if word[:1].isdigit():
                    return word
    except (OSError, IndexError):
        pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout
        return out.split()[0] if out.split() else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def save_trace(prof, path):
    """Exports the profiler's Chrome trace and gzips it to path (…json.gz)."""
    raw = path[:-3] if path.endswith(".gz") else path + ".raw"
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(path + ".tmp", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.replace(path + ".tmp", path)
    os.remove(raw)


class Bench:
    def __init__(self, args):
        self.args = args
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.dev = torch.device("cuda", torch.cuda.current_device())
        n = args.gemm
        dt = getattr(torch, args.dtype)
        self.a = torch.randn(n, n, device=self.dev, dtype=dt)
        self.b = torch.randn(n, n, device=self.dev, dtype=dt)
        self.c = [torch.empty(n, n, device=self.dev, dtype=dt) for _ in range(2)]
        nbytes = args.bytes
        elems = nbytes // 4 // self.world * self.world
        self.coll = args.coll
        if self.coll == "all_gather":
            self.inp = torch.ones(elems // self.world, device=self.dev, dtype=torch.float32)
            self.out = torch.empty(elems, device=self.dev, dtype=torch.float32)
        elif self.coll == "reduce_scatter":
            self.inp = torch.ones(elems, device=self.dev, dtype=torch.float32)
            self.out = torch.empty(elems // self.world, device=self.dev, dtype=torch.float32)
        elif self.coll == "all_reduce":
            self.inp = torch.ones(elems, device=self.dev, dtype=torch.float32)
            self.out = self.inp
        else:
            raise SystemExit("bench_overlap: unknown collective " + self.coll)
        self.coll_bytes = elems * 4
        self.k = args.gemms

    def collective(self, async_op=True):
        if self.coll == "all_gather":
            return dist.all_gather_into_tensor(self.out, self.inp, async_op=async_op)
        if self.coll == "reduce_scatter":
            return dist.reduce_scatter_tensor(self.out, self.inp, async_op=async_op)
        return dist.all_reduce(self.inp, op=dist.ReduceOp.AVG, async_op=async_op)

    def gemms(self, k):
        for i in range(k):
            torch.mm(self.a, self.b, out=self.c[i % 2])

    # The steps. Each returns nothing; record_function names mark their parts.
    def step(self, variant):
        k = self.k
        if variant == "compute_only":
            self.gemms(k)
        elif variant == "comm_only":
            self.collective().wait()
        elif variant == "overlap":
            w = self.collective()
            self.gemms(k)
            w.wait()
        elif variant == "wait_early":
            w = self.collective()
            w.wait()
            self.gemms(k)
        elif variant == "sync":
            w = self.collective()
            with record_function("bench:synchronize"):
                torch.cuda.synchronize()
            self.gemms(k)
            w.wait()
        elif variant == "item_compute":
            w = self.collective()
            self.gemms(1)
            with record_function("bench:item"):
                self.c[0][0, 0].item()
            self.gemms(k - 1)
            w.wait()
        elif variant == "item_output":
            w = self.collective()
            self.gemms(1)
            w.wait()
            with record_function("bench:item"):
                self.out[0].item()
            self.gemms(k - 1)
        elif variant == "empty_cache":
            w = self.collective()
            with record_function("bench:empty_cache"):
                torch.cuda.empty_cache()
            self.gemms(k)
            w.wait()
        elif variant == "alloc_retry":
            w = self.collective()
            with record_function("bench:alloc"):
                x = torch.empty(self.args.junk + GiB, dtype=torch.uint8, device=self.dev)
            self.gemms(k)
            w.wait()
            del x
        else:
            raise SystemExit("bench_overlap: unknown variant " + variant)

    def setup(self, variant):
        """Leaves the allocator in the state the variant needs, outside the step."""
        if variant == "empty_cache":
            junk = torch.empty(self.args.junk, dtype=torch.uint8, device=self.dev)
            del junk  # a cached, free block for empty_cache to cudaFree
        elif variant == "alloc_retry":
            torch.cuda.set_per_process_memory_fraction(1.0, self.dev)
            torch.cuda.empty_cache()
            junk = torch.empty(self.args.junk, dtype=torch.uint8, device=self.dev)
            del junk
            torch.cuda.synchronize()
            total = torch.cuda.get_device_properties(self.dev).total_memory
            # The cap leaves room for the new block only once the cached one
            # is freed: reserved + junk + 1 GiB > cap >= reserved - junk + junk + 1 GiB.
            cap = torch.cuda.memory_reserved(self.dev) + GiB + GiB // 2
            torch.cuda.set_per_process_memory_fraction(min(1.0, cap / total), self.dev)
        torch.cuda.synchronize()

    def teardown(self, variant):
        if variant == "alloc_retry":
            torch.cuda.set_per_process_memory_fraction(1.0, self.dev)
        torch.cuda.synchronize()

    def time_variant(self, variant):
        """Times the variant's steps with CUDA events, unprofiled."""
        a = self.args
        res = {"variant": variant, "what": VARIANTS[variant]}
        for _ in range(a.warmup):
            self.setup(variant)
            self.step(variant)
            self.teardown(variant)
        retries0 = torch.cuda.memory_stats(self.dev).get("num_alloc_retries", 0)
        ev_ms, wall_ms = [], []
        for _ in range(a.steps):
            self.setup(variant)
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter()
            s.record()
            self.step(variant)
            e.record()
            torch.cuda.synchronize()
            wall_ms.append((time.perf_counter() - t0) * 1e3)
            ev_ms.append(s.elapsed_time(e))
            self.teardown(variant)
        res["alloc_retries"] = torch.cuda.memory_stats(self.dev).get("num_alloc_retries", 0) - retries0
        res["step_ms_events"] = ev_ms
        res["step_ms_wall"] = wall_ms
        res["step_ms_median"] = statistics.median(ev_ms)
        res["step_ms_wall_median"] = statistics.median(wall_ms)
        return res

    def trace_variant(self, variant, res, outdir):
        """Records the variant's profiled steps into res (from time_variant),
        after one unprofiled step: other variants ran since it was timed."""
        a = self.args
        self.setup(variant)
        self.step(variant)
        self.teardown(variant)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for i in range(a.trace_steps):
                self.setup(variant)
                with record_function("bench:step"):
                    self.step(variant)
                torch.cuda.synchronize()
                self.teardown(variant)
        if self.rank == 0:
            name = "trace-%s.json.gz" % variant
            save_trace(prof, os.path.join(outdir, name))
            res["trace"] = name
        log("%-13s step %.3f ms (events), %.3f ms (wall), alloc retries %d" % (
            variant, res["step_ms_median"], res["step_ms_wall_median"], res["alloc_retries"]))
        return res

    def calibrate(self):
        """Times one GEMM and the collective alone, and picks K when --gemms 0."""
        def timed(fn, n=5):
            for _ in range(2):
                fn()
            torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(n):
                fn()
            e.record()
            torch.cuda.synchronize()
            return s.elapsed_time(e) / n
        gemm_ms = timed(lambda: self.gemms(1))
        comm_ms = timed(lambda: self.collective().wait())
        if self.k <= 0:
            self.k = max(2, int(round(self.args.compute_ratio * comm_ms / gemm_ms)))
        n = self.args.gemm
        return {"gemm_ms": gemm_ms, "comm_ms": comm_ms, "gemms_per_step": self.k,
                "gemm_tflops": 2 * n ** 3 / (gemm_ms * 1e-3) / 1e12,
                "comm_bytes": self.coll_bytes,
                "comm_gbps": self.coll_bytes / (comm_ms * 1e-3) / 1e9}


def core_question(args, outdir, errors):
    """The core question's cases, each profiled on its own; a case that
    fails is recorded and the next one runs."""
    dev = torch.device("cuda", torch.cuda.current_device())
    world = dist.get_world_size()
    n = args.gemm
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    c = torch.empty(n, n, device=dev, dtype=torch.bfloat16)
    elems = args.cq_bytes // 4 // world * world
    cases = []

    def busy(k):
        # Queue compute ahead so the collective cannot start at once: it
        # waits (on the GPU) for what the current stream holds when it is
        # issued.
        with record_function("cq:gemms_before"):
            for _ in range(k):
                torch.mm(a, b, out=c)

    wanted = set(c for c in args.cases.split(",") if c)

    def run_case(name, what, body):
        if wanted and name not in wanted:
            return
        try:
            run_case1(name, what, body)
        except Exception as e:  # record the failure, go on with the next case
            log("cq", name, "failed:", repr(e))
            cases.append({"case": name, "what": what, "error": repr(e)})
            errors.append("cq %s: %r" % (name, e))

    def run_case1(name, what, body):
        torch.cuda.synchronize()
        for _ in range(2):  # warm-up, unprofiled
            body(dict())
            torch.cuda.synchronize()
        info = {}
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            with record_function("cq:case"):
                body(info)
            torch.cuda.synchronize()
        rec = {"case": name, "what": what}
        rec.update(info)
        if dist.get_rank() == 0:
            fn = "cq-%s.json.gz" % name
            save_trace(prof, os.path.join(outdir, fn))
            rec["trace"] = fn
        log("cq %-22s %s" % (name, json.dumps(info)))
        cases.append(rec)

    def make_simple(kind):
        def body(info):
            t = torch.ones(elems, device=dev, dtype=torch.float32)
            out = torch.empty(elems, device=dev, dtype=torch.float32) if kind == "all_gather" else None
            inp = torch.ones(elems // world, device=dev, dtype=torch.float32) if kind == "all_gather" else None
            torch.cuda.synchronize()
            busy(args.cq_gemms)
            with record_function("cq:call"):
                if kind == "all_reduce_sum":
                    w = dist.all_reduce(t, async_op=True)
                elif kind == "all_reduce_avg":
                    w = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True)
                else:
                    w = dist.all_gather_into_tensor(out, inp, async_op=True)
            with record_function("cq:wait"):
                w.wait()
            with record_function("cq:after_wait"):
                # A kernel the current stream runs after wait(): it starts
                # only when the collective has finished.
                (out if out is not None else t).mul_(1.0)
            with record_function("cq:is_completed"):
                info["is_completed_after_wait"] = bool(w.is_completed())
            with record_function("cq:synchronize"):
                torch.cuda.synchronize()
        return body

    run_case("all_reduce_sum", "in-place SUM all_reduce (one rank: NCCL does nothing)", make_simple("all_reduce_sum"))
    run_case("all_reduce_avg", "in-place AVG all_reduce (one rank: NCCL's PreMulSum kernel)", make_simple("all_reduce_avg"))
    run_case("all_gather", "out-of-place all_gather_into_tensor (one rank: a device copy)", make_simple("all_gather"))

    def race(modify_before_wait):
        def body(info):
            inp = torch.ones(elems // world, device=dev, dtype=torch.float32)
            out = torch.zeros(elems, device=dev, dtype=torch.float32)
            torch.cuda.synchronize()
            busy(args.cq_gemms)
            with record_function("cq:call"):
                w = dist.all_gather_into_tensor(out, inp, async_op=True)
            if modify_before_wait:
                with record_function("cq:modify"):
                    inp.fill_(2.0)
                with record_function("cq:wait"):
                    w.wait()
            else:
                with record_function("cq:wait"):
                    w.wait()
                with record_function("cq:modify"):
                    inp.fill_(2.0)
            torch.cuda.synchronize()
            info["out_elements"] = int(out.numel())
            info["out_modified_elements"] = int(out.eq(2.0).sum().item())
            info["out_zero_elements"] = int(out.eq(0.0).sum().item())
        return body

    run_case("modify_before_wait", "input filled with 2.0 on the compute stream after the call, before wait()", race(True))
    run_case("modify_after_wait", "input filled with 2.0 after wait()", race(False))

    def drop_input(info):
        inp = torch.ones(elems // world, device=dev, dtype=torch.float32)
        out = torch.zeros(elems, device=dev, dtype=torch.float32)
        torch.cuda.synchronize()
        busy(args.cq_gemms)
        ptr = inp.data_ptr()
        with record_function("cq:call"):
            w = dist.all_gather_into_tensor(out, inp, async_op=True)
        with record_function("cq:drop_input"):
            del inp
        with record_function("cq:new_tensor"):
            x = torch.empty(elems // world, device=dev, dtype=torch.float32)
            x.fill_(3.0)
        info["new_tensor_reuses_input_memory"] = x.data_ptr() == ptr
        with record_function("cq:wait"):
            w.wait()
        torch.cuda.synchronize()
        info["out_elements_from_new_tensor"] = int(out.eq(3.0).sum().item())

    def side_stream(info):
        # What recordStream prevents, shown without it: a copy on a side
        # stream reads inp; inp's last reference is dropped; the allocator,
        # which knows only the stream inp was allocated on, hands the memory
        # to the next tensor at once.
        inp = torch.ones(elems // world, device=dev, dtype=torch.float32)
        out = torch.zeros(elems // world, device=dev, dtype=torch.float32)
        torch.cuda.synchronize()
        busy(args.cq_gemms)
        ptr = inp.data_ptr()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with record_function("cq:side_copy"):
            with torch.cuda.stream(s):
                out.copy_(inp)
        with record_function("cq:drop_input"):
            del inp
        with record_function("cq:new_tensor"):
            x = torch.empty(elems // world, device=dev, dtype=torch.float32)
            x.fill_(3.0)
        info["new_tensor_reuses_input_memory"] = x.data_ptr() == ptr
        torch.cuda.synchronize()
        info["out_elements_from_new_tensor"] = int(out.eq(3.0).sum().item())

    run_case("side_stream_no_record_stream", "a copy on a side stream without record_stream: input dropped, "
             "a same-size tensor allocated and filled with 3.0", side_stream)
    run_case("drop_input_before_wait", "input's last reference dropped after the call, a same-size tensor allocated "
             "and filled with 3.0 before wait()", drop_input)
    return cases


def parser():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True, help="folder for summary.json and the traces")
    p.add_argument("--what", default="variants,cq", help="variants, cq or both")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--coll", default="", help="all_gather, reduce_scatter or all_reduce "
                   "(default: all_gather on one rank, all_reduce on several)")
    p.add_argument("--bytes", type=int, default=2 * GiB, help="collective size (all_gather: the output)")
    p.add_argument("--gemm", type=int, default=4096, help="GEMM dimension (N x N by N x N)")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--gemms", type=int, default=0, help="GEMMs per step; 0 picks about compute-ratio x the collective's time")
    p.add_argument("--compute-ratio", type=float, default=1.5)
    p.add_argument("--junk", type=int, default=2 * GiB, help="cached block empty_cache and alloc_retry free")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--steps", type=int, default=7, help="timed steps per variant")
    p.add_argument("--trace-steps", type=int, default=2, help="profiled steps per variant")
    p.add_argument("--cq-bytes", type=int, default=GiB)
    p.add_argument("--cq-gemms", type=int, default=20, help="GEMMs queued before each case's call")
    p.add_argument("--cases", default="", help="core-question cases to run (default: all)")
    p.add_argument("--start-after", default="", help="wait until this file exists before touching the GPU: "
                   "a runner starts the next invocation while this one runs, so that Python's and torch's "
                   "start-up overlaps the GPU work of the one before, which stays alone on the GPU")
    return p


def split_steps(argv):
    """Splits the command line at each "--step NAME": the flags before the
    first are every step's, each step's own follow its name. Without
    --step the whole line is one step, written into --out itself."""
    common, steps = [], []
    i = 0
    while i < len(argv):
        if argv[i] == "--step":
            if i + 1 >= len(argv) or argv[i + 1].startswith("-") or "/" in argv[i + 1] or argv[i + 1] in (".", ".."):
                raise SystemExit("bench_overlap: --step wants a folder name after it")
            steps.append((argv[i + 1], []))
            i += 2
            continue
        (steps[-1][1] if steps else common).append(argv[i])
        i += 1
    return common, steps


class StepRun:
    """One step of the process: its flags, its summary and, while its
    variants wait to be traced, its Bench and their timed results."""

    def __init__(self, args, header):
        self.args, self.bench, self.timed = args, None, []
        os.makedirs(args.out, exist_ok=True)
        if not args.coll:
            args.coll = "all_gather" if dist.get_world_size() == 1 else "all_reduce"
        self.summary = dict(header)
        self.summary.update({
            "command": ["python3"] + sys.argv,
            # --start-after is how the run was scheduled, not what it measured.
            "settings": {k: str(v) for k, v in vars(args).items() if k != "start_after" and (v or k != "cases")},
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "variants": [], "cases": [], "errors": [],
        })
        self.what = args.what.split(",")

    def time(self):
        """Calibrates and times the variants, unprofiled."""
        if "variants" not in self.what:
            return
        summary = self.summary
        self.bench = bench = Bench(self.args)
        try:
            summary["calibration"] = bench.calibrate()
            log("calibration", json.dumps(summary["calibration"]))
        except Exception as e:  # record and carry on
            summary["errors"].append("calibrate: %r" % (e,))
        for v in self.args.variants.split(","):
            try:
                self.timed.append((v, bench.time_variant(v)))
            except Exception as e:
                summary["errors"].append("%s: %r" % (v, e))
                log("variant", v, "failed:", repr(e))
                torch.cuda.set_per_process_memory_fraction(1.0)

    def profile(self):
        """Traces the timed variants, then runs the core-question cases."""
        summary = self.summary
        for v, res in self.timed:
            try:
                summary["variants"].append(self.bench.trace_variant(v, res, self.args.out))
            except Exception as e:
                summary["errors"].append("%s (traced): %r" % (v, e))
                log("variant", v, "failed under the profiler:", repr(e))
                torch.cuda.set_per_process_memory_fraction(1.0)
        if self.bench is not None:
            self.bench = None
            torch.cuda.empty_cache()
        if "cq" in self.what:
            try:
                summary["cases"] = core_question(self.args, self.args.out, summary["errors"])
            except Exception as e:
                summary["errors"].append("cq: %r" % (e,))
                log("cq failed:", repr(e))


def main():
    p = parser()
    common, steps = split_steps(sys.argv[1:])
    base = p.parse_args(common)
    # Each step's flags on top of the common ones; its folder under --out.
    plan = []
    for name, own in steps or [(None, [])]:
        args = p.parse_args(common + own)
        # The gate is the process's, wherever it was given.
        base.start_after = base.start_after or args.start_after
        if name is not None:
            if args.out != base.out:
                raise SystemExit("bench_overlap: --out goes before the first --step")
            args.out = os.path.join(base.out, name)
        plan.append(args)
    for args in plan:
        args.start_after = base.start_after
    os.makedirs(base.out, exist_ok=True)
    driver = driver_version()
    if base.start_after:
        parent = os.getppid()
        while not os.path.exists(base.start_after):
            if os.getppid() != parent:
                raise SystemExit("bench_overlap: the runner ended before this invocation's turn")
            time.sleep(0.005)
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29541")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    # One group for every step: the steps of one invocation share the
    # process's settings, its CUDA context and its profiler start-up
    # (the first session loads CUPTI, about 5 s on an H100).
    t0 = time.perf_counter()
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    init_s = time.perf_counter() - t0
    world = dist.get_world_size()
    header = {
        "kind": "torch-overlap",
        "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_NCCL", "TORCH_FR", "CUDA_", "PYTORCH_"))},
        "host": socket.gethostname(), "gpu_model": torch.cuda.get_device_name(local),
        "gpu_count": world, "cuda": torch.version.cuda, "driver": driver,
        "nccl": ".".join(map(str, torch.cuda.nccl.version())), "tool": "torch " + torch.__version__,
        "torch_git_version": str(getattr(torch.version, "git_version", "")),
        "init_process_group_s": init_s,
        "streams": {"compute": torch.cuda.current_stream().cuda_stream},
    }
    # Every step's variants are timed before any profiler session starts
    # (the sessions leave CUPTI loaded, TEARDOWN_CUPTI=0 above), then
    # each step's are traced and its cases run, in order.
    runs = [StepRun(args, header) for args in plan]
    for r in runs:
        r.time()
    for r in runs:
        if len(runs) > 1:
            log("step", os.path.basename(r.args.out))
        r.profile()
    dist.destroy_process_group()
    errors = [e for r in runs for e in r.summary["errors"]]
    if int(os.environ.get("RANK", "0")) == 0:
        for r in runs:
            tmp = os.path.join(r.args.out, "summary.json.tmp")
            with open(tmp, "w") as f:
                json.dump(r.summary, f, indent=1)
            os.replace(tmp, os.path.join(r.args.out, "summary.json"))
    if errors:
        log("errors:", errors)
        sys.exit(1)


if __name__ == "__main__":
    main()
