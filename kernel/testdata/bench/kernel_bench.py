"""Kernel protocol numbers for `make bench`: commlab against ipykernel,
measured by the same jupyter_client code in the same run.

- cold start: process start to the first kernel_info_reply (median ms of
  several starts), twice: with a client whose sockets retry a refused
  connection after 1 ms, which measures the kernel, and with
  jupyter_client's defaults, whose sockets retry only every 100 ms
  (ZeroMQ's RECONNECT_IVL): a kernel that binds after the client's first
  attempt is seen a whole interval later, so that number moves in steps of
  100 ms with the client rather than with the kernel
- execute round trip of `1+1`: execute_request sent to idle status (median
  ms), twice: through BlockingKernelClient (what notebooks use; its asyncio
  path costs ~1.4 ms per execute on the client side alone), and through
  jupyter_client's Session over plain pyzmq sockets, whose small client cost
  lets the ratio compare the kernels rather than the client
- idle memory: VmRSS of the kernel process after the runs (MB)

Usage: kernel_bench.py COMMLAB_BINARY [N]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file

TARGETS = {"cold_start_ms": 100.0, "roundtrip_ms": 2.0, "ratio": 0.25, "rss_mb": 100.0}
COLD_STARTS = 7


def measure(argv_for, n, env=None, log_path=None):
    tmp = tempfile.mkdtemp()
    cf, info = write_connection_file(os.path.join(tmp, "kernel.json"))
    argv = [a.replace("{connection_file}", cf) for a in argv_for]
    t0 = time.perf_counter()
    err = open(log_path, "w") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env)
    kc = BlockingKernelClient(connection_file=cf)
    kc.load_connection_file()
    kc.start_channels()
    try:
        # ZeroMQ queues the request until the kernel has bound its
        # sockets, so one kernel_info_request measures the cold start.
        msg_id = kc.kernel_info()
        while True:
            reply = kc.get_shell_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        cold = (time.perf_counter() - t0) * 1000
        kc.wait_for_ready(timeout=30)  # iopub subscribed (ZeroMQ's slow joiner)
        # Drain iopub, then time execute to idle.
        def run_once():
            t = time.perf_counter()
            mid = kc.execute("1+1")
            while True:
                m = kc.get_iopub_msg(timeout=10)
                if m["parent_header"].get("msg_id") == mid and m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                    break
            dt = time.perf_counter() - t
            while kc.get_shell_msg(timeout=10)["parent_header"].get("msg_id") != mid:
                pass
            return dt * 1000
        for _ in range(20):
            run_once()
        times = [run_once() for _ in range(n)]
        with open("/proc/%d/status" % proc.pid) as f:
            rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
        return {"cold_start_ms": cold, "roundtrip_ms": statistics.median(times), "rss_mb": rss}
    finally:
        kc.shutdown()
        kc.stop_channels()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


def cold_start(argv_for, reconnect_ivl_ms):
    """Median ms from process start to the first kernel_info_reply, over
    COLD_STARTS starts, through jupyter_client's Session on a pyzmq DEALER
    that retries a refused connection after reconnect_ivl_ms."""
    import zmq
    from jupyter_client.session import Session

    times = []
    for _ in range(COLD_STARTS):
        tmp = tempfile.mkdtemp()
        cf, info = write_connection_file(os.path.join(tmp, "kernel.json"))
        ctx = zmq.Context()
        sess = Session(key=info["key"].encode(), signature_scheme=info["signature_scheme"])
        shell = ctx.socket(zmq.DEALER)
        shell.setsockopt(zmq.RECONNECT_IVL, reconnect_ivl_ms)
        t0 = time.perf_counter()
        proc = subprocess.Popen([a.replace("{connection_file}", cf) for a in argv_for],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            # Connect after the start, as a front end's client does.
            shell.connect("tcp://%s:%d" % (info["ip"], info["shell_port"]))
            # ZeroMQ queues the request until the connection is made.
            sess.send(shell, "kernel_info_request", {})
            if not shell.poll(30000):
                raise RuntimeError("no kernel_info_reply within 30 s")
            sess.recv(shell, mode=0)
            times.append((time.perf_counter() - t0) * 1000)
            sess.send(shell, "shutdown_request", {"restart": False})
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            ctx.destroy(linger=0)
    return statistics.median(times)


def lean_roundtrip(argv_for, n):
    """Median execute round trip with jupyter_client's Session on pyzmq."""
    import zmq
    from jupyter_client.session import Session

    tmp = tempfile.mkdtemp()
    cf, info = write_connection_file(os.path.join(tmp, "kernel.json"))
    proc = subprocess.Popen([a.replace("{connection_file}", cf) for a in argv_for],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ctx = zmq.Context()
    sess = Session(key=info["key"].encode(), signature_scheme=info["signature_scheme"])
    shell = ctx.socket(zmq.DEALER)
    shell.connect("tcp://%s:%d" % (info["ip"], info["shell_port"]))
    iopub = ctx.socket(zmq.SUB)
    iopub.setsockopt(zmq.SUBSCRIBE, b"")
    iopub.connect("tcp://%s:%d" % (info["ip"], info["iopub_port"]))
    try:
        deadline = time.time() + 30
        while time.time() < deadline:  # until iopub is subscribed
            sess.send(shell, "kernel_info_request", {})
            if iopub.poll(200):
                break
        time.sleep(0.3)
        while iopub.poll(10):
            sess.recv(iopub)
        while shell.poll(10):
            sess.recv(shell)

        def once():
            t = time.perf_counter()
            mid = sess.send(shell, "execute_request", {"code": "1+1", "silent": False, "store_history": True,
                                                       "user_expressions": {}, "allow_stdin": False,
                                                       "stop_on_error": True})["header"]["msg_id"]
            while True:
                _, m = sess.recv(iopub, mode=0)
                if (m["parent_header"].get("msg_id") == mid and m["msg_type"] == "status"
                        and m["content"]["execution_state"] == "idle"):
                    break
            dt = (time.perf_counter() - t) * 1000
            while sess.recv(shell, mode=0)[1]["parent_header"].get("msg_id") != mid:
                pass
            return dt

        for _ in range(20):
            once()
        return statistics.median([once() for _ in range(n)])
    finally:
        sess.send(shell, "shutdown_request", {"restart": False})
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        ctx.destroy(linger=0)


def parse_duration_ms(s):
    """A Go duration as slog prints it (295.7µs, 1.2ms) in milliseconds."""
    for unit, scale in (("ns", 1e-6), ("µs", 1e-3), ("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * scale
    return float("nan")


def main():
    binary = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    log_path = os.path.join(tempfile.mkdtemp(), "kernel.log")
    commlab = measure([binary, "kernel", "{connection_file}"], n, dict(os.environ, COMMLAB_LOG="debug"), log_path)
    # The kernel's own share: busy to idle as the kernel logs it.
    took = []
    for line in open(log_path):
        if "msg_type=execute_request" in line and "took=" in line:
            took.append(parse_duration_ms(line.split("took=")[1].split()[0]))
    kernel_side = statistics.median(took[-n:]) if took else float("nan")
    ipy = measure([sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], n)
    ratio_client = commlab["roundtrip_ms"] / ipy["roundtrip_ms"]
    lean_commlab = lean_roundtrip([binary, "kernel", "{connection_file}"], n)
    lean_ipy = lean_roundtrip([sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], n)
    ratio = lean_commlab / lean_ipy
    commlab_argv = [binary, "kernel", "{connection_file}"]
    ipy_argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    cold = {"kernel": (cold_start(commlab_argv, 1), cold_start(ipy_argv, 1)),
            "jupyter_client": (cold_start(commlab_argv, 100), cold_start(ipy_argv, 100))}
    print("%-28s %10s %10s %10s" % ("", "commlab", "ipykernel", "target"))
    print("%-28s %10.1f %10.1f %10s" % ("cold start ms, 1 ms retry", cold["kernel"][0], cold["kernel"][1], "<= 100"))
    print("%-28s %10.1f %10.1f %10s" % ("  100 ms retry (default)", cold["jupyter_client"][0], cold["jupyter_client"][1], ""))
    print("%-28s %10.1f %10.1f %10s" % ("  BlockingClient, one start", commlab["cold_start_ms"], ipy["cold_start_ms"], ""))
    print("%-28s %10.3f %10.3f %10s" % ("execute 1+1, Session/pyzmq", lean_commlab, lean_ipy, "<= 2"))
    print("%-28s %10.2f %10s %10s" % ("  ratio", ratio, "", "<= 0.25"))
    print("%-28s %10.3f %10.3f %10s" % ("execute 1+1, BlockingClient", commlab["roundtrip_ms"], ipy["roundtrip_ms"], ""))
    print("%-28s %10.2f %10s %10s" % ("  ratio", ratio_client, "", ""))
    print("%-28s %10.3f %10s %10s" % ("kernel-side busy->idle ms", kernel_side, "", ""))
    print("%-28s %10.1f %10.1f %10s" % ("idle RSS MB", commlab["rss_mb"], ipy["rss_mb"], "<= 100"))
    json.dump({"commlab": commlab, "ipykernel": ipy, "ratio": ratio, "ratio_blocking_client": ratio_client,
               "session_pyzmq_ms": {"commlab": lean_commlab, "ipykernel": lean_ipy},
               "kernel_side_ms": kernel_side, "n": n,
               "cold_start_ms": {"retry_1ms": cold["kernel"], "retry_100ms": cold["jupyter_client"]}}, sys.stderr)
    sys.stderr.write("\n")
    ok = (cold["kernel"][0] <= TARGETS["cold_start_ms"] and lean_commlab <= TARGETS["roundtrip_ms"]
          and ratio <= TARGETS["ratio"] and commlab["rss_mb"] <= TARGETS["rss_mb"])
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
