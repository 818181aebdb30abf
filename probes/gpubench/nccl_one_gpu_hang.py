"""An experiment: can a ProcessGroupNCCL job on a machine with ONE GPU hang
with its NCCL kernel launched and spinning, so that the watchdog, the
Flight Recorder ("started"), nvidia-smi and the debuggers can be recorded?
What each part is expected to show is said below; what it showed is
whatever the run writes (nothing here is a result).

Two ideas are tried, each in its own processes:

  selfsend  one rank (world size 1) posts a point-to-point send to itself
            with no receive, through every path PyTorch offers (dist.send,
            dist.isend, dist.batch_isend_irecv, the backend object's send)
            and through NCCL directly (ctypes on the libnccl.so.2 that torch
            loaded: ncclSend to self alone, ncclRecv from self alone, and a
            matched self pair for contrast). NCCL 2.28.9's
            scheduleP2pTasksToPlan (src/enqueue.cc) refuses an unmatched
            self send or receive with ncclInvalidUsage ("Trying to send to
            self without a matching recv"), and a matched self pair is a
            copy inside the kernel (src/device/sendrecv.h, isCopy): neither
            can wait on anything. These runs record what each path says.

  twohosts  two ranks on the same GPU, each process told it is on its own
            host (NCCL_HOSTID differs). NCCL's "Duplicate GPU detected"
            check (src/init.cc) compares host hash AND bus id, and the host
            hash comes from NCCL_HOSTID (src/misc/utils.cc), so the check
            passes; P2P and SHM refuse peers of another host hash
            (src/transport/p2p.cc, shm.cc), so the ranks connect through the
            network transport (sockets on lo). After one all_reduce both
            make, rank 1 is stuck in a stand-in data loader and never calls
            all_reduce #2, so rank 0's all_reduce #2 kernel should wait for
            data that never comes. While it waits the driver samples
            nvidia-smi, takes py-spy's and faulthandler's stacks and
            cuda-gdb's view of the GPU; ProcessGroupNCCL's watchdog should
            then time out, dump the Flight Recorder and end the process.
            The NCCL maintainers call several ranks on one GPU unsupported
            (NVIDIA/nccl#418); this uses it only to stage a hang. A control run without
            NCCL_HOSTID shows NCCL's refusal. A second hang run uses
            TORCH_NCCL_ASYNC_ERROR_HANDLING=1 (abort the communicator, then
            end) with a 5 s timeout.

  queued    the fallback that surely runs on one GPU: a one-rank all_reduce
            queued behind a spinning kernel (torch.cuda._sleep), 5 s timeout:
            a real watchdog timeout and dump from ProcessGroupNCCL, but the
            collective never started (state "scheduled") and the spinning
            kernel is PyTorch's.

  python3 nccl_one_gpu_hang.py drive --out DIR     everything, under DIR

The modes selfsend, queued and rank are what the driver starts. Standard library
and torch only; py-spy and cuda-gdb when present. NVLink multicast stays off
(NCCL_NVLS_ENABLE=0).
"""
import argparse
import ctypes
import datetime
import faulthandler
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.abspath(__file__)
SELFSEND = ["send", "isend", "isend_lazy", "batch", "batch_pair", "backend", "ctypes"]


def now():
    return time.time()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


def say(*a):
    print("[%s]" % datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S.%f")[:-3], *a, flush=True)


def fr_dumps(torch):
    """This process's Flight Recorder buffer: (pickle bytes or None, json
    text or None, notes)."""
    c = torch._C._distributed_c10d
    notes, pk, js = [], None, None
    for name in ("_dump_nccl_trace", "_dump_fr_trace"):
        fn = getattr(c, name, None)
        if fn is None:
            notes.append("no %s" % name)
            continue
        try:
            pk = fn()
            notes.append("%s(): %d bytes" % (name, len(pk)))
            break
        except Exception as e:
            notes.append("%s(): %s: %s" % (name, type(e).__name__, e))
    for name in ("_dump_nccl_trace_json", "_dump_fr_trace_json"):
        fn = getattr(c, name, None)
        if fn is None:
            continue
        try:
            js = fn()
            break
        except Exception as e:
            notes.append("%s(): %s: %s" % (name, type(e).__name__, e))
    if isinstance(pk, str):
        pk = pk.encode("latin-1")
    return pk, js, notes


# ------------------------------------------------------------ selfsend


def loaded_nccl():
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            if "libnccl.so" in p:
                return p
    return None


def nccl_direct(res, torch):
    """ncclSend / ncclRecv to self on a one-rank communicator, through
    the libnccl that torch loaded."""
    path = loaded_nccl()
    res["libnccl"] = path
    lib = ctypes.CDLL(path)

    class UID(ctypes.Structure):
        _fields_ = [("internal", ctypes.c_char * 128)]
    lib.ncclGetErrorString.restype = ctypes.c_char_p
    lib.ncclGetLastError.restype = ctypes.c_char_p
    lib.ncclGetLastError.argtypes = [ctypes.c_void_p]
    lib.ncclCommInitRank.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, UID, ctypes.c_int]
    for fn in (lib.ncclSend, lib.ncclRecv):
        fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    v = ctypes.c_int()
    lib.ncclGetVersion(ctypes.byref(v))
    res["ncclGetVersion"] = v.value
    n, f32 = 1 << 20, 7  # ncclFloat32
    stream = torch.cuda.current_stream().cuda_stream
    cases = []

    def comm():
        uid = UID()
        rc = lib.ncclGetUniqueId(ctypes.byref(uid))
        c = ctypes.c_void_p()
        rc2 = lib.ncclCommInitRank(ctypes.byref(c), 1, uid, 0)
        return c, (rc, rc2)

    def rcs(c, what, rc):
        return {"call": what, "rc": rc, "error": lib.ncclGetErrorString(rc).decode(),
                "last_error": (lib.ncclGetLastError(c) or b"").decode()}

    send, recv = torch.ones(n, device="cuda"), torch.zeros(n, device="cuda")
    c, init = comm()
    case = {"case": "ncclSend to self, no ncclRecv", "init_rcs": init}
    case.update(rcs(c, "ncclSend(peer=0) on a 1-rank comm", lib.ncclSend(send.data_ptr(), n, f32, 0, c, stream)))
    torch.cuda.synchronize()
    cases.append(case)
    c, init = comm()
    case = {"case": "ncclRecv from self, no ncclSend", "init_rcs": init}
    case.update(rcs(c, "ncclRecv(peer=0) on a 1-rank comm", lib.ncclRecv(recv.data_ptr(), n, f32, 0, c, stream)))
    torch.cuda.synchronize()
    cases.append(case)
    c, init = comm()
    case = {"case": "ncclGroupStart; ncclSend to self; ncclRecv from self; ncclGroupEnd", "init_rcs": init,
            "rcs": [lib.ncclGroupStart(), lib.ncclSend(send.data_ptr(), n, f32, 0, c, stream),
                    lib.ncclRecv(recv.data_ptr(), n, f32, 0, c, stream)]}
    case.update(rcs(c, "ncclGroupEnd", lib.ncclGroupEnd()))
    t0 = now()
    torch.cuda.synchronize()
    case["synchronize_s"] = round(now() - t0, 4)
    case["recv_sum"] = float(recv.sum().item())
    cases.append(case)
    res["cases"] = cases


def selfsend(a):
    res = {"how": a.how, "pid": os.getpid()}
    out = os.path.join(a.dir, a.how)
    os.makedirs(out, exist_ok=True)
    faulthandler.enable(file=open(os.path.join(out, "fatal.txt"), "w"), all_threads=True)
    import torch
    import torch.distributed as dist
    res["torch"] = torch.__version__
    res["torch_nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
    torch.cuda.set_device(0)
    t0 = now()
    try:
        if a.how == "ctypes":
            nccl_direct(res, torch)
        else:
            kw = {} if a.how == "isend_lazy" else {"device_id": torch.device("cuda", 0)}
            dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % a.port, rank=0, world_size=1,
                                    timeout=datetime.timedelta(seconds=a.timeout), **kw)
            t = torch.ones(1 << 20, device="cuda")
            r = torch.zeros(1 << 20, device="cuda")
            res["call"] = {
                "send": "dist.send(t, dst=0)",
                "isend": "dist.isend(t, dst=0).wait() (init with device_id)",
                "isend_lazy": "dist.isend(t, dst=0).wait() (init without device_id)",
                "batch": "dist.batch_isend_irecv([P2POp(dist.isend, t, 0)])",
                "batch_pair": "dist.batch_isend_irecv([P2POp(dist.isend, t, 0), P2POp(dist.irecv, r, 0)])",
                "backend": "_get_default_group()._get_backend(cuda).send([t], 0, 0).wait()",
            }[a.how]
            say("calling", res["call"])
            try:
                if a.how == "send":
                    dist.send(t, dst=0)
                elif a.how in ("isend", "isend_lazy"):
                    dist.isend(t, dst=0).wait()
                elif a.how == "batch":
                    for w in dist.batch_isend_irecv([dist.P2POp(dist.isend, t, 0)]):
                        w.wait()
                elif a.how == "batch_pair":
                    for w in dist.batch_isend_irecv([dist.P2POp(dist.isend, t, 0), dist.P2POp(dist.irecv, r, 0)]):
                        w.wait()
                else:
                    be = dist.distributed_c10d._get_default_group()._get_backend(torch.device("cuda", 0))
                    be.send([t], 0, 0).wait()
                say("returned; synchronizing")
                torch.cuda.synchronize()
                res["outcome"] = "returned"
                res["recv_sum"] = float(r.sum().item())
            except Exception as e:
                res["outcome"] = "raised"
                res["exception"] = type(e).__name__
                res["error"] = str(e)
            pk, js, notes = fr_dumps(torch)
            res["fr_notes"] = notes
            if pk:
                write(os.path.join(out, "fr_rank_0"), pk)
            if js:
                write(os.path.join(out, "fr_rank_0.json"), js)
    except Exception as e:
        res["outcome"] = res.get("outcome") or "raised outside the call"
        res["setup_exception"] = "%s: %s" % (type(e).__name__, e)
    res["seconds"] = round(now() - t0, 3)
    write(os.path.join(out, "result.json"), json.dumps(res, indent=1, default=str))
    say("result", json.dumps(res, default=str)[:3000])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# ------------------------------------------------------------ queued


def queued(a):
    """The fallback that needs no second rank: a one-rank NCCL all_reduce
    queued behind a kernel that spins (torch.cuda._sleep) on the current
    stream. ProcessGroupNCCL's stream waits for that kernel before it
    records the start event and launches NCCL's work, so the watchdog times
    out a collective that never started: state "scheduled", not "started",
    and the spinning kernel is PyTorch's, not NCCL's."""
    d = os.path.join(a.dir, "queued")
    os.makedirs(d, exist_ok=True)
    stacks = open(os.path.join(d, "stack_rank_0.txt"), "w")
    faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=True, chain=False)
    faulthandler.enable(file=open(os.path.join(d, "fatal_rank_0.txt"), "w"), all_threads=True)
    res = {"pid": os.getpid(), "timeout_s": a.timeout, "spin_cycles": a.spin_cycles}
    import torch
    import torch.distributed as dist
    res["torch"] = torch.__version__
    res["torch_nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % a.port, rank=0, world_size=1,
                            timeout=datetime.timedelta(seconds=a.timeout), device_id=torch.device("cuda", 0))
    x = torch.ones(1024, device="cuda")
    dist.all_reduce(x)
    torch.cuda.synchronize()
    say("all_reduce #1 done")
    torch.cuda._sleep(int(a.spin_cycles))
    dist.all_reduce(x)
    res["enqueued"] = now()
    write(os.path.join(d, "result_before_block.json"), json.dumps(res, indent=1))
    say("all_reduce #2 enqueued behind torch.cuda._sleep(%d); torch.cuda.synchronize()" % a.spin_cycles)
    torch.cuda.synchronize()
    res["returned_after_s"] = now() - res["enqueued"]
    write(os.path.join(d, "result.json"), json.dumps(res, indent=1))
    say("synchronize returned after %.1f s" % res["returned_after_s"])
    os._exit(0)


# ------------------------------------------------------------ two ranks


def load_batch(seconds):
    """Stands for a data loader that never returns."""
    threading.Event().wait(seconds)


def rank_main(a):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    d = a.dir
    os.makedirs(os.path.join(d, "stacks"), exist_ok=True)
    os.makedirs(os.path.join(d, "fatal"), exist_ok=True)
    stacks = open(os.path.join(d, "stacks", "rank_%d.txt" % rank), "w")
    faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=True, chain=False)
    faulthandler.enable(file=open(os.path.join(d, "fatal", "rank_%d.txt" % rank), "w"), all_threads=True)
    write(os.path.join(d, "pids", "rank_%d" % rank), str(os.getpid()))
    res = {"rank": rank, "world": world, "pid": os.getpid(), "scenario": a.scenario, "timeout_s": a.timeout,
           "calls": [], "env": {k: v for k, v in os.environ.items() if k.startswith(("TORCH_", "NCCL_"))}}

    def save(sub):
        write(os.path.join(d, sub, "rank_%d.json" % rank), json.dumps(res, indent=1, default=str))

    def mark(what):
        res["blocking_call"], res["blocking_since"] = what, now()
        write(os.path.join(d, "marks", "rank_%d" % rank), json.dumps({"what": what, "t": now()}))
        say("mark:", what)

    def call(what, fn):
        rec = {"call": what, "t0": now()}
        res["calls"].append(rec)
        try:
            return fn()
        finally:
            rec["t1"] = now()

    import torch
    import torch.distributed as dist
    res["torch"] = torch.__version__
    res["torch_nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
    gpu = a.backend == "nccl"
    kw = {}
    if gpu:
        torch.cuda.set_device(0)
        kw["device_id"] = torch.device("cuda", 0)
    dev = "cuda" if gpu else "cpu"
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    t0 = now()
    try:
        dist.init_process_group(a.backend, timeout=datetime.timedelta(seconds=a.timeout), **kw)
        res["init_s"] = now() - t0
        say("init_process_group done in %.2f s" % res["init_s"])
        x = torch.ones(1024, device=dev)
        if a.scenario == "duplicate":
            mark("all_reduce #1")
        call("all_reduce #1 (1024 float32)", lambda: (dist.all_reduce(x), sync()))
        res["all_reduce_1_value"] = float(x[0].item())
        say("all_reduce #1 done: %.1f" % res["all_reduce_1_value"])
        if a.scenario == "duplicate":
            res["outcome"] = "returned"
        elif rank == 0:
            mark("all_reduce #2 (rank 1 never calls it), then torch.cuda.synchronize()")
            call("all_reduce #2 (1024 float32)", lambda: dist.all_reduce(x))
            res["enqueued_after_s"] = now() - res["blocking_since"]
            save("result_before_block")
            say("all_reduce #2 enqueued; torch.cuda.synchronize()")
            call("torch.cuda.synchronize()", sync)
            res["outcome"] = "returned"
        else:
            mark("load_batch() stuck; all_reduce #2 never called")
            res["stuck_in"] = "load_batch"
            load_batch(a.stuck_s)
            res["stuck_released_after_s"] = now() - res["blocking_since"]
            res["outcome"] = "returned"
            say("load_batch released after %.1f s; dumping this rank's Flight Recorder" % res["stuck_released_after_s"])
            pk, js, notes = fr_dumps(torch)
            res["fr_notes"] = notes
            if pk:
                write(os.path.join(d, "fr_self", "rank_%d" % rank), pk)
            if js:
                write(os.path.join(d, "fr_self", "rank_%d.json" % rank), js)
    except Exception as e:
        res["outcome"] = "raised"
        res["exception"] = type(e).__name__
        res["error"] = str(e)[:6000]
        say("raised %s: %s" % (type(e).__name__, str(e)[:2000]))
    res["ended"] = now()
    if "blocking_since" in res:
        res["ended_after_s"] = res["ended"] - res["blocking_since"]
    save("result")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# ------------------------------------------------------------ driver


def run_text(cmd, timeout=60, **kw):
    t0 = now()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
        return {"cmd": cmd, "rc": p.returncode, "s": round(now() - t0, 2), "out": p.stdout, "err": p.stderr}
    except subprocess.TimeoutExpired as e:
        return {"cmd": cmd, "rc": "timeout", "s": round(now() - t0, 2), "out": e.stdout or "", "err": e.stderr or ""}
    except OSError as e:
        return {"cmd": cmd, "rc": "oserror", "err": str(e)}


def save_text(path, r):
    text = "$ %s\n# exit %s after %s s\n%s" % (" ".join(r["cmd"]), r.get("rc"), r.get("s"), r.get("out") or "")
    if r.get("err"):
        text += "\n--- stderr ---\n" + (r["err"] if isinstance(r["err"], str) else r["err"].decode(errors="replace"))
    write(path, text)


def base_env(a, fr_prefix=None):
    env = dict(os.environ)
    env.update(PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1",
               NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
    if fr_prefix:
        env.update(TORCH_NCCL_TRACE_BUFFER_SIZE="2000", TORCH_FR_BUFFER_SIZE="2000", TORCH_NCCL_ENABLE_TIMING="1",
                   TORCH_NCCL_DUMP_ON_TIMEOUT="1", TORCH_FR_DUMP_TEMP_FILE=fr_prefix,
                   TORCH_NCCL_DEBUG_INFO_TEMP_FILE=fr_prefix)
    return env


def start_ranks(a, d, scenario, port, env, hostids, timeout, stuck_s):
    procs = []
    for r in range(2):
        e = dict(env, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE="2", LOCAL_WORLD_SIZE="2",
                 MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        if hostids:
            e["NCCL_HOSTID"] = "commlab-fakehost-%d" % r
        for sub in ("stdout", "stderr"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        cmd = [sys.executable, HERE, "rank", "--dir", d, "--scenario", scenario, "--backend", a.backend,
               "--timeout", str(timeout), "--stuck-s", str(stuck_s)]
        p = subprocess.Popen(cmd, env=e, stdout=open(os.path.join(d, "stdout", "rank_%d.txt" % r), "w"),
                             stderr=open(os.path.join(d, "stderr", "rank_%d.txt" % r), "w"),
                             stdin=subprocess.DEVNULL, start_new_session=True)
        procs.append(p)
    return procs, cmd


def marks(d):
    try:
        return sorted(f for f in os.listdir(os.path.join(d, "marks")) if not f.endswith(".tmp"))
    except FileNotFoundError:
        return []


def wait_all(procs, until):
    while now() < until and any(p.poll() is None for p in procs):
        time.sleep(0.1)
    return [p.poll() for p in procs]


def kill_all(procs, events, what):
    for i, p in enumerate(procs):
        if p.poll() is None:
            events("%s: rank %d (pid %d) still running: SIGKILL" % (what, i, p.pid))
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()


def tool(name):
    return shutil.which(name) or (os.path.join(os.path.dirname(sys.executable), name)
                                  if os.access(os.path.join(os.path.dirname(sys.executable), name), os.X_OK) else None)


def snapshots(a, d, pids, events, summary):
    """While rank 0's all_reduce #2 waits: nvidia-smi, py-spy, faulthandler,
    then cuda-gdb (last: it stops the process while it reads it)."""
    os.makedirs(os.path.join(d, "smi"), exist_ok=True)
    save_text(os.path.join(d, "smi", "compute-apps.txt"), run_text(
        ["nvidia-smi", "--query-compute-apps=pid,process_name,used_gpu_memory", "--format=csv"], 20))
    save_text(os.path.join(d, "smi", "pmon.txt"), run_text(["nvidia-smi", "pmon", "-c", "3", "-s", "um"], 20))
    save_text(os.path.join(d, "smi", "nvidia-smi.txt"), run_text(["nvidia-smi"], 20))
    events("nvidia-smi snapshots taken")
    spy = tool("py-spy")
    summary["py_spy"] = spy
    if spy:
        summary["py_spy_version"] = run_text([spy, "--version"], 10).get("out", "").strip()
        for r, pid in sorted(pids.items()):
            res = run_text([spy, "dump", "--pid", str(pid)], 30)
            if res["rc"] == 0 and res["out"].strip():
                write(os.path.join(d, "stacks", "rank%d.txt" % r), res["out"])
            save_text(os.path.join(d, "pyspy", "rank%d.txt" % r), res)
        events("py-spy dumps taken")
    else:
        events("py-spy not found")
    for r, pid in sorted(pids.items()):
        try:
            os.kill(pid, signal.SIGUSR1)
        except OSError as e:
            events("SIGUSR1 to rank %d: %s" % (r, e))
    time.sleep(1)
    events("SIGUSR1 sent (faulthandler stacks)")
    cg = tool("cuda-gdb")
    summary["cuda_gdb"] = cg
    if cg:
        cmd = [cg, "-p", str(pids[0]), "-batch", "-nx", "-q", "-ex", "set pagination off",
               "-ex", "info cuda devices", "-ex", "info cuda kernels", "-ex", "info cuda blocks",
               "-ex", "thread apply all bt"]
        res = run_text(cmd, a.gdb_timeout)
        save_text(os.path.join(d, "cuda-gdb", "rank0.txt"), res)
        if res.get("out"):
            write(os.path.join(d, "stacks", "rank0.gdb.txt"), res["out"])
        events("cuda-gdb on rank 0: exit %s after %s s" % (res.get("rc"), res.get("s")))
    else:
        events("cuda-gdb not found")
    # last: --native reads libtorch's symbols, which can take longer than
    # the watchdog leaves
    if spy:
        res = run_text([spy, "dump", "--native", "--pid", str(pids[0])], 30)
        save_text(os.path.join(d, "pyspy", "rank0.native.txt"), res)
        events("py-spy --native on rank 0: exit %s after %s s" % (res.get("rc"), res.get("s")))


def twohosts(a, out, name, port, timeout, async_mode, snap, events):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    env = base_env(a, os.path.join(d, "fr", "rank_"))
    os.makedirs(os.path.join(d, "fr"), exist_ok=True)
    env.update(NCCL_DEBUG="INFO", NCCL_SOCKET_IFNAME="lo", NCCL_IB_DISABLE="1", NCCL_MNNVL_ENABLE="0")
    if async_mode is not None:
        env["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = str(async_mode)
    stuck_s = timeout + 10
    summary = {"scenario": "nccl_two_hosts_one_gpu", "nproc": 2, "timeout_s": timeout,
               "env": {k: env[k] for k in sorted(env) if k.startswith(("TORCH_", "NCCL_"))},
               "env_per_rank": {"NCCL_HOSTID": ["commlab-fakehost-0", "commlab-fakehost-1"]},
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "events": []}
    t0 = now()

    def ev(what):
        summary["events"].append({"t": round(now() - t0, 3), "what": what})
        events("%s %.1fs: %s" % (name, now() - t0, what))

    sampler = None
    if snap and shutil.which("nvidia-smi"):
        sampler = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,utilization.gpu,utilization.memory,power.draw,clocks.sm,memory.used",
                                    "--format=csv", "-lms", "500"], stdout=open(os.path.join(d, "nvidia-smi-samples.csv"), "w"),
                                   stderr=subprocess.STDOUT)
    procs, cmd = start_ranks(a, d, "hang", port, env, True, timeout, stuck_s)
    summary["command"] = cmd
    ev("started 2 ranks (pids %s) on one GPU, NCCL_HOSTID differs" % [p.pid for p in procs])
    until = now() + 90
    while now() < until and len(marks(d)) < 2 and all(p.poll() is None for p in procs):
        time.sleep(0.1)
    ev("%d of 2 ranks marked their blocking call; exits so far %s" % (len(marks(d)), [p.poll() for p in procs]))
    posted = now()
    if snap and len(marks(d)) == 2:
        time.sleep(a.settle)
        snapshots(a, d, {0: procs[0].pid, 1: procs[1].pid}, ev, summary)
    wait_all(procs[:1], posted + timeout + 40)
    ev("rank 0 exit %s" % procs[0].poll())
    wait_all(procs, posted + stuck_s + 15)
    kill_all(procs, ev, "deadline")
    summary["exits"] = [p.returncode for p in procs]
    ev("exits %s" % summary["exits"])
    if sampler:
        time.sleep(1)
        sampler.terminate()
        sampler.wait()
    summary["wall_s"] = round(now() - t0, 2)
    # PyTorch's own analyzer on whatever dumps were written
    summary["fr_trace"] = []
    if os.listdir(os.path.join(d, "fr")):
        for fname, extra in (("fr_trace.txt", []), ("fr_trace-entries.txt", ["-j"])):
            fcmd = [sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace", os.path.join(d, "fr"), "-p", "rank_"] + extra
            r = run_text(fcmd, 60)
            write(os.path.join(d, fname), (r.get("out") or "") + ("\n--- stderr ---\n" + r["err"] if r.get("err") else ""))
            summary["fr_trace"].append({"file": fname, "command": fcmd, "exit": r.get("rc")})
            ev("fr_trace %s exit %s" % (" ".join(extra), r.get("rc")))
    write(os.path.join(d, "summary.json"), json.dumps(summary, indent=1))


def drive(a):
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    t0 = now()
    log = []

    def events(what):
        log.append({"t": round(now() - t0, 3), "what": what})
        say(what)

    facts = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "python": sys.version,
             "executable": sys.executable, "argv": sys.argv}
    for n in ("py-spy", "gdb", "cuda-gdb", "nvidia-smi"):
        facts["which_" + n] = tool(n)
    if shutil.which("nvidia-smi"):
        save_text(os.path.join(out, "nvidia-smi-before.txt"), run_text(["nvidia-smi"], 30))
    if a.backend == "nccl" and a.selfsend:
        # 1. the self-send tries and the duplicate-GPU control, side by side
        env = base_env(a, None)
        env["NCCL_DEBUG"] = "WARN"
        sd = os.path.join(out, "selfsend")
        os.makedirs(sd, exist_ok=True)
        procs = {}
        for i, how in enumerate(SELFSEND):
            e = dict(env, TORCH_NCCL_TRACE_BUFFER_SIZE="2000", TORCH_FR_BUFFER_SIZE="2000", TORCH_NCCL_ENABLE_TIMING="1",
                     TORCH_NCCL_DUMP_ON_TIMEOUT="1", TORCH_FR_DUMP_TEMP_FILE=os.path.join(sd, how + "_timeoutdump_rank_"),
                     TORCH_NCCL_DEBUG_INFO_TEMP_FILE=os.path.join(sd, how + "_timeoutdump_rank_"))
            cmd = [sys.executable, HERE, "selfsend", "--how", how, "--dir", sd, "--port", str(29600 + i), "--timeout", "10"]
            procs[how] = subprocess.Popen(cmd, env=e, stdout=open(os.path.join(sd, how + ".log"), "w"),
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        qd = os.path.join(out, "queued")
        os.makedirs(qd, exist_ok=True)
        qenv = base_env(a, os.path.join(qd, "fr_rank_"))
        qenv["NCCL_DEBUG"] = "INFO"
        procs["queued"] = subprocess.Popen(
            [sys.executable, HERE, "queued", "--dir", out, "--port", "29640", "--timeout", "5"],
            env=qenv, stdout=open(os.path.join(qd, "stdout.txt"), "w"), stderr=open(os.path.join(qd, "stderr.txt"), "w"),
            stdin=subprocess.DEVNULL, start_new_session=True)
        events("started selfsend tries (%s) and the queued fallback" % ", ".join(SELFSEND))
        dup = os.path.join(out, "duplicate")
        denv = base_env(a, None)
        denv["NCCL_DEBUG"] = "WARN"
        dprocs, _ = start_ranks(a, dup, "duplicate", 29650, denv, False, 20, 0)
        events("started the duplicate-GPU control (2 ranks, one GPU, no NCCL_HOSTID)")
        wait_all(list(procs.values()) + dprocs, now() + 40)
        for how, p in procs.items():
            if p.poll() is None:
                events("%s still running after 40 s: SIGKILL" % how)
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            facts["exit_" + how] = p.returncode
        kill_all(dprocs, events, "duplicate control")
        facts["duplicate_exits"] = [p.returncode for p in dprocs]
        events("selfsend exits %s; duplicate exits %s" % ({h: p.returncode for h, p in procs.items()}, facts["duplicate_exits"]))
    # 2. the hang: default error handling, with every snapshot
    twohosts(a, out, "hang", 29660, a.timeout, None, True, events)
    # 3. the same with TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and a 5 s timeout
    if a.abort_run:
        twohosts(a, out, "hang-abort", 29670, 5, 1, False, events)
    facts["log"] = log
    facts["wall_s"] = round(now() - t0, 2)
    write(os.path.join(out, "driver.json"), json.dumps(facts, indent=1, default=str))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["drive", "selfsend", "queued", "rank"])
    p.add_argument("--out")
    p.add_argument("--dir")
    p.add_argument("--how", choices=SELFSEND)
    p.add_argument("--port", type=int, default=29600)
    p.add_argument("--scenario", choices=["hang", "duplicate"], default="hang")
    p.add_argument("--backend", default="nccl", help="nccl; gloo only to try the driver on a machine without a GPU")
    p.add_argument("--timeout", type=float, default=30, help="init_process_group's timeout for the hang, seconds")
    p.add_argument("--stuck-s", type=float, default=45)
    p.add_argument("--spin-cycles", type=float, default=120e9, help="queued: torch.cuda._sleep cycles (about 60 s)")
    p.add_argument("--settle", type=float, default=3)
    p.add_argument("--gdb-timeout", type=float, default=45)
    p.add_argument("--no-selfsend", dest="selfsend", action="store_false")
    p.add_argument("--no-abort-run", dest="abort_run", action="store_false")
    a = p.parse_args()
    if a.mode == "drive":
        sys.exit(drive(a))
    if a.mode == "selfsend":
        selfsend(a)
    elif a.mode == "queued":
        queued(a)
    else:
        rank_main(a)


if __name__ == "__main__":
    main()
