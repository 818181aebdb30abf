// Package torchtrace reads the Chrome traces that torch.profiler writes
// (profile.export_chrome_trace, the Kineto JSON; gzipped too) into what a
// chapter on communication overlap needs: per GPU stream, the intervals of
// kernels, copies and memsets; which of them are communication; how much
// communication time ran under compute and how much alone (the
// overlap_fraction); and the GPU's idle gaps.
//
// Communication is decided by what launched an activity, not by its name
// alone: a GPU activity's correlation id leads to the CUDA runtime or
// driver call that launched it (cudaLaunchKernel, cuLaunchKernelEx,
// cudaMemcpyAsync), and that call's enclosing CPU ops on the same thread
// say what it was for. An enclosing op named nccl:*, c10d::*,
// _c10d_functional::*, record_param_comms (PyTorch's communication ops) or
// gloo:* makes it communication. On one GPU this matters: NCCL runs a
// one-rank collective as a cudaMemcpyAsync (NVIDIA/nccl
// src/device/onerank.cu, ncclLaunchOneRank), a plain "Memcpy DtoD" that
// only its launching op tells from any other copy. An activity whose launch
// is not in the trace falls back to its name (ncclDevKernel_*, ncclKernel_*),
// or to its stream when every activity there with a known launch is
// communication, and says so in Activity.By.
//
// Kineto's categories are read in their current spelling (kernel,
// gpu_memcpy, gpu_memset, cuda_runtime, cuda_driver, cpu_op,
// user_annotation) and the older one (Kernel, Memcpy, Memset, Runtime,
// Operator). Timestamps are microseconds with a fraction; they are read as
// decimal text into integer nanoseconds, so a trace whose times are 1e15
// loses no precision, and reported in microseconds from the trace's first
// event.
//
// The package owns reading and measuring one trace. It runs no profiler,
// knows no benchmark (probes/overlap reads the benchmark's outputs) and
// draws nothing (chart draws the timelines). Standard library only.
package torchtrace
