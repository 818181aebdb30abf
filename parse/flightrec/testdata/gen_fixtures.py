#!/usr/bin/env python3
"""Writes the SYNTHETIC Flight Recorder dumps under testdata/.

No PyTorch here: these dumps are built with the standard library in the layout
torch's FlightRecorder writes (torch/csrc/distributed/c10d/FlightRecorder.hpp
and FlightRecorderDetail.hpp, dump version "2.10"): the pickle form is
pickle.dumps(dict, protocol=2) like torch's C++ pickler (protocol 2), the JSON
form follows dump_json (no frames, 0 for unknown times, pg_status values as
strings). Timestamps, sizes and stack frames are made up for parser and
analysis tests; they are not measurements. Run from this directory:

    python3 gen_fixtures.py
"""
import json
import os
import pickle

VERSION = "2.10"
NCCL = "2.21.5"
T0 = 1_732_000_000_000_000_000  # ns; arbitrary
TIMEOUT_MS = 600_000


def entry(record_id, pg_id, pg, seq, p2p_seq, op_id, name, sizes, dtype, state,
          created, out_sizes=None, p2p=False, frames=True, json_form=False):
    started = created + 20_000 if state in ("started", "completed") else None
    completed = created + 90_000 if state == "completed" else None
    e = {}
    if frames and not json_form:
        e["frames"] = [
            {"name": name.split(":")[1].split(" ")[0], "filename": "torch/distributed/distributed_c10d.py", "line": 2700},
            {"name": "train_step", "filename": "/workspace/train.py", "line": 88},
        ]
    e.update({
        "record_id": record_id,
        "pg_id": pg_id,
        "process_group": (pg[0], pg[1]) if not json_form else [pg[0], pg[1]],
        "thread_name": "pt_main_thread",
        "thread_id": "140231811245888",
        "collective_seq_id": seq,
        "p2p_seq_id": p2p_seq,
        "op_id": op_id,
        "profiling_name": name,
        "time_created_ns": created,
    })
    if state == "completed":
        e["duration_ms"] = 0.07
    e.update({
        "input_sizes": sizes,
        "input_dtypes": [dtype] * len(sizes),
        "output_sizes": out_sizes if out_sizes is not None else sizes,
        "output_dtypes": [dtype] * len(out_sizes if out_sizes is not None else sizes),
        "state": state,
        "time_discovered_started_ns": started if started is not None else (0 if json_form else None),
        "time_discovered_completed_ns": completed if completed is not None else (0 if json_form else None),
        "retired": state == "completed",
        "timeout_ms": TIMEOUT_MS,
        "is_p2p": p2p,
    })
    return e


def dump(groups, status, entries, json_form=False):
    cfg = {name: {"name": name, "desc": desc, "ranks": str(list(ranks))} for name, desc, ranks in groups}
    st = {}
    for pg_id, (enq, start, done) in status.items():
        vals = {"last_enqueued_collective": enq, "last_started_collective": start, "last_completed_collective": done}
        st[str(pg_id)] = {k: str(v) for k, v in vals.items()} if json_form else vals
    d = {"version": VERSION, "comm_lib_version": NCCL, "pg_config": cfg, "pg_status": st, "entries": entries}
    return d


def write(dirname, rank, d, json_form=False):
    os.makedirs(dirname, exist_ok=True)
    path = os.path.join(dirname, "nccl_trace_rank_%d" % rank + (".json" if json_form else ""))
    if json_form:
        with open(path, "w") as f:
            json.dump(d, f, indent=1)
            f.write("\n")
    else:
        with open(path, "wb") as f:
            f.write(pickle.dumps(d, protocol=2))


def missing_rank():
    """8 ranks; ranks 0-2,4-7 started all_reduce #3001, rank 3 never enqueued it."""
    pg = ("0", "default_pg")
    groups = [("0", "default_pg", range(8))]
    for rank in range(8):
        entries = []
        last = 3000 if rank == 3 else 3001
        first = 2991
        for i, seq in enumerate(range(first, last + 1)):
            state = "completed" if seq <= 3000 else "started"
            entries.append(entry(seq - 1, 0, pg, seq, 0, seq, "nccl:all_reduce", [[4096, 1024]], "BFloat16",
                                 state, T0 + seq * 1_000_000 + rank * 1000))
        status = {0: (last, last, 3000)}
        write("missing_rank", rank, dump(groups, status, entries))


def size_mismatch():
    """4 ranks, JSON form; rank 1 calls all_reduce #5 with a different size."""
    pg = ("0", "default_pg")
    groups = [("0", "default_pg", range(4))]
    for rank in range(4):
        entries = []
        for seq in range(1, 6):
            size = [[2048]] if (seq == 5 and rank == 1) else [[1024]]
            state = "completed" if seq < 5 else "started"
            entries.append(entry(seq - 1, 0, pg, seq, 0, seq, "nccl:all_reduce", size, "Float",
                                 state, T0 + seq * 1_000_000, json_form=True))
        write("size_mismatch_json", rank, dump(groups, {0: (5, 5, 4)}, entries, json_form=True), json_form=True)


def order_mismatch():
    """4 ranks; rank 2 calls all_gather where the others call all_reduce (#7)."""
    pg = ("0", "default_pg")
    groups = [("0", "default_pg", range(4))]
    for rank in range(4):
        entries = []
        for seq in range(1, 8):
            name = "nccl:all_reduce"
            sizes, out = [[1024]], None
            if seq == 7:
                if rank == 2:
                    name, sizes, out = "nccl:all_gather", [[256]], [[1024]]
            state = "completed" if seq < 7 else "started"
            entries.append(entry(seq - 1, 0, pg, seq, 0, seq, name, sizes, "Float", state,
                                 T0 + seq * 1_000_000, out_sizes=out))
        write("order_mismatch", rank, dump(groups, {0: (7, 7, 6)}, entries))


def unpaired_send():
    """2 ranks; rank 0 sends three times to rank 1, rank 1 receives twice."""
    pg = ("0", "default_pg")
    groups = [("0", "default_pg", range(2))]
    for rank in range(2):
        entries = [entry(0, 0, pg, 1, 0, 1, "nccl:all_reduce", [[1024]], "Float", "completed", T0)]
        n = 3 if rank == 0 else 2
        for i in range(1, n + 1):
            name = "nccl:send 0->1" if rank == 0 else "nccl:recv 1<-0"
            state = "completed" if i < 3 else "started"
            entries.append(entry(i, 0, pg, 1, i, 1 + i, name, [[4096]], "Float", state,
                                 T0 + i * 1_000_000, p2p=True))
        write("unpaired_send", rank, dump(groups, {0: (1, 1, 1)}, entries))


def healthy():
    """2 ranks, two process groups, every collective completed (JSON form)."""
    groups = [("0", "default_pg", range(2)), ("1", "tp", range(2))]
    for rank in range(2):
        entries = []
        rid = 0
        for seq in range(1, 4):
            entries.append(entry(rid, 0, ("0", "default_pg"), seq, 0, seq, "nccl:all_reduce", [[1024]], "Float",
                                 "completed", T0 + seq * 1_000_000, json_form=True))
            rid += 1
            entries.append(entry(rid, 1, ("1", "tp"), seq, 0, seq, "nccl:_all_gather_base", [[512]], "BFloat16",
                                 "completed", T0 + seq * 1_000_000 + 500, out_sizes=[[1024]], json_form=True))
            rid += 1
        write("healthy_json", rank, dump(groups, {0: (3, 3, 3), 1: (3, 3, 3)}, entries, json_form=True), json_form=True)


def protocols():
    """unpaired_send's rank 0 in pickle protocols 0, 4 and 5, for the decoder."""
    with open(os.path.join("unpaired_send", "nccl_trace_rank_0"), "rb") as f:
        d = pickle.load(f)
    for proto in (0, 4, 5):
        dirname = "protocol%d" % proto
        os.makedirs(dirname, exist_ok=True)
        with open(os.path.join(dirname, "nccl_trace_rank_0"), "wb") as f:
            f.write(pickle.dumps(d, protocol=proto))


if __name__ == "__main__":
    missing_rank()
    size_mismatch()
    order_mismatch()
    unpaired_send()
    healthy()
    protocols()
