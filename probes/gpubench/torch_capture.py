"""One-process torch.distributed (NCCL) run that leaves a Flight Recorder
dump and an NCCL debug log behind, for the parsers' fixtures.

Run by capture.sh with TORCH_NCCL_TRACE_BUFFER_SIZE set; argv[1] is the
output folder.
"""
import os
import pickle
import sys

import torch
import torch.distributed as dist

out = sys.argv[1]
local = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
for n in (2, 1024, 1 << 16):
    t = torch.arange(n, dtype=torch.float32, device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    dist.broadcast(t, src=0)
h = torch.ones(4096, dtype=torch.bfloat16, device="cuda")
g = torch.empty(4096 * dist.get_world_size(), dtype=torch.bfloat16, device="cuda")
dist.all_gather_into_tensor(g, h)
dist.reduce_scatter_tensor(h, g)
dist.all_reduce(torch.ones(8, dtype=torch.int64, device="cuda"), op=dist.ReduceOp.MAX)
dist.barrier()
torch.cuda.synchronize()
print("rank", rank, "allreduce result", x[0].item(), "world", dist.get_world_size())
c10d = torch._C._distributed_c10d
raw = c10d._dump_nccl_trace()
with open(os.path.join(out, f"flight-recorder-rank{rank}.pickle"), "wb") as f:
    f.write(raw)
print("pickle bytes", len(raw), "keys", sorted(pickle.loads(raw).keys()))
if hasattr(c10d, "_dump_nccl_trace_json"):
    js = c10d._dump_nccl_trace_json()
    if isinstance(js, str):
        js = js.encode()
    with open(os.path.join(out, f"flight-recorder-rank{rank}.json"), "wb") as f:
        f.write(js)
    print("json chars", len(js))
dist.destroy_process_group()
