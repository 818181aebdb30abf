"""What the installed PyTorch does with its communication environment, for
commlab doctor's environment linter.

`defaults`: the default process-group timeout and the values PyTorch reports
for the TORCH_NCCL_* / TORCH_FR_* settings it reads.
`run`: a one-rank NCCL process group with whatever environment the caller
set, one all_reduce, then the warnings PyTorch raised, so deprecated names
(TORCH_NCCL_TRACE_BUFFER_SIZE -> TORCH_FR_BUFFER_SIZE in 2.11) show up as
PyTorch itself words them.
"""
import os
import sys
import warnings

import torch
import torch.distributed as dist


def defaults():
    print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())
    from torch.distributed import constants
    for name in ("default_pg_timeout", "default_pg_nccl_timeout"):
        print(name, getattr(constants, name, "absent"))
    c10d = torch._C._distributed_c10d
    opts = getattr(c10d, "ProcessGroupNCCL", None)
    if opts is not None:
        o = opts.Options()
        print("ProcessGroupNCCL.Options().timeout", getattr(o, "_timeout", "absent"))
    for k in sorted(os.environ):
        if k.startswith(("TORCH_NCCL", "TORCH_FR", "NCCL_")):
            print("env", k, os.environ[k])


def run():
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        torch.cuda.set_device(0)
        dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
        x = torch.ones(1 << 20, device="cuda")
        dist.all_reduce(x)
        torch.cuda.synchronize()
        pg = dist.distributed_c10d._get_default_group()
        print("allreduce", x[0].item(), "world", dist.get_world_size())
        try:
            print("pg timeout", dist.distributed_c10d._get_pg_default_device(pg), pg.options._timeout)
        except Exception as e:  # the private API moves between versions
            print("pg timeout: not readable:", repr(e))
        dist.destroy_process_group()
    for w in caught:
        print("WARNING", w.category.__name__, str(w.message).replace("\n", " "))


if __name__ == "__main__":
    {"defaults": defaults, "run": run}[sys.argv[1]]()
