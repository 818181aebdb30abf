// Package customar owns commlab's own custom all-reduce over CUDA IPC,
// program/customar.cu: the one-shot and two-shot kernels that inference
// engines use for small tensor-parallel all_reduces (vLLM's
// csrc/custom_all_reduce.cuh names them), written small enough to read in
// chapter 7 and run beside NCCL.
//
// Each rank is one process. It allocates its input, a scratch buffer and a
// block of flags with cudaMalloc, publishes their cudaIpcGetMemHandle
// handles as a file in a directory all ranks share, and maps every peer's
// buffers with cudaIpcOpenMemHandle. Kernels then read peer memory
// directly. Barriers are flags written into peers' signal blocks, per
// CUDA block, one growing value per call; every wait has a deadline, so a
// missing peer ends the run with an error instead of a hang. Every size's
// output is checked element by element against the exact float32 sum.
//
// Two processes can share one GPU. Without MPS their contexts time-slice,
// so each flag wait lasts about one time slice: such a run proves the
// handle exchange, the kernels and the sums, not memory ordering across
// GPUs, and its times measure time slicing, not the all-reduce. A run's
// Settings say which placement it had ("same-gpu", "p2p", "single") and
// its Notes say what that means.
//
// The package builds the program with nvcc (from $NVCC, PATH or
// /usr/local/cuda/bin) into a cache directory keyed by the source's hash,
// starts the ranks through probes/launch, and parses their output (Parse)
// into one probes.Run of kind "custom-allreduce": per algorithm and size
// the slowest rank's mean time per call. FromLogs builds the same run from
// rank logs recorded elsewhere (probes/gpubench/ch7.sh). Without nvcc or a
// GPU, Build and Measure return an error wrapping probes.ErrUnavailable.
//
// The cost models of one-shot and two-shot live in costmodel; this
// package only measures.
package customar
