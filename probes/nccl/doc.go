// Package nccl runs NCCL collectives over all local GPUs in one process
// (one communicator per GPU, as ncclCommInitAll makes them) and times them as nccl-tests does: size sweeps,
// warm-up and timed iterations, in-place and out-of-place, results checked,
// algbw and busbw with nccl-tests' factors.
//
// libnccl.so.2 is loaded at run time through probes/dynlib (COMMLAB_NCCL
// forces a path), so commlab builds and runs where NCCL is absent; there
// Measure returns an error wrapping probes.ErrUnavailable that says so
// ("nccl: NCCL unavailable: libnccl.so.2, libnccl.so not found"). Buffers, streams and
// events come from probes/cuda, the one package that loads the CUDA runtime.
//
// NCCL reads most NCCL_* variables once per process, so a run with its own
// settings runs in a child process (MeasureInChild) whose environment holds
// them and whose NCCL_DEBUG log goes to a file kept with the run.
//
// Timeouts: the communicators are created non-blocking (ncclConfig_t with
// blocking = 0, ncclCommInitRankConfig per GPU in one group; NCCL 2.14+),
// so NCCL's calls return ncclInProgress instead of blocking. Every wait
// polls (ncclCommGetAsyncError, cudaEventQuery; never a synchronize) up to
// a deadline; an operation that misses it is aborted in-process with
// ncclCommAbort on every communicator and reported as a *TimeoutError
// (wrapping ErrTimeout) that names the phase, collective, size and GPUs.
// The process carries on: a fresh communicator works afterwards (H200,
// NCCL 2.28.3: testdata/h200). ncclCommAbort stops NCCL's own kernels, not
// other work: behind the stalled stream it waited until the hold was
// released, abortGrace after the abort began. As a last
// resort the child of MeasureInChild sends a heartbeat after every batch
// and the parent kills a child that falls silent, keeping what it
// checkpointed (an older NCCL, or an abort that never returns).
//
// The package does not parse the NCCL log (parse/nccllog does) nor
// launch work across nodes (commlab builds the launcher's command instead).
package nccl
