"""commlab's hang lab: collective hangs staged on purpose, with PyTorch's
Flight Recorder on, so their dumps and stacks can be read afterwards.

Two modes in one file, so the commlab binary can embed it whole:

  python3 hang_torch.py run --scenario NAME --out DIR [--nproc N] [--timeout S] ...
      the driver: starts the ranks with torchrun (gloo on CPU ranks), waits
      until every rank has reached the point where it may block, sends each
      rank SIGUSR1 (faulthandler writes every thread's Python stack) after
      taking each rank's stack from outside with py-spy when it is installed
      (`py-spy dump --pid PID`, which needs ptrace: root, or
      kernel.yama.ptrace_scope 0), then, when gdb is on PATH, every thread's
      C++ stack with `gdb -p PID -batch ... -ex "thread apply all bt"`
      (stacks/rankN.gdb.txt, same ptrace rule; last, because gdb stops the
      rank while it reads it), waits for the ranks to time out and dump their Flight Recorder buffers, then runs
      PyTorch's own analyzer (torch.distributed.flight_recorder.fr_trace) on
      the dumps. Everything lands under DIR: fr/rank_N (pickle dumps, the
      names fr_trace expects), fr_json/rank_N.json, stacks/rank_N.txt
      (faulthandler), stacks/rankN.txt (py-spy dump's text),
      stacks/rankN.gdb.txt (gdb's),
      result/rank_N.json (what the rank saw: the exception and when),
      torchrun/ (each rank's stdout and stderr), fr_trace*.txt and
      summary.json.

  torchrun ... hang_torch.py worker --scenario NAME --dir DIR ...
      one rank (the driver starts these).

Scenarios (two ranks unless said otherwise):
  size      all_reduce #3 with 1024 float32 on rank 0 and 2048 on rank 1
  order     after all_reduce #1, rank 0 calls all_reduce then all_gather,
            rank 1 all_gather then all_reduce
  count     five all_reduces; rank 1 skips #3, so rank 0 is one ahead at the end
  unpaired  rank 0 sends 64 MiB to rank 1, which calls all_reduce instead of recv
  two_comms two process groups; rank 0 all_reduces on pg_a then pg_b, rank 1
            on pg_b then pg_a
  core      the core question: --nproc ranks (64) run --steps all_reduces
            (3000); at step --hang-at (3000) rank --stuck-rank is stuck in its
            data loader and never calls that all_reduce
  killed    every rank stuck in the same place, a rank's process gone: 4 ranks
            run all_reduces; inside all_reduce #--hang-at (3000) rank
            --stuck-rank (2) is killed with SIGKILL, as the kernel's OOM killer
            kills; the others then enter the same all_reduce
  netcut    every rank stuck in the same place, a network cut: as killed, but
            rank --stuck-rank is frozen (SIGSTOP) inside the all_reduce instead
            of killed: its sockets stay open and nothing more comes from them,
            which is what its peers see of a link that no longer carries
            packets. The driver resumes it (SIGCONT) once the others have
            timed out and dumped, so that it dumps too

Gloo has no watchdog and no dump-on-timeout (that is ProcessGroupNCCL's): each
rank catches the collective's exception itself and dumps through
torch._C._distributed_c10d._dump_fr_trace. The Flight Recorder records gloo
collectives in PyTorch 2.8 and later when TORCH_FR_BUFFER_SIZE (or the older
TORCH_NCCL_TRACE_BUFFER_SIZE) is set; the driver sets both unless the caller did.
Standard library and torch only; py-spy (pip install py-spy) and gdb when present.
"""
import argparse
import concurrent.futures
import datetime
import faulthandler
import json
import linecache
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

SCENARIOS = ["size", "order", "count", "unpaired", "two_comms", "core", "killed", "netcut"]
# the scenarios where every rank ends up in the same collective
SAME_PLACE = ("killed", "netcut")


def write_atomic(path, data):
    tmp = path + ".tmp"
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path + ".tmp", mode) as f:
        f.write(data)
    os.replace(tmp, path)


def now():
    return time.time()


# ---------------------------------------------------------------- worker side


class Rank:
    def __init__(self, args):
        self.args = args
        self.rank = int(os.environ["RANK"])
        self.world = int(os.environ["WORLD_SIZE"])
        self.dir = args.dir
        self.result = {"rank": self.rank, "world": self.world, "scenario": args.scenario,
                       "pid": os.getpid(), "timeout_s": args.timeout, "calls": []}

    def path(self, sub, name):
        return os.path.join(self.dir, sub, name)

    def mark(self, what):
        """Say what this rank is about to do that may block; the driver waits
        for every rank's mark before it takes the stacks."""
        self.result["blocking_call"] = what
        self.result["blocking_since"] = now()
        write_atomic(self.path("marks", "rank_%d" % self.rank), json.dumps({"what": what, "t": now()}))

    def call(self, what, fn):
        """Run one collective, noting it (and how it ended) in the result."""
        rec = {"call": what, "t0": now()}
        self.result["calls"].append(rec)
        try:
            fn()
        finally:
            rec["t1"] = now()


def fr_dump(rank):
    """This rank's Flight Recorder buffer as pickle bytes and as JSON text,
    with which call forms worked (the binding's signature differs between
    releases)."""
    import torch
    c = torch._C._distributed_c10d
    info = {"pickle": None, "json": None, "tries": []}
    pk, js = None, None
    fn = getattr(c, "_dump_fr_trace", None)
    if fn is None:
        info["tries"].append("no torch._C._distributed_c10d._dump_fr_trace")
    else:
        info["pickle_doc"] = (fn.__doc__ or "")[:600]
        # The first form that gives entries wins; a later release takes a
        # backend name, so try "gloo" when the plain forms come back empty.
        for a, k in [((), {"includeCollectives": True, "includeStackTraces": True, "onlyActive": False}),
                     ((True, True, False), {}), ((), {}),
                     ((True, True, False, "gloo"), {})]:
            try:
                got = fn(*a, **k)
            except Exception as e:  # a TypeError names the signature
                info["tries"].append("_dump_fr_trace%r%r: %s: %s" % (a, k, type(e).__name__, e))
                continue
            n = entries_in(got)
            info["tries"].append("_dump_fr_trace%r%r: %d bytes, %s entries" % (a, k, len(got), n))
            if pk is None or (not entries_in(pk) and n):
                pk = got
                info["pickle"] = "args=%r kwargs=%r" % (a, k)
            if n:
                break
    fj = getattr(c, "_dump_fr_trace_json", None)
    if fj is None:
        info["tries"].append("no torch._C._distributed_c10d._dump_fr_trace_json")
    else:
        info["json_doc"] = (fj.__doc__ or "")[:600]
        for a, k in [((), {"includeCollectives": True, "onlyActive": False}), ((True, False), {}), ((), {})]:
            try:
                js = fj(*a, **k)
                info["json"] = "args=%r kwargs=%r" % (a, k)
                break
            except Exception as e:
                info["tries"].append("_dump_fr_trace_json%r%r: %s: %s" % (a, k, type(e).__name__, e))
    if isinstance(pk, str):
        pk = pk.encode("latin-1")
    return pk, js, info


def entries_in(data):
    """How many entries a pickled dump holds (None when it does not load)."""
    import pickle
    try:
        if isinstance(data, str):
            data = data.encode("latin-1")
        return len(pickle.loads(data).get("entries", []))
    except Exception:
        return None


def scenario_size(r, dist, torch):
    for i in range(1, 5):
        n = 2048 if (i == 3 and r.rank == 1) else 1024
        t = torch.ones(n, dtype=torch.float32)
        if i == 3:
            r.mark("all_reduce #3 of %d float32" % n)
        r.call("all_reduce #%d (%d float32)" % (i, n), lambda: dist.all_reduce(t))


def scenario_order(r, dist, torch):
    t = torch.ones(1024, dtype=torch.float32)
    r.call("all_reduce #1", lambda: dist.all_reduce(t))
    out = [torch.empty(1024, dtype=torch.float32) for _ in range(r.world)]
    ar = ("all_reduce (1024 float32)", lambda: dist.all_reduce(t))
    ag = ("all_gather (1024 float32 per rank)", lambda: dist.all_gather(out, t))
    first, second = (ar, ag) if r.rank == 0 else (ag, ar)
    r.mark(first[0] + " as the 2nd collective")
    r.call(first[0], first[1])
    r.mark(second[0] + " as the 3rd collective")
    r.call(second[0], second[1])


def scenario_count(r, dist, torch):
    t = torch.ones(1024, dtype=torch.float32)
    done = 0
    for i in range(1, 6):
        if r.rank == 1 and i == 3:
            continue  # the skipped call: rank 1's later all_reduces pair with rank 0's earlier ones
        done += 1
        if i == 5:
            r.mark("all_reduce call %d (this rank's collective #%d)" % (i, done))
        r.call("all_reduce call %d (this rank's #%d)" % (i, done), lambda: dist.all_reduce(t))
    if r.rank == 1:
        r.mark("finished its loop after %d all_reduces" % done)


def scenario_unpaired(r, dist, torch):
    t = torch.ones(1024, dtype=torch.float32)
    r.call("all_reduce #1", lambda: dist.all_reduce(t))
    if r.rank == 0:
        big = torch.ones(16 << 20, dtype=torch.float32)  # 64 MiB: more than socket buffers hold
        r.mark("send 64 MiB to rank 1")
        r.call("send 64 MiB to rank 1", lambda: dist.send(big, dst=1))
    else:
        r.mark("all_reduce #2 (instead of the recv)")
        r.call("all_reduce #2", lambda: dist.all_reduce(t))


def scenario_two_comms(r, dist, torch):
    to = datetime.timedelta(seconds=r.args.timeout)
    try:
        pg_a = dist.new_group([0, 1], timeout=to, group_desc="pg_a")
        pg_b = dist.new_group([0, 1], timeout=to, group_desc="pg_b")
    except TypeError:  # no group_desc in this release
        pg_a = dist.new_group([0, 1], timeout=to)
        pg_b = dist.new_group([0, 1], timeout=to)
    t = torch.ones(1024, dtype=torch.float32)
    r.call("all_reduce on pg_a #1", lambda: dist.all_reduce(t, group=pg_a))
    r.call("all_reduce on pg_b #1", lambda: dist.all_reduce(t, group=pg_b))
    order = [("pg_a", pg_a), ("pg_b", pg_b)] if r.rank == 0 else [("pg_b", pg_b), ("pg_a", pg_a)]
    for name, pg in order:
        r.mark("all_reduce on %s #2" % name)
        r.call("all_reduce on %s #2" % name, lambda: dist.all_reduce(t, group=pg))


def scenario_core(r, dist, torch):
    """3000 training steps of one all_reduce each; at step --hang-at rank
    --stuck-rank is stuck in its data loader. Steps before it run with
    async_op and a window of in-flight all_reduces, as DDP's gradient
    buckets do, so that 64 ranks on a few cores get there in time; each
    call still takes the next sequence number. Should the steps still be
    too slow for --step-budget seconds, rank 0 moves the hang to an
    earlier step (a file every rank reads at every 100th step) and the
    result says so."""
    a = r.args
    t = torch.ones(256, dtype=torch.float32)
    stuck = threading.Event()
    r.result["step_times"] = {}
    hang_at = a.hang_at
    moved = os.path.join(r.dir, "hang_at")
    window = []
    t0 = now()
    for step in range(1, a.steps + 1):
        if step % 100 == 0:
            if r.rank == 0:
                rate = (now() - t0) / step
                with open(os.path.join(r.dir, "progress.txt"), "a") as f:
                    f.write("step %d at %.2f s (%.2f ms per step)\n" % (step, now() - t0, 1e3 * rate))
                left = a.step_budget - (now() - t0)
                if hang_at > step + 300 and (hang_at - step) * rate > left and not os.path.exists(moved):
                    new = max(step + 300, step + int(left / rate) // 100 * 100)
                    if new < hang_at:
                        write_atomic(moved, str(new))
            if os.path.exists(moved):
                try:
                    hang_at = min(hang_at, int(open(moved).read()))
                except ValueError:
                    pass
        if step == hang_at:
            for w in window:
                w.wait()
            window = []
            r.result["hang_at"] = hang_at
            r.result["steps_s"] = now() - t0
            if r.rank == a.stuck_rank:
                # The data loader (or a checkpoint write, or anything outside
                # torch.distributed) never returns: this rank never calls the
                # collective the others are waiting in.
                r.mark("load_batch(step %d) stuck, all_reduce #%d never called" % (step, step))
                r.result["stuck_in"] = "load_batch"
                load_batch_stuck(stuck, a.timeout + a.stuck_extra)
                r.result["stuck_released_after_s"] = now() - r.result["blocking_since"]
                return
            r.mark("all_reduce #%d" % step)
            r.call("all_reduce #%d" % step, lambda: dist.all_reduce(t))
            return
        window.append(dist.all_reduce(t, async_op=True))
        if len(window) >= a.window:
            window.pop(0).wait()
        if step % 500 == 0:
            r.result["step_times"][step] = now() - t0


def when_in_collective_wait(then):
    """Call then() from a helper thread once the main thread waits inside
    torch.distributed's collective (the frame of distributed_c10d.py at its
    work.wait() line): the collective is enqueued, so it is in this rank's
    Flight Recorder buffer, and a stack taken now shows the rank inside it."""
    main = threading.main_thread().ident

    def watch():
        while True:
            f = sys._current_frames().get(main)
            if f is not None and f.f_code.co_filename.endswith("distributed_c10d.py") and \
                    ".wait(" in linecache.getline(f.f_code.co_filename, f.f_lineno):
                break
            time.sleep(0.005)
        then()
    threading.Thread(target=watch, name="stage-fault", daemon=True).start()


def scenario_same_place(r, dist, torch):
    """killed and netcut: steps of one all_reduce; at step --hang-at the
    victim enters the all_reduce first and, once inside, is killed (SIGKILL)
    or frozen (SIGSTOP); only then do the others enter it (they wait for the
    file the victim writes just before), so the victim cannot have finished
    it and every rank is in the same collective."""
    a = r.args
    t = torch.ones(256, dtype=torch.float32)
    staged = os.path.join(r.dir, "staged")
    for step in range(1, a.hang_at):
        dist.all_reduce(t)
    step = a.hang_at
    r.result["hang_at"] = step
    if r.rank == a.stuck_rank:
        sig = signal.SIGKILL if a.scenario == "killed" else signal.SIGSTOP
        what = "killed (SIGKILL)" if a.scenario == "killed" else "frozen (SIGSTOP): its link cut"

        def fault():
            write_atomic(staged, json.dumps({"rank": r.rank, "signal": sig.name, "t": now()}))
            os.kill(os.getpid(), sig)
        r.mark("all_reduce #%d, then %s inside it" % (step, what))
        when_in_collective_wait(fault)
        r.call("all_reduce #%d" % step, lambda: dist.all_reduce(t))
        return
    deadline = now() + a.timeout + 60
    while not os.path.exists(staged) and now() < deadline:
        time.sleep(0.01)
    r.mark("all_reduce #%d" % step)
    r.call("all_reduce #%d" % step, lambda: dist.all_reduce(t))


scenario_killed = scenario_same_place
scenario_netcut = scenario_same_place


def load_batch_stuck(ev, seconds):
    """Stands for a data loader that never returns; a stack dump shows this
    frame. It gives up after `seconds` so that the rank can dump its buffer
    too (a real stuck loader would not)."""
    ev.wait(seconds)


def worker(args):
    r = Rank(args)
    for sub in ("marks", "stacks", "fr", "fr_json", "result", "done", "pids", "ready"):
        os.makedirs(os.path.join(args.dir, sub), exist_ok=True)
    stacks = open(r.path("stacks", "rank_%d.txt" % r.rank), "w")
    faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=True, chain=False)
    # A fatal signal (gloo aborts the process on some mismatches) writes
    # the stacks too.
    faulthandler.enable(file=stacks, all_threads=True)
    write_atomic(r.path("pids", "rank_%d" % r.rank), str(os.getpid()))
    import torch
    import torch.distributed as dist
    r.result["torch"] = torch.__version__
    r.result["env"] = {k: v for k, v in os.environ.items() if k.startswith(("TORCH_", "NCCL_", "GLOO_"))}
    # Every rank imports torch first: 64 imports on a few cores take longer
    # than the short timeout this lab runs with, and init_process_group's
    # timeout bounds its rendezvous too.
    write_atomic(r.path("ready", "rank_%d" % r.rank), "1")
    deadline = now() + 180
    while now() < deadline and count(args.dir, "ready") < r.world:
        time.sleep(0.1)
    t_init = now()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    r.result["init_s"] = now() - t_init
    try:
        globals()["scenario_" + args.scenario](r, dist, torch)
        r.result["outcome"] = "returned"
    except Exception as e:
        r.result["outcome"] = "raised"
        r.result["exception"] = type(e).__name__
        r.result["error"] = str(e)[:4000]
    r.result["ended"] = now()
    if "blocking_since" in r.result:
        r.result["ended_after_s"] = r.result["ended"] - r.result["blocking_since"]
    pk, js, info = fr_dump(r.rank)
    r.result["fr_dump"] = info
    if pk is not None:
        write_atomic(r.path("fr", "rank_%d" % r.rank), pk)
        r.result["fr_pickle_bytes"] = len(pk)
    if js is not None:
        write_atomic(r.path("fr_json", "rank_%d.json" % r.rank), js)
    write_atomic(r.path("result", "rank_%d.json" % r.rank), json.dumps(r.result, indent=1, default=str))
    write_atomic(r.path("done", "rank_%d" % r.rank), "1")
    # Stay until every rank has dumped: a rank that leaves early closes its
    # connections, and the others would then fail on that instead of timing out.
    deadline = now() + args.timeout + args.stuck_extra + 60
    while now() < deadline and len(os.listdir(os.path.join(args.dir, "done"))) < r.world:
        time.sleep(0.2)
    stacks.flush()
    os._exit(0)


# ---------------------------------------------------------------- driver side


def count(d, sub):
    try:
        return len([f for f in os.listdir(os.path.join(d, sub)) if not f.endswith(".tmp")])
    except FileNotFoundError:
        return 0


def drive(args):
    d = os.path.abspath(args.out)
    os.makedirs(d, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("TORCH_FR_BUFFER_SIZE", str(args.buffer))
    env.setdefault("TORCH_NCCL_TRACE_BUFFER_SIZE", env["TORCH_FR_BUFFER_SIZE"])
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("PYTHONUNBUFFERED", "1")
    nproc = args.nproc or {"core": 64, "killed": 4, "netcut": 4}.get(args.scenario, 2)
    if args.stuck_rank is None:
        args.stuck_rank = 37 if args.scenario == "core" else nproc // 2
    if args.scenario in SAME_PLACE and not 0 <= args.stuck_rank < nproc:
        print("--stuck-rank %d is not one of the %d ranks" % (args.stuck_rank, nproc), file=sys.stderr)
        return 2
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nnodes", "1",
           "--nproc-per-node", str(nproc), "--max-restarts", "0",
           "--log-dir", os.path.join(d, "torchrun"), "--redirects", "3",
           os.path.abspath(__file__), "worker", "--scenario", args.scenario, "--dir", d,
           "--timeout", str(args.timeout), "--steps", str(args.steps), "--hang-at", str(args.hang_at),
           "--stuck-rank", str(args.stuck_rank), "--stuck-extra", str(args.stuck_extra),
           "--window", str(args.window), "--step-budget", str(args.step_budget)]
    summary = {"scenario": args.scenario, "nproc": nproc, "timeout_s": args.timeout, "command": cmd,
               "env": {k: env[k] for k in sorted(env) if k.startswith(("TORCH_FR", "TORCH_NCCL", "NCCL_", "OMP_"))},
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "events": []}
    if args.scenario == "core":
        summary.update(steps=args.steps, hang_at=args.hang_at, stuck_rank=args.stuck_rank)
    if args.scenario in SAME_PLACE:
        summary.update(steps=args.hang_at, hang_at=args.hang_at, stuck_rank=args.stuck_rank)

    def event(what):
        summary["events"].append({"t": round(now() - t0, 3), "what": what})
        print("[%s %.1fs] %s" % (args.scenario, now() - t0, what), flush=True)

    t0 = now()
    out = open(os.path.join(d, "torchrun.log"), "w")
    p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    event("started torchrun, %d ranks" % nproc)
    hard = t0 + args.deadline
    # 1. every rank at its blocking point (or finished), then a little longer.
    while now() < hard and p.poll() is None and (count(d, "marks") + 0) < nproc and count(d, "done") < nproc:
        time.sleep(0.2)
    event("%d of %d ranks marked their blocking call, %d done" % (count(d, "marks"), nproc, count(d, "done")))
    time.sleep(args.settle)
    # 2. the stacks of every rank still running: py-spy's from outside, then
    # faulthandler's from inside, then gdb's. gdb goes last because it stops
    # a rank while it reads it (tens of seconds with libtorch's symbols): a
    # rank held past its timeout fails as soon as gdb lets go, so the stacks
    # taken after gdb would show it already past the collective.
    summary["py_spy"] = pyspy_dumps(d, args.pyspy_timeout, event)
    signalled = []
    for f in sorted(os.listdir(os.path.join(d, "pids"))) if os.path.isdir(os.path.join(d, "pids")) else []:
        if f.endswith(".tmp"):
            continue
        try:
            pid = int(open(os.path.join(d, "pids", f)).read())
            os.kill(pid, signal.SIGUSR1)
            signalled.append(f)
        except (OSError, ValueError) as e:
            event("no stack from %s: %s" % (f, e))
    event("SIGUSR1 (faulthandler stacks) sent to %d ranks" % len(signalled))
    wait_for_stacks(d, signalled, 10.0)
    # gdb sees what py-spy cannot: the C++ threads (gloo's or NCCL's) and
    # where in them each rank waits.
    summary["gdb"] = gdb_dumps(d, args.gdb_timeout, event)
    # 3. the ranks time out, dump, and leave. A frozen rank (netcut) is
    # resumed once every other rank has dumped, so that it dumps too.
    resumed = args.scenario != "netcut"
    while now() < hard and p.poll() is None:
        if not resumed and count(d, "done") >= nproc - 1:
            resume(d, args.stuck_rank, event)
            resumed = True
        time.sleep(0.2)
    if p.poll() is None:
        if not resumed:
            resume(d, args.stuck_rank, event)
        event("deadline %.0fs passed: SIGUSR1 again, then SIGTERM to torchrun" % args.deadline)
        for f in os.listdir(os.path.join(d, "pids")):
            try:
                os.kill(int(open(os.path.join(d, "pids", f)).read()), signal.SIGUSR1)
            except (OSError, ValueError):
                pass
        time.sleep(1)
        os.killpg(p.pid, signal.SIGTERM)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        summary["killed"] = True
    summary["torchrun_exit"] = p.returncode
    event("torchrun exited %s; %d dumps, %d results" % (p.returncode, count(d, "fr"), count(d, "result")))
    summary["wall_s"] = round(now() - t0, 2)
    write_atomic(os.path.join(d, "summary.json"), json.dumps(summary, indent=1))
    # 4. PyTorch's own analyzer on the same dumps, and on a copy whose
    # pg_config is repaired (see repair_pg_config).
    summary["fr_trace"] = []
    if count(d, "fr") > 0:
        try:
            summary["fr_fixed"] = repair_pg_config(os.path.join(d, "fr"), os.path.join(d, "fr_fixed"), nproc)
        except Exception as e:
            summary["fr_fixed"] = "repair failed: %s: %s" % (type(e).__name__, e)
        sel = ["--selected-ranks", "0", str(args.stuck_rank)] if nproc > 8 else []
        runs = [("fr_trace.txt", "fr", []), ("fr_trace-fixed.txt", "fr_fixed", []), ("fr_trace-fixed-entries.txt", "fr_fixed", ["-j"] + sel)]
        if count(d, "fr") < nproc:
            runs.append(("fr_trace-fixed-incomplete.txt", "fr_fixed", ["--allow-incomplete-ranks"]))
        runs = [(name, sub, extra) for name, sub, extra in runs if count(d, sub) > 0]

        def fr_trace(run):
            name, sub, extra = run
            fcmd = [sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace", os.path.join(d, sub), "-p", "rank_"] + extra
            try:
                res = subprocess.run(fcmd, capture_output=True, text=True, timeout=args.fr_trace_timeout)
                text, rc = res.stdout + ("\n--- stderr ---\n" + res.stderr if res.stderr else ""), res.returncode
            except subprocess.TimeoutExpired as e:
                text, rc = "timed out after %g s\n%s" % (args.fr_trace_timeout, e.stdout or ""), "timeout"
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            return name, sub, extra, fcmd, rc

        # The runs are independent and each spends most of its time
        # importing torch: all at once, they take about as long as one.
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(runs))) as pool:
            for name, sub, extra, fcmd, rc in pool.map(fr_trace, runs):
                summary["fr_trace"].append({"file": name, "command": fcmd, "exit": rc})
                event("fr_trace %s %s exit %s" % (sub, " ".join(extra), rc))
        write_atomic(os.path.join(d, "summary.json"), json.dumps(summary, indent=1))
    summary["wall_s"] = round(now() - t0, 2)
    write_atomic(os.path.join(d, "summary.json"), json.dumps(summary, indent=1))
    return 0


def resume(d, rank, event):
    """SIGCONT to the rank the netcut scenario froze."""
    try:
        pid = int(open(os.path.join(d, "pids", "rank_%d" % rank)).read())
        os.kill(pid, signal.SIGCONT)
        event("SIGCONT to rank %d (pid %d), frozen since its link was cut" % (rank, pid))
    except (OSError, ValueError) as e:
        event("could not resume rank %d: %s" % (rank, e))


def pyspy_binary():
    """py-spy beside this Python (a venv's bin) or on PATH, or None."""
    here = os.path.join(os.path.dirname(sys.executable), "py-spy")
    if os.access(here, os.X_OK):
        return here
    return shutil.which("py-spy")


def wait_for_stacks(d, signalled, limit_s):
    """Waits (at most limit_s) until faulthandler has written a stack for
    every rank that was sent SIGUSR1 (pids/rank_N -> stacks/rank_N.txt)."""
    end = time.monotonic() + limit_s
    want = [os.path.join(d, "stacks", f + ".txt") for f in signalled]
    while time.monotonic() < end:
        if all(os.path.exists(w) and os.path.getsize(w) > 0 for w in want):
            return
        time.sleep(0.1)


def pyspy_dumps(d, timeout, event):
    """`py-spy dump --pid PID` for every rank that wrote its pid, its text
    saved as stacks/rank<N>.txt (beside faulthandler's stacks/rank_N.txt).
    py-spy reads another process's memory, which needs ptrace: as root (with
    CAP_SYS_PTRACE) it works; otherwise the kernel's Yama setting
    (kernel.yama.ptrace_scope 1 allows only a process's ancestors) refuses it
    and py-spy says so: the reason is kept, faulthandler's stacks remain."""
    exe = pyspy_binary()
    if exe is None:
        event("py-spy not installed (pip install py-spy): faulthandler's stacks only")
        return {"error": "py-spy not found beside %s or on PATH; pip install py-spy" % sys.executable}
    try:
        version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=timeout).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return {"error": "py-spy --version: %s" % e}
    pids = rank_pids(d)

    def dump(rank):
        ended = already_ended(rank, pids[rank])
        if ended:
            return rank, ended
        cmd = [exe, "dump", "--pid", str(pids[rank])]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return rank, {"exit": "timeout", "error": "py-spy dump took more than %g s" % timeout}
        except OSError as e:
            return rank, {"exit": "error", "error": str(e)}
        if res.returncode != 0 or not res.stdout.strip():
            # py-spy's own message ("Error: ... Permission denied ..."),
            # not the backtrace it may print after it
            lines = [l.strip() for l in (res.stderr + "\n" + res.stdout).splitlines() if l.strip()]
            said = [l for l in lines if l.startswith("Error") or "ermission" in l] or lines[:1] or ["no output"]
            return rank, {"exit": res.returncode, "error": "; ".join(said[:3])}
        write_atomic(os.path.join(d, "stacks", "rank%d.txt" % rank), res.stdout)
        return rank, {"exit": 0, "file": "stacks/rank%d.txt" % rank}

    os.makedirs(os.path.join(d, "stacks"), exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(8, len(pids)))) as pool:
        ranks = dict(pool.map(dump, sorted(pids)))
    ok = sum(1 for r in ranks.values() if r.get("exit") == 0)
    event("py-spy dump: %d of %d ranks" % (ok, len(pids)) + ("" if ok == len(pids) else
          "; the first refusal: %s" % next(r["error"] for r in ranks.values() if r.get("exit") != 0)))
    return {"version": version, "command": [exe, "dump", "--pid", "PID"], "ranks": {str(k): v for k, v in ranks.items()}}


def rank_pids(d):
    """{rank: pid} from the pid files the ranks wrote."""
    pids = {}
    pid_dir = os.path.join(d, "pids")
    for f in sorted(os.listdir(pid_dir)) if os.path.isdir(pid_dir) else []:
        if f.startswith("rank_") and not f.endswith(".tmp"):
            try:
                pids[int(f[5:])] = int(open(os.path.join(pid_dir, f)).read())
            except ValueError:
                pass
    return pids


def already_ended(rank, pid):
    """The error entry of a rank whose process has ended, else None (a
    process we may not signal exists: the tool says whether it may read it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return {"exit": "gone", "error": "rank %d (pid %d) had already ended" % (rank, pid)}
    except PermissionError:
        pass
    return None


GDB_ARGS = ["-batch", "-nx", "-q", "-ex", "set pagination off", "-ex", "thread apply all bt"]
# The CUDA libraries a CUDA build of torch loads at import (libtorch_cuda,
# cuBLAS, cuDNN, NCCL, ...): gloo's CPU ranks never run their code, so no
# stack here passes through them, and reading their symbols is most of
# gdb's time. gdb reads the symbols of every other library.
GDB_SKIP = re.compile(r"/nvidia/|/libtorch_cuda|/libc10_cuda|/libcu|/libnccl|/libnv|/triton/")


def gdb_command(exe, pid):
    """gdb's command for one rank: GDB_ARGS, with the symbols of the
    libraries GDB_SKIP names left unread: auto-solib-add off, then
    `sharedlibrary /NAME\\.so` for each other library the process has
    mapped (/proc/PID/maps), by the name before ".so", since gdb knows a
    library by its link-map path (libstdc++.so.6), which may not be the
    file the maps name (libstdc++.so.6.0.30). Where the maps cannot be read
    or name nothing to skip, the plain command."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            libs = [fields[5] for fields in (line.split() for line in f) if len(fields) >= 6 and ".so" in fields[5]]
    except OSError:
        return [exe, "-p", str(pid)] + GDB_ARGS
    if not any(GDB_SKIP.search(l) for l in libs):
        return [exe, "-p", str(pid)] + GDB_ARGS
    names = []
    for lib in libs:
        name = os.path.basename(lib).split(".so")[0]
        if not GDB_SKIP.search(lib) and name not in names:
            names.append(name)
    cmd = [exe, "-p", str(pid), "-batch", "-nx", "-q", "-iex", "set auto-solib-add off"]
    for name in names:
        # gdb's regex is POSIX basic: escape only what is special there
        cmd += ["-ex", "sharedlibrary /%s\\.so" % re.sub(r"([.\[\]*^$\\])", r"\\\1", name)]
    return cmd + GDB_ARGS[3:]


def gdb_dumps(d, timeout, event):
    """`gdb -p PID -batch -nx -q -ex "set pagination off" -ex "thread
    apply all bt"` for every rank still running, all at once, each within
    `timeout` seconds (gdb reads libtorch's symbols: seconds to tens of
    seconds per rank). Its text, warnings included, is saved as
    stacks/rank<N>.gdb.txt. Attaching needs ptrace, as py-spy does; a
    refusal, a rank already gone or a timeout is kept as that rank's
    error. gdb stops the rank while it reads it and detaches after."""
    exe = shutil.which("gdb")
    if exe is None:
        event("gdb not installed: no C++ stacks")
        return {"error": "gdb not found on PATH"}
    try:
        version = subprocess.run([exe, "--version"], capture_output=True, text=True,
                                 timeout=timeout).stdout.splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError, IndexError) as e:
        return {"error": "gdb --version: %s" % e}
    pids = rank_pids(d)

    def dump(rank):
        pid = pids[rank]
        ended = already_ended(rank, pid)
        if ended:
            return rank, ended
        cmd = gdb_command(exe, pid)
        t0 = now()
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 stdin=subprocess.DEVNULL)
        except OSError as e:
            return rank, {"exit": "error", "error": str(e)}
        try:
            text, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # SIGTERM first: gdb then detaches, so the rank runs on
            p.terminate()
            try:
                p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
            return rank, {"exit": "timeout", "error": "gdb took more than %g s" % timeout,
                          "seconds": round(now() - t0, 2)}
        took = round(now() - t0, 2)
        refused = [l.strip() for l in text.splitlines() if l.startswith("ptrace:") or "ould not attach" in l]
        if any("No such process" in l for l in refused):
            return rank, {"exit": "gone", "error": "; ".join(refused[:2]), "seconds": took}
        if refused:
            return rank, {"exit": "ptrace refused", "error": "; ".join(refused[:2]), "seconds": took}
        if not any(l.startswith("Thread ") for l in text.splitlines()):
            lines = [l.strip() for l in text.splitlines() if l.strip()]
            return rank, {"exit": p.returncode, "error": "; ".join(lines[-2:]) or "no output", "seconds": took}
        write_atomic(os.path.join(d, "stacks", "rank%d.gdb.txt" % rank), text)
        return rank, {"exit": 0, "file": "stacks/rank%d.gdb.txt" % rank, "seconds": took}

    os.makedirs(os.path.join(d, "stacks"), exist_ok=True)
    t0 = now()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(8, len(pids)))) as pool:
        ranks = dict(pool.map(dump, sorted(pids)))
    ok = sum(1 for r in ranks.values() if r.get("exit") == 0)
    event("gdb thread apply all bt: %d of %d ranks in %.1f s" % (ok, len(pids), now() - t0) + (
        "" if ok == len(pids) else "; the first failure: %s" % next(r["error"] for r in ranks.values() if r.get("exit") != 0)))
    return {"version": version, "command": [exe, "-p", "PID"] + GDB_ARGS, "symbols_skipped": GDB_SKIP.pattern,
            "wall_s": round(now() - t0, 2),
            "ranks": {str(k): v for k, v in ranks.items()}}


def repair_pg_config(src, dst, world):
    """Copy the dumps with their pg_config made to match their entries:
    torch 2.11's gloo dumps name the default group "" in pg_config while
    the entries say "0", and leave groups made with new_group out of it,
    which stops fr_trace with a KeyError. The "" group becomes "0" (its
    ranks kept, or all ranks when it lists none) and a group only the
    entries name gets all ranks: true for every group this lab makes."""
    import pickle
    os.makedirs(dst, exist_ok=True)
    changed = []
    for f in sorted(os.listdir(src)):
        if f.endswith(".tmp"):
            continue
        with open(os.path.join(src, f), "rb") as fh:
            dump = pickle.load(fh)
        cfg = dict(dump.get("pg_config") or {})
        seen = {}
        for e in dump.get("entries", []):
            pg = e.get("process_group")
            if isinstance(pg, (list, tuple)) and len(pg) >= 2:
                seen.setdefault(str(pg[0]), str(pg[1]))
        everyone = str(list(range(world)))
        if "" in cfg and "" not in seen:
            old = cfg.pop("")
            ranks = old.get("ranks") if old.get("ranks") not in (None, "", "[]") else everyone
            if "0" in seen and "0" not in cfg:
                cfg["0"] = {"name": "0", "desc": seen["0"], "ranks": ranks}
                changed.append("%s: '' -> '0'" % f)
        for name, desc in seen.items():
            if name not in cfg:
                cfg[name] = {"name": name, "desc": desc, "ranks": everyone}
                changed.append("%s: added %s (%s)" % (f, name, desc))
        dump["pg_config"] = cfg
        with open(os.path.join(dst, f), "wb") as fh:
            pickle.dump(dump, fh)
    return changed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["run", "worker"])
    p.add_argument("--scenario", required=True, choices=SCENARIOS)
    p.add_argument("--out", help="run: the folder everything is written under")
    p.add_argument("--dir", help="worker: the folder the driver gave")
    p.add_argument("--nproc", type=int, default=0, help="ranks (default 2; 64 for core, 4 for killed and netcut)")
    p.add_argument("--timeout", type=float, default=15, help="init_process_group's timeout, seconds")
    p.add_argument("--steps", type=int, default=3000, help="core: all_reduces per rank")
    p.add_argument("--hang-at", type=int, default=3000, help="core: the step whose all_reduce one rank never calls; killed, netcut: the step whose all_reduce the fault hits")
    p.add_argument("--stuck-rank", type=int, default=None,
                   help="core: the rank stuck in its data loader (37); killed, netcut: the rank killed or frozen (nproc/2)")
    p.add_argument("--stuck-extra", type=float, default=8, help="core: how much longer than the timeout the stuck rank stays stuck")
    p.add_argument("--window", type=int, default=16, help="core: async all_reduces in flight before the hang step")
    p.add_argument("--step-budget", type=float, default=60, help="core: seconds the steps before the hang may take")
    p.add_argument("--buffer", type=int, default=2000, help="TORCH_FR_BUFFER_SIZE when not set already")
    p.add_argument("--settle", type=float, default=1, help="run: seconds between the last mark and the stack dumps")
    p.add_argument("--fr-trace-timeout", type=float, default=60, help="run: seconds each fr_trace run may take")
    p.add_argument("--deadline", type=float, default=150, help="run: end the ranks after this many seconds")
    p.add_argument("--pyspy-timeout", type=float, default=60, help="run: seconds each py-spy dump may take")
    p.add_argument("--gdb-timeout", type=float, default=90, help="run: seconds each gdb backtrace may take")
    a = p.parse_args()
    if a.mode == "run":
        if not a.out:
            p.error("run needs --out")
        sys.exit(drive(a))
    if not a.dir:
        p.error("worker needs --dir")
    worker(a)


if __name__ == "__main__":
    main()
