#!/usr/bin/env python3
"""Write an NCCL_DEBUG=INFO log of a large job, to time the doctor on it.

The log is a recorded one (parse/nccllog/testdata/h200_subsys_all_2.28.9.log,
NCCL 2.28.9 with NCCL_DEBUG_SUBSYS=ALL) spoken by RANKS ranks, 8 to a node:
every rank prints the recording's init lines under its own host, pid and
device, rank and nranks rewritten; then the ranks print the recording's
collective lines round after round, interleaved as a launcher merges their
stderr, opCount rising, until the file holds SIZE_MB megabytes.

usage: scale_log.py RANKS SIZE_MB OUT
"""
import re
import sys

BASE = "parse/nccllog/testdata/h200_subsys_all_2.28.9.log"
PREFIX = re.compile(r"^vm:412:(\d+) \[0\] ")
OP = re.compile(r"NCCL INFO \w+: opCount ")


def main():
    ranks, size_mb, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    with open(BASE) as f:
        lines = [l for l in f.read().splitlines() if PREFIX.match(l)]
    init = [l for l in lines if not OP.search(l)]
    ops = [l for l in lines if OP.search(l)]
    limit = size_mb << 20

    def speak(line, r, op=None):
        tid = PREFIX.match(line).group(1)
        body = PREFIX.sub("", line)
        body = body.replace("nranks 1 ", "nranks %d " % ranks).replace("rank 0 nranks", "rank %d nranks" % r)
        body = body.replace("[nranks=1]", "[nranks=%d]" % ranks)
        if op is not None:
            body = re.sub(r"opCount \w+", "opCount %x" % op, body)
        pid = 10000 + r
        return "node%04d:%d:%d [%d] %s\n" % (r // 8, pid, pid + int(tid) - 412, r % 8, body)

    written = 0
    with open(out, "w") as f:
        for r in range(ranks):
            for l in init:
                s = speak(l, r)
                f.write(s)
                written += len(s)
        op = 0
        while written < limit:
            for l in ops:
                for r in range(ranks):
                    s = speak(l, r, op)
                    f.write(s)
                    written += len(s)
                op += 1
                if written >= limit:
                    break
    print("%s: %d ranks, %d bytes" % (out, ranks, written))


if __name__ == "__main__":
    main()
