// Package launch runs the programs commlab measures with but does not
// contain: external tools (nccl-tests, nvbandwidth, perftest), through the
// user's own launcher (mpirun, srun or torchrun) when a run spans processes
// or nodes, and the PyTorch scripts it embeds so that the commlab binary
// alone is enough on a GPU machine: the reference benchmark
// (bench_torch.py) and chapter 6's hang lab (hang_torch.py: staged hangs on
// gloo CPU ranks with Flight Recorder dumps, stacks and fr_trace).
//
// commlab never grows a launcher of its own: Command only builds the
// command line the user's launcher would be given, and a Tool run keeps
// that command, its environment and the tool's whole output in a
// probes.Run, so the run's provenance says exactly what ran. Parsing the
// output is the parsers' business (parse/...), not this package's.
//
// Start starts a program and returns without waiting, its output going to
// the caller's writers: for probes that run two sides at once (probes/rdma's
// server and client) or build a program first.
//
// launch is the one package of the probes that starts processes (os/exec).
package launch
