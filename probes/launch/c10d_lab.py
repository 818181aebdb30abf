"""c10d experiments for commlab chapter 5 (PyTorch's communication stack).

Four parts, each run on its own ranks so that one failing does not stop the
others:

  store     every call the backend makes on the rendezvous store during
            init_process_group and a first collective (a logging wrapper
            around a TCPStore): who publishes what, under which key, how
            many bytes (NCCL's unique id, gloo's addresses).
  coalesce  N small all_reduces issued one by one, under
            dist._coalescing_manager, through all_reduce_coalesced, and
            copied into one flat buffer: time per group of N, on the host
            and (on a GPU) on the device, and the kernels each launches.
  timeout   a collective that cannot finish before a short timeout, once
            per TORCH_NCCL_ASYNC_ERROR_HANDLING value, each in a fresh
            process: what the process saw (an exception and where, or an
            abort), its exit status, the watchdog's log lines and the
            Flight Recorder dumps left behind. On a GPU one NCCL rank whose
            stream is kept busy (torch.cuda._sleep) past the timeout; on CPU
            two gloo ranks, one of which never joins.
  compile   a functional collective (torch.distributed._functional_collectives)
            under torch.compile: the graph Dynamo captures and the code
            Inductor writes by default, with the reordering flag alone, with
            the flag and its pass list, and with the overlap scheduler, and
            where wait_tensor sits in each.

--backend gloo runs on CPU ranks (2 by default, started here, no torchrun);
--backend nccl runs one rank per GPU (1 by default). The driver writes
summary.json into --out (atomically), with the versions and each part's
result; a part that fails is recorded and the next one runs.

--concurrent shortens a run without changing what each part does: the
timeout part starts every mode's processes at once, and the parts that time
nothing on the GPU (store, timeout, compile) run side by side before the
coalesce part, whose numbers are times, runs alone. --dump-wait-ms sets
TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC for the timeout ranks (the watchdog
sleeps four times it before acting), and --grace is how long past
timeout + 2 x stall a rank may live before it is killed.

Usage: python3 c10d_lab.py --out DIR [--backend gloo|nccl] [--parts store,coalesce,timeout,compile]
       [--concurrent] [--timeout S] [--stall S] [--dump-wait-ms MS] [--grace S] [--modes unset,0,1,2,3]
"""
import argparse
import datetime
import glob
import json
import os
import platform
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

SCRIPT = os.path.abspath(__file__)
PARTS = ["store", "coalesce", "timeout", "compile"]
# Parts whose numbers are times on a shared GPU: never run beside another.
TIMED_PARTS = {"coalesce"}


def log(*a):
    print("[c10d_lab]", *a, file=sys.stderr, flush=True)


PORTS_LOCK = threading.Lock()
PORTS_GIVEN = set()


def free_port():
    # Parts and modes may start side by side (--concurrent): never hand out
    # a port twice.
    with PORTS_LOCK:
        for _ in range(50):
            port = bound_port()
            if port not in PORTS_GIVEN:
                PORTS_GIVEN.add(port)
                return port
    raise RuntimeError("no free port")


def bound_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


# ---------------------------------------------------------------- ranks

def start_ranks(args, part, world, extra_env=None, extra_args=None, name=None):
    """Starts world processes of this script in rank mode and returns them;
    their output goes to NAME-rankR.out in the work folder (NAME: the part)."""
    port = free_port()
    procs = []
    for r in range(world):
        env = dict(os.environ)
        env.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(r),
                    "WORLD_SIZE": str(world), "LOCAL_RANK": str(r)})
        if extra_env:
            for k, v in extra_env.items():
                if v is None:
                    env.pop(k, None)
                else:
                    env[k] = v
        cmd = [sys.executable, SCRIPT, "rank", "--part", part, "--backend", args.backend,
               "--dir", args.work, "--timeout", str(args.timeout)] + (extra_args or [])
        out = open(os.path.join(args.work, "%s-rank%d.out" % (name or part, r)), "w")
        procs.append((subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT), out))
    return procs


def wait_ranks(procs, deadline_s):
    """Waits for every rank up to deadline_s, then kills what is left;
    returns each rank's exit: code, signal name, or "killed at deadline"."""
    end = time.monotonic() + deadline_s
    exits = []
    for p, out in procs:
        left = max(0.1, end - time.monotonic())
        try:
            p.wait(timeout=left)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            exits.append({"killed_at_deadline": True, "code": None, "signal": None})
            out.close()
            continue
        out.close()
        rc = p.returncode
        if rc < 0:
            exits.append({"code": None, "signal": signal.Signals(-rc).name, "killed_at_deadline": False})
        else:
            exits.append({"code": rc, "signal": None, "killed_at_deadline": False})
    return exits


def read_rank(args, part, rank):
    path = os.path.join(args.work, "%s-rank%d.json" % (part, rank))
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return None


def rank_output(args, part, rank):
    path = os.path.join(args.work, "%s-rank%d.out" % (part, rank))
    if not os.path.exists(path):
        return ""
    with open(path, errors="replace") as f:
        return f.read()


def wait_for_gate(args):
    """Waits until --start-after's file exists (the driver started these
    ranks early, so that Python's and torch's start-up overlaps parts that
    time nothing; the GPU is touched only after the gate opens)."""
    if args.start_after:
        parent = os.getppid()
        while not os.path.exists(args.start_after):
            if os.getppid() != parent:
                raise SystemExit("c10d_lab: the driver ended before this rank's turn")
            time.sleep(0.005)


def init_group(torch, dist, backend, store=None, timeout_s=None):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    kw = {"rank": rank, "world_size": world}
    if timeout_s:
        kw["timeout"] = datetime.timedelta(seconds=timeout_s)
    if store is not None:
        kw["store"] = store
    else:
        kw["init_method"] = "env://"
    dev = torch.device("cpu")
    if backend == "nccl":
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        dev = torch.device("cuda", local)
        kw["device_id"] = dev
    dist.init_process_group(backend, **kw)
    return rank, world, dev


# ---------------------------------------------------------------- store

def rank_store(args):
    import torch
    import torch.distributed as dist

    ops = []
    t0 = time.perf_counter()

    def rec(op, key, value=None, phase=None):
        e = {"t_ms": round((time.perf_counter() - t0) * 1e3, 3), "op": op, "key": key}
        if value is not None:
            e["bytes"] = len(value)
        ops.append(e)

    class LoggingStore(dist.Store):
        """Passes every call to a TCPStore and notes it."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def set(self, key, value):
            rec("set", key, value)
            return self.inner.set(key, value)

        def get(self, key):
            v = self.inner.get(key)
            rec("get", key, v)
            return v

        def add(self, key, n):
            rec("add", key)
            return self.inner.add(key, n)

        def compare_set(self, key, expected, desired):
            rec("compare_set", key, desired)
            return self.inner.compare_set(key, expected, desired)

        def wait(self, keys, timeout=None):
            rec("wait", ",".join(keys))
            return self.inner.wait(keys) if timeout is None else self.inner.wait(keys, timeout)

        def check(self, keys):
            rec("check", ",".join(keys))
            return self.inner.check(keys)

        def delete_key(self, key):
            rec("delete_key", key)
            return self.inner.delete_key(key)

        def num_keys(self):
            return self.inner.num_keys()

        def set_timeout(self, timeout):
            return self.inner.set_timeout(timeout)

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    tcp = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world, rank == 0,
                        timeout=datetime.timedelta(seconds=60))
    rec("mark", "TCPStore connected" + (" (rank 0 serves it)" if rank == 0 else ""))
    _, _, dev = init_group(torch, dist, args.backend, store=LoggingStore(tcp))
    rec("mark", "init_process_group returned")
    t = torch.ones(1024, device=dev)
    dist.all_reduce(t)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    rec("mark", "first all_reduce done")
    dist.barrier()
    rec("mark", "barrier done")
    dist.destroy_process_group()
    return {"rank": rank, "ops": ops}


def part_store(args, versions):
    world = args.world
    procs = start_ranks(args, "store", world)
    exits = wait_ranks(procs, 120)
    ranks = [read_rank(args, "store", r) for r in range(world)]
    res = {"world": world, "exits": exits, "ranks": [r for r in ranks if r is not None]}
    if any(r is None for r in ranks):
        res["error"] = "a rank wrote no result: " + tail(rank_output(args, "store", ranks.index(None)))
    return res


# ---------------------------------------------------------------- coalesce

def rank_coalesce(args):
    # CUPTI stays loaded between kernels_of's profiler sessions (Kineto
    # otherwise finalizes it after each and loads it again: 0.2 s a session
    # on an H100); so every row is timed before the first session starts.
    os.environ.setdefault("TEARDOWN_CUPTI", "0")
    import torch
    import torch.distributed as dist
    import warnings

    warnings.simplefilter("ignore")  # all_reduce_coalesced's deprecation, once per call
    wait_for_gate(args)
    rank, world, dev = init_group(torch, dist, args.backend)
    gpu = dev.type == "cuda"
    # One rank of NCCL does nothing for an in-place SUM; AVG runs a kernel.
    op = dist.ReduceOp.AVG if (gpu and world == 1) else dist.ReduceOp.SUM
    rows, unsupported, after_failure = [], {}, None

    def sync():
        if gpu:
            torch.cuda.synchronize()

    def methods(ts):
        def separate():
            for t in ts:
                dist.all_reduce(t, op=op)

        def manager():
            with dist._coalescing_manager(device=dev, async_ops=True) as cm:
                for t in ts:
                    dist.all_reduce(t, op=op)
            cm.wait()

        def coalesced():
            dist.all_reduce_coalesced(ts, op=op)

        def flat():
            f = torch.cat(ts)
            dist.all_reduce(f, op=op)
            for t, part in zip(ts, f.split([t.numel() for t in ts])):
                t.copy_(part)

        return [("separate", separate), ("coalescing_manager", manager),
                ("all_reduce_coalesced", coalesced), ("flat", flat)]

    profiled = []  # (row, fn): the kernels each launches, read after all timing
    for count in [int(c) for c in args.counts.split(",")]:
        for nbytes in [int(b) for b in args.sizes.split(",")]:
            ts = [torch.ones(nbytes // 4, device=dev) for _ in range(count)]
            for name, fn in methods(ts):
                if name in unsupported:
                    rows.append({"method": name, "count": count, "bytes": nbytes, "error": unsupported[name]})
                    continue
                try:
                    for _ in range(args.warmup):
                        fn()
                    host, total = [], []
                    # Blocks of back-to-back groups between barriers, as
                    # nccl-tests times: a rank's own per-call times would
                    # measure how far the ranks are out of step. Issuing
                    # (host) is timed before the final synchronize, so on
                    # a GPU it is the CPU's cost per group.
                    for _ in range(args.reps):
                        sync()
                        dist.barrier()
                        t0 = time.perf_counter()
                        for _ in range(args.iters):
                            fn()
                        t1 = time.perf_counter()
                        sync()
                        t2 = time.perf_counter()
                        host.append((t1 - t0) / args.iters * 1e6)
                        total.append((t2 - t0) / args.iters * 1e6)
                    row = {"method": name, "count": count, "bytes": nbytes, "iters": args.iters, "reps": args.reps,
                           "host_us": statistics.median(host), "total_us": statistics.median(total)}
                    if gpu:
                        profiled.append((row, fn))
                    rows.append(row)
                except Exception as e:  # one method failing leaves the others
                    rows.append({"method": name, "count": count, "bytes": nbytes, "error": one_line(e)})
                    # A backend that lacks the method fails the same way at
                    # every size. A failed _coalescing_manager leaves the
                    # group in its coalescing state (the op list is set
                    # before the backend refuses): later collectives are
                    # queued there and never run. Record that, then clear it.
                    unsupported[name] = one_line(e)
                    state = dist.distributed_c10d._world.pg_coalesce_state
                    if dist.group.WORLD in state:
                        probe = torch.ones(1, device=dev)
                        work = dist.all_reduce(probe, op=dist.ReduceOp.SUM)
                        after_failure = {"method": name, "all_reduce_of_ones": float(probe.item()),
                                         "expected": float(world), "returned": repr(work)}
                        state.pop(dist.group.WORLD, None)
                    dist.barrier()
    for row, fn in profiled:
        try:
            row.update(kernels_of(torch, fn))
        except Exception as e:  # the row's times stand; its kernels are unknown
            row["kernels_error"] = one_line(e)
    dist.destroy_process_group()
    return {"rank": rank, "op": str(op).split(".")[-1], "rows": rows, "after_failure": after_failure}


def kernels_of(torch, fn):
    """Runs fn once under the profiler: the GPU kernels and copies it launched."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    kernels, copies, names = 0, 0, {}
    for e in prof.events():
        dt = str(getattr(e, "device_type", ""))
        if not dt.endswith("CUDA"):
            continue
        n = e.name
        if n.startswith("Memcpy") or n.startswith("Memset"):
            copies += 1
        else:
            kernels += 1
            key = n.split("(")[0].split("<")[0][:60]
            names[key] = names.get(key, 0) + 1
    return {"gpu_kernels": kernels, "gpu_copies": copies, "kernel_names": names}


def start_coalesce(args, gate=None):
    extra = ["--counts", args.counts, "--sizes", args.sizes, "--iters", str(args.iters),
             "--warmup", str(args.warmup), "--reps", str(args.reps)]
    if gate:
        extra += ["--start-after", gate]
    return start_ranks(args, "coalesce", args.world, extra_args=extra)


def part_coalesce(args, versions, procs=None):
    world = args.world
    if procs is None:
        procs = start_coalesce(args)
    exits = wait_ranks(procs, 600)
    r0 = read_rank(args, "coalesce", 0)
    res = {"world": world, "exits": exits}
    if r0 is None:
        res["error"] = "rank 0 wrote no result: " + tail(rank_output(args, "coalesce", 0))
    else:
        res.update({"op": r0["op"], "rows": r0["rows"], "after_failure": r0.get("after_failure")})
    return res


# ---------------------------------------------------------------- timeout

MARKS = None


def mark(what, **kw):
    e = {"t_s": round(time.monotonic() - MARKS["t0"], 3), "what": what}
    e.update(kw)
    MARKS["marks"].append(e)
    # Written after each mark: an abort leaves what was reached.
    write_json(MARKS["path"], {"rank": MARKS["rank"], "marks": MARKS["marks"]})


def rank_timeout(args):
    global MARKS
    import torch
    import torch.distributed as dist

    rank = int(os.environ["RANK"])
    MARKS = {"t0": time.monotonic(), "marks": [], "rank": rank,
             "path": os.path.join(args.work, "timeout-%s-rank%d.json" % (args.tag, rank))}
    mark("start", async_error_handling=os.environ.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "(unset)"))
    rank, world, dev = init_group(torch, dist, args.backend, timeout_s=args.timeout)
    gpu = dev.type == "cuda"
    x = torch.ones(1 << 20, device=dev)
    dist.all_reduce(x)  # creates the communicator and proves the group works
    if gpu:
        torch.cuda.synchronize()
    mark("group works", timeout_s=args.timeout)
    busy_s = args.timeout + args.stall
    if gpu:
        # Keep the current stream busy past the timeout: the collective,
        # which waits for the current stream, cannot finish in time.
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.cuda._sleep(100_000_000)
        e.record()
        e.synchronize()
        cycles_per_s = 100_000_000 / (s.elapsed_time(e) * 1e-3)
        torch.cuda._sleep(int(busy_s * cycles_per_s))
        mark("stream kept busy", seconds=busy_s)
        op = dist.ReduceOp.AVG if world == 1 else dist.ReduceOp.SUM
    else:
        op = dist.ReduceOp.SUM
        if rank == 1:
            # This rank never joins the collective: it stalls, then leaves.
            mark("rank 1 stalls", seconds=busy_s)
            time.sleep(busy_s)
            mark("rank 1 leaves")
            os._exit(0)
    w = dist.all_reduce(x, op=op, async_op=True)
    mark("collective issued (async_op=True)")
    try:
        w.wait()
        mark("wait() returned")
    except Exception as ex:
        mark("wait() raised", error=one_line(ex))
    # What the process sees afterwards: poll the work until the stall is over.
    end = time.monotonic() + busy_s + 5
    last = None
    while time.monotonic() < end:
        try:
            done = w.is_completed()
            state = "completed" if done else "not completed"
        except Exception as ex:
            state = "is_completed() raised: " + one_line(ex)
            done = True
        if state != last:
            mark("work " + state)
            last = state
        if done:
            break
        time.sleep(0.1)
    try:
        y = torch.ones(16, device=dev)
        dist.all_reduce(y, op=op)
        if gpu:
            torch.cuda.synchronize()
        mark("a second all_reduce completed")
    except Exception as ex:
        mark("a second all_reduce raised", error=one_line(ex))
    mark("end of script reached")
    try:
        dist.destroy_process_group()
        mark("destroy_process_group returned")
    except Exception as ex:
        mark("destroy_process_group raised", error=one_line(ex))
    return None


# Lines of a rank's output worth keeping: the watchdog's and the Flight
# Recorder's words, exceptions, aborts.
KEEP = re.compile(r"(?i)(watchdog|timeout|timed out|abort|terminate|exception|error|flight ?recorder|dump|"
                  r"tear|heartbeat|ASYNC_ERROR|Traceback|signal|fatal)")


def kept_lines(text, limit=40):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or not KEEP.search(line):
            continue
        if len(line) > 400:
            line = line[:400] + " ..."
        if out and out[-1] == line:
            continue
        out.append(line)
    if len(out) > limit:
        out = out[: limit // 2] + ["... %d lines ..." % (len(out) - limit)] + out[-limit // 2:]
    return out


def part_timeout(args, versions):
    # Each mode runs in processes of its own; with --concurrent all modes
    # start at once and are collected in order.
    started, runs = [], []
    for mode in args.modes.split(","):
        started.append(start_timeout_mode(args, mode))
        if not args.concurrent:
            runs.append(finish_timeout_mode(args, started.pop()))
    for st in started:
        runs.append(finish_timeout_mode(args, st))
    res = {"world": args.world, "timeout_s": args.timeout, "stall_s": args.stall, "runs": runs,
           "concurrent": bool(args.concurrent)}
    if args.dump_wait_ms > 0:
        res["dump_wait_ms"] = args.dump_wait_ms
    return res


def start_timeout_mode(args, mode):
    tag = "mode-" + mode
    fr_dir = os.path.join(args.work, "fr-" + tag)
    os.makedirs(fr_dir, exist_ok=True)
    env = {"TORCH_NCCL_ASYNC_ERROR_HANDLING": None if mode == "unset" else mode,
           "TORCH_FR_BUFFER_SIZE": "200",
           "TORCH_FR_DUMP_TEMP_FILE": os.path.join(fr_dir, "rank-"),
           "TORCH_CPP_LOG_LEVEL": "INFO"}
    if args.dump_wait_ms > 0:
        env["TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC"] = str(int(args.dump_wait_ms))
    t0 = time.monotonic()
    procs = start_ranks(args, "timeout", args.world, extra_env=env,
                        extra_args=["--tag", tag, "--stall", str(args.stall)], name="timeout-" + tag)
    return {"mode": mode, "tag": tag, "fr_dir": fr_dir, "t0": t0, "procs": procs}


def finish_timeout_mode(args, st):
    tag = st["tag"]
    # The deadline runs from the mode's own start, whether or not others ran beside it.
    deadline = args.timeout + 2 * args.stall + args.grace
    exits = wait_ranks(st["procs"], st["t0"] + deadline - time.monotonic())
    ranks = []
    for r in range(args.world):
        path = os.path.join(args.work, "timeout-%s-rank%d.json" % (tag, r))
        marks = []
        if os.path.exists(path):
            with open(path) as f:
                marks = json.load(f).get("marks", [])
        out = rank_output(args, "timeout-" + tag, r)
        ranks.append({"rank": r, "exit": exits[r], "marks": marks, "log": kept_lines(out)})
    dumps = []
    for p in sorted(glob.glob(os.path.join(st["fr_dir"], "*"))):
        dumps.append({"file": os.path.basename(p), "bytes": os.path.getsize(p)})
    log("timeout", st["mode"], "exits", exits, "dumps", len(dumps))
    return {"mode": st["mode"], "seconds": round(time.monotonic() - st["t0"], 3), "ranks": ranks, "fr_dumps": dumps}


# ---------------------------------------------------------------- compile

# The Inductor configurations the compile part tries. The flag
# reorder_for_compute_comm_overlap alone runs no pass: the scheduler then calls
# comms.reorder_compute_and_comm_for_overlap, which only loops over
# reorder_for_compute_comm_overlap_passes, empty by default (PyTorch 2.11's
# _inductor/config.py and comms.py). So the flag is tried alone (it moves
# nothing), with the pass list that config.py recommends, and beside them the
# FX-level overlap scheduler that config.py calls the recommended way.
RECOMMENDED_REORDER_PASSES = [
    "reorder_communication_preserving_peak_memory",
    "sink_waits_iterative",
    "reorder_communication_preserving_peak_memory",
]
INDUCTOR_CONFIGS = [
    ("default", {}),
    ("reorder_for_compute_comm_overlap", {"reorder_for_compute_comm_overlap": True}),
    ("reorder_passes", {"reorder_for_compute_comm_overlap": True,
                        "reorder_for_compute_comm_overlap_passes": RECOMMENDED_REORDER_PASSES}),
    ("overlap_scheduling", {"aten_distributed_optimizations.enable_overlap_scheduling": True}),
]

def rank_compile(args):
    import torch
    import torch.distributed as dist
    import torch.distributed._functional_collectives as funcol

    rank, world, dev = init_group(torch, dist, args.backend)
    group = dist.group.WORLD
    out = {"rank": rank}

    def step(x, w):
        y = funcol.all_reduce(x, "sum", group)  # communication
        z = torch.mm(w, w)  # compute that does not need y
        return y * 2 + z.sum()

    x = torch.ones(1024, device=dev)
    w = torch.ones(256, 256, device=dev)
    # Eager: the result waits at its first use.
    y = funcol.all_reduce(x, "sum", group)
    out["eager_result_type"] = type(y).__name__
    out["eager_value"] = float((y * 1).sum().item())

    graphs = []

    def capture(gm, example_inputs):
        graphs.append(gm.code)
        return gm.forward

    torch._dynamo.reset()
    r = torch.compile(step, backend=capture)(x, w)
    out["dynamo_graph"] = graphs[0] if graphs else ""
    out["dynamo_ops"] = ops_in(graphs[0] if graphs else "")
    out["compiled_matches_eager"] = bool(torch.allclose(r, step(x, w)))

    from torch._inductor import config as ind
    from torch._inductor.utils import run_and_get_code
    codes = {}
    for name, patch in INDUCTOR_CONFIGS:
        torch._dynamo.reset()
        try:
            with ind.patch(dict(patch)):
                _, srcs = run_and_get_code(torch.compile(step), x, w)
            call = call_body("\n".join(srcs))
            codes[name] = {"config": patch, "call": call, "ops": ops_in(call)}
        except Exception as e:
            codes[name] = {"config": patch, "error": one_line(e)}
    out["inductor"] = codes
    dist.destroy_process_group()
    return out


OPS = re.compile(r"(_c10d_functional\.\w+|wait_tensor|extern_kernels\.mm|aten\.mm|\bmm\b|cpp_fused\w*|triton_\w+)")


def ops_in(code):
    """The collective, wait and compute calls of generated code, in order."""
    seen = []
    for line in code.splitlines():
        m = OPS.search(line)
        if m and not line.strip().startswith(("#", "def ", "import", "from ")):
            name = m.group(1)
            if name == "mm":
                name = "mm"
            seen.append(name)
    return seen


def call_body(src):
    """The call() Inductor writes, where its kernels are ordered: a module
    function in older versions, a method of Runner in newer ones."""
    lines = src.splitlines()
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith("def call(") and "args" in stripped:
            indent = len(line) - len(stripped)
            body = [stripped]
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                body.append(nxt[indent:] if len(nxt) > indent else nxt.strip())
            return "\n".join(body).rstrip()
    return ""


def part_compile(args, versions):
    world = args.world
    procs = start_ranks(args, "compile", world)
    exits = wait_ranks(procs, 900)
    r0 = read_rank(args, "compile", 0)
    res = {"world": world, "exits": exits}
    if r0 is None:
        res["error"] = "rank 0 wrote no result: " + tail(rank_output(args, "compile", 0))
    else:
        res.update(r0)
    return res


# ---------------------------------------------------------------- driver

def one_line(e):
    s = " ".join(str(e).split())
    return type(e).__name__ + ": " + (s[:500] + " ..." if len(s) > 500 else s)


def tail(text, n=1500):
    return text[-n:].strip()


def versions_of(backend):
    import torch
    import torch.distributed as dist
    v = {"torch": torch.__version__, "torch_git_version": str(getattr(torch.version, "git_version", "")),
         "python": platform.python_version(), "backend": backend, "host_cpus": os.cpu_count(),
         "gloo": dist.is_gloo_available(), "nccl": dist.is_nccl_available(), "ucc": dist.is_ucc_available(),
         "mpi": dist.is_mpi_available(), "default_pg_timeout_s": dist.constants.default_pg_timeout.total_seconds()}
    if dist.constants.default_pg_nccl_timeout is not None:
        v["default_pg_nccl_timeout_s"] = dist.constants.default_pg_nccl_timeout.total_seconds()
    if backend == "nccl" and torch.cuda.is_available():
        v["gpu_model"] = torch.cuda.get_device_name(0)
        v["gpu_count"] = torch.cuda.device_count()
        v["cuda"] = torch.version.cuda
        v["nccl_version"] = ".".join(map(str, torch.cuda.nccl.version()))
        try:
            v["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                         capture_output=True, text=True, timeout=30).stdout.split()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            pass
    else:
        v["cpu_model"] = cpu_model()
    return v


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def driver(args):
    os.makedirs(args.out, exist_ok=True)
    if args.world <= 0:
        args.world = 1 if args.backend == "nccl" else 2
    if not args.modes:
        args.modes = "unset,0,1,2,3" if args.backend == "nccl" else "unset,1,3"
    parts = [p for p in args.parts.split(",") if p]
    for p in parts:
        if p not in PARTS:
            raise SystemExit("c10d_lab: unknown part %r (want %s)" % (p, ", ".join(PARTS)))
    args.work = tempfile.mkdtemp(prefix="c10d-lab-", dir=args.out)
    # With --concurrent the timed part's ranks start now, beside the other
    # parts, and wait at their gate until those have ended: their start-up
    # (Python, torch) overlaps the parts that time nothing, and what they
    # time still runs alone. The driver's own versions (torch imported,
    # the GPU named) are read meanwhile too.
    side = [p for p in parts if args.concurrent and p not in TIMED_PARTS]
    early, gate = {}, os.path.join(args.work, "timed-parts-may-start")
    if side and "coalesce" in parts:
        early["coalesce"] = start_coalesce(args, gate)
    results = {}

    def run_part(p):
        log("part", p)
        t0 = time.monotonic()
        try:
            if p in early:
                res = part_coalesce(args, None, early[p])
            else:
                res = runners[p](args, None)
        except Exception as e:  # record and go on with the next part
            res = {"error": one_line(e)}
        res["seconds"] = round(time.monotonic() - t0, 3)
        results[p] = res

    runners = {"store": part_store, "coalesce": part_coalesce, "timeout": part_timeout, "compile": part_compile}
    threads = [threading.Thread(target=run_part, args=(p,)) for p in side]
    for t in threads:
        t.start()
    summary = {"kind": "c10d-lab", "command": ["python3", os.path.basename(SCRIPT)] + sys.argv[1:],
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
               "host": socket.gethostname(), "settings": {k: str(v) for k, v in vars(args).items() if k not in ("work", "start_after")},
               "versions": versions_of(args.backend),
               "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_NCCL", "TORCH_FR", "OMP_"))},
               "parts": {}, "errors": []}

    def record(p):
        res = results[p]
        if res.get("error"):
            summary["errors"].append("%s: %s" % (p, res["error"]))
        summary["parts"][p] = res
        write_json(os.path.join(args.out, "summary.json"), summary)

    # With --concurrent the parts that time nothing on the GPU run side by
    # side first (started above); the timed ones (coalesce) then run alone,
    # in order.
    for t in threads:
        t.join()
    if early:
        with open(gate, "w"):
            pass
    for p in parts:
        if p not in side:
            run_part(p)
        record(p)
    if not args.keep_work:
        for f in glob.glob(os.path.join(args.work, "**", "*"), recursive=True):
            if os.path.isfile(f):
                os.remove(f)
        for d in sorted(glob.glob(os.path.join(args.work, "**"), recursive=True), reverse=True):
            if os.path.isdir(d):
                os.rmdir(d)
    write_json(os.path.join(args.out, "summary.json"), summary)
    if summary["errors"]:
        log("errors:", summary["errors"])
        return 1
    return 0


def rank_main(args):
    args.work = args.dir
    fn = {"store": rank_store, "coalesce": rank_coalesce, "timeout": rank_timeout, "compile": rank_compile}[args.part]
    res = fn(args)
    if res is not None:
        write_json(os.path.join(args.dir, "%s-rank%s.json" % (args.part, os.environ["RANK"])), res)
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", nargs="?", default="run", choices=["run", "rank"])
    p.add_argument("--out", help="folder for summary.json (run)")
    p.add_argument("--backend", default="gloo", choices=["gloo", "nccl"])
    p.add_argument("--parts", default=",".join(PARTS))
    p.add_argument("--world", type=int, default=0, help="ranks (gloo: 2, nccl: 1)")
    p.add_argument("--timeout", type=float, default=5.0, help="the group's timeout for the timeout part, seconds")
    p.add_argument("--stall", type=float, default=10.0, help="how long past the timeout the collective is held, seconds")
    p.add_argument("--modes", default="", help="TORCH_NCCL_ASYNC_ERROR_HANDLING values to try (unset: not set)")
    p.add_argument("--dump-wait-ms", type=float, default=0,
                   help="TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC for the timeout ranks (0: PyTorch's default, 15000)")
    p.add_argument("--grace", type=float, default=90.0,
                   help="seconds past timeout + 2 x stall before a timeout rank still alive is killed")
    p.add_argument("--concurrent", action="store_true",
                   help="run the timeout modes side by side, and store, timeout and compile side by side before coalesce")
    p.add_argument("--counts", default="1,8,64", help="tensors per group (coalesce)")
    p.add_argument("--sizes", default="4096,262144", help="bytes per tensor (coalesce)")
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=5, help="timed blocks of --iters groups (coalesce); the median is kept")
    p.add_argument("--keep-work", action="store_true", help="keep the ranks' own files under --out")
    # rank mode
    p.add_argument("--part")
    p.add_argument("--dir")
    p.add_argument("--tag", default="")
    p.add_argument("--start-after", default="", help="rank mode: wait until this file exists before making the group")
    args = p.parse_args()
    if args.mode == "rank":
        return rank_main(args)
    if not args.out:
        raise SystemExit("c10d_lab: --out is needed")
    return driver(args)


if __name__ == "__main__":
    sys.exit(main())
