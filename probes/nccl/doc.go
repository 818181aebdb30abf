// Package nccl runs NCCL collectives over all local GPUs in one process
// (ncclCommInitAll) and times them as nccl-tests does: size sweeps,
// warm-up and timed iterations, in-place and out-of-place, results checked,
// algbw and busbw with nccl-tests' factors.
//
// libnccl.so.2 is loaded at run time with dlopen (COMMLAB_NCCL forces a
// path), so commlab builds and runs where NCCL is absent; there Measure
// returns an error wrapping probes.ErrUnavailable. Buffers, streams and
// events come from probes/cuda, the one package that loads the CUDA runtime.
//
// NCCL reads most NCCL_* variables once per process, so a run with its own
// settings runs in a child process (MeasureInChild) whose environment holds
// them and whose NCCL_DEBUG log goes to a file kept with the run. A
// collective that does not finish within the timeout is aborted with
// ncclCommAbort and reported with ErrTimeout. NCCL can block inside its own
// calls (a launch waiting for a peer, an abort waiting for a stream), where
// no in-process timeout reaches; so the child sends a heartbeat after every
// batch and the parent kills a child that falls silent, keeping what it
// checkpointed. On the H200 both hang scenarios ended that way (see
// probes/testdata/h200/commlab-hang-stalled-stream.json).
//
// The package does not parse the NCCL log (probes/parse/nccllog does) nor
// launch work across nodes (commlab builds the launcher's command instead).
package nccl
