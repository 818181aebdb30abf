"""Talk to a kernel's sockets with jupyter_client (pyzmq/libzmq), as Jupyter does.

Usage: python3 jupyter_client_probe.py CONNECTION_FILE
Prints one JSON object: what came back on shell, iopub and heartbeat.
Used by TestJupyterClientInterop in conn_test.go.
"""
import json
import sys
import time

from jupyter_client import BlockingKernelClient

kc = BlockingKernelClient(connection_file=sys.argv[1])
kc.load_connection_file()
kc.start_channels()
result = {"replies": [], "iopub": [], "beating": False}
try:
    deadline = time.time() + 10
    idle_seen = False
    # Like jupyter_client's own nudge: ask for kernel_info until iopub
    # shows a request's idle status (PUB slow joiner).
    while not idle_seen and time.time() < deadline:
        reply = kc.kernel_info(reply=True, timeout=5)
        result["replies"].append({
            "msg_type": reply["msg_type"],
            "status": reply["content"].get("status"),
            "parent_is_request": reply["parent_header"].get("msg_type") == "kernel_info_request",
        })
        t_end = time.time() + 0.5
        while time.time() < t_end:
            try:
                m = kc.get_iopub_msg(timeout=0.1)
            except Exception:
                continue
            result["iopub"].append(m["msg_type"] + ":" + m["content"].get("execution_state", ""))
            if m["content"].get("execution_state") == "idle":
                idle_seen = True
                break
    beat_deadline = time.time() + 5
    while time.time() < beat_deadline and not result["beating"]:
        result["beating"] = kc.hb_channel.is_beating()
        time.sleep(0.1)
    # Round trip times of kernel_info as jupyter_client sees them.
    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        kc.kernel_info(reply=True, timeout=5)
        times.append(time.perf_counter() - t0)
    times.sort()
    result["rtt_us_median"] = round(times[len(times) // 2] * 1e6, 1)
    result["rtt_us_p90"] = round(times[len(times) * 9 // 10] * 1e6, 1)
finally:
    kc.stop_channels()
print(json.dumps(result))
