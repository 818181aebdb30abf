#!/usr/bin/env python3
"""Writes the CONSTRUCTED 4-rank hangs under testdata/h200x4_*/ from a real dump.

The base is rank 0's JSON dump of the project's healthy 2xH200 run
(../../../testdata/h200/x2/flight-recorder-rank0.json: torch 2.11.0+cu130,
NCCL 2.28.9, 11 collectives, all completed, timing off). Each scenario widens
the job to four ranks (pg_config ranks "[0, 1, 2, 3]"), keeps the eleven
recorded entries and appends one more all_reduce (#12, the shape of the
recorded #1: 1048576 Float) in the state the scenario stages:

  h200x4_all_started   timing on: every rank started #12, none completed it.
                       Entries 1-11 get the start time and duration that
                       TORCH_NCCL_ENABLE_TIMING=1 records; pg_status tracks
                       started collectives.
  h200x4_timing_off    the default: every rank enqueued #12 and none completed
                       it; entries stay "scheduled", pg_status says
                       last_started -1, as the recorded dump does.
  h200x4_no_dump       h200x4_timing_off without rank 3's file.
  h200x4_apart         h200x4_timing_off, but rank 2 never called #12.
  h200x4_mixed         rank 0 and 1 as pickles (protocol 2, None for unknown
                       times, as torch's pickler writes), rank 2 and 3 as JSON,
                       beside a file that is no dump (the recording's
                       probe-topo.json).

These are constructed fault cases, not recordings of a hang: the hang states
are edits. Run from this directory:

    python3 gen_h200_hangs.py
"""
import copy
import json
import os
import pickle
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "..", "..", "testdata", "h200", "x2")
WORLD = 4


def load_base():
    with open(os.path.join(BASE, "flight-recorder-rank0.json")) as f:
        return json.load(f)


def dump_for(base, rank, state, timing, enqueued=True):
    d = copy.deepcopy(base)
    d["pg_config"]["0"]["ranks"] = "[0, 1, 2, 3]"
    entries = d["entries"]
    for e in entries:
        e["thread_id"] = str(140020084564288 + rank)
        if timing:
            e["time_discovered_started_ns"] = e["time_created_ns"] + 25_000
            e["duration_ms"] = 0.031
    last = entries[-1]
    if enqueued:
        e = copy.deepcopy(entries[0])
        e["record_id"] = last["record_id"] + 1
        e["collective_seq_id"] = last["collective_seq_id"] + 1
        e["op_id"] = last["op_id"] + 1
        e["time_created_ns"] = last["time_created_ns"] + 2_000_000
        e["state"] = state
        e["retired"] = False
        e["time_discovered_completed_ns"] = 0
        e.pop("duration_ms", None)
        e["time_discovered_started_ns"] = e["time_created_ns"] + 25_000 if state == "started" else 0
        entries.append(e)
    n = entries[-1]["collective_seq_id"]
    d["pg_status"]["0"] = {
        "last_enqueued_collective": str(n),
        "last_started_collective": str(n if timing else -1),
        "last_completed_collective": str(11),
    }
    return d


def as_pickle(d):
    """The dict as torch's pickler writes it: tuples for process_group, None
    for times not seen, ints in pg_status."""
    p = copy.deepcopy(d)
    for e in p["entries"]:
        e["process_group"] = tuple(e["process_group"])
        for k in ("time_discovered_started_ns", "time_discovered_completed_ns"):
            if e[k] == 0:
                e[k] = None
    p["pg_status"] = {k: {kk: int(vv) for kk, vv in v.items()} for k, v in p["pg_status"].items()}
    return pickle.dumps(p, protocol=2)


def write(dirname, files):
    out = os.path.join(HERE, dirname)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for name, data in files.items():
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(os.path.join(out, name), mode) as f:
            f.write(data)


def js(d):
    return json.dumps(d, indent=1, sort_keys=True) + "\n"


def main():
    base = load_base()
    write("h200x4_all_started", {f"flight-recorder-rank{r}.json": js(dump_for(base, r, "started", True)) for r in range(WORLD)})
    off = {f"flight-recorder-rank{r}.json": js(dump_for(base, r, "scheduled", False)) for r in range(WORLD)}
    write("h200x4_timing_off", off)
    write("h200x4_no_dump", {k: v for k, v in off.items() if not k.endswith("rank3.json")})
    apart = dict(off)
    apart["flight-recorder-rank2.json"] = js(dump_for(base, 2, "scheduled", False, enqueued=False))
    write("h200x4_apart", apart)
    mixed = {}
    for r in range(WORLD):
        d = dump_for(base, r, "scheduled", False)
        if r < 2:
            mixed[f"dump-{r}.pickle"] = as_pickle(d)
        else:
            mixed[f"dump-{r}.json"] = js(d)
    with open(os.path.join(BASE, "probe-topo.json")) as f:
        mixed["probe-topo.json"] = f.read()
    write("h200x4_mixed", mixed)


if __name__ == "__main__":
    main()
